"""Steady as a real child process, the way an operator starts it: for the command-line tests."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

# Settings a developer's own shell may hold that must not leak into a test's process.
_OUTSIDE_SETTINGS = frozenset({"TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "STEADY_ENCRYPTION_KEY"})


def steady_environment(data_dir: Path, **settings: str) -> dict[str, str]:
    """This process's environment without outside settings, plus the data folder and
    `settings` (TELEGRAM_BOT_TOKEN=..., and so on)."""
    environment = {k: v for k, v in os.environ.items() if k not in _OUTSIDE_SETTINGS}
    return environment | {"STEADY_DATA_DIR": str(data_dir), **settings}


async def start_steady_run(environment: dict[str, str], cwd: Path) -> asyncio.subprocess.Process:
    """`steady run`, its output captured."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run",
        env=environment, cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


def steady(
    args: list[str], data_dir: Path, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    """`steady <args>` run to its end, `stdin` piped in, its output captured."""
    environment = steady_environment(data_dir, **env)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=environment,
        cwd=data_dir.parent,
        timeout=60,
        check=False,
    )


async def steady_async(
    args: list[str], data_dir: Path, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    """`steady` as above, while this event loop goes on serving (a fake platform, say)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args,
        env=steady_environment(data_dir, **env), cwd=data_dir.parent,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    stdout, stderr = await asyncio.wait_for(process.communicate(stdin.encode()), timeout=120)
    assert process.returncode is not None
    return subprocess.CompletedProcess(args, process.returncode, stdout.decode(), stderr.decode())
