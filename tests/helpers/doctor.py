"""Running `steady doctor` as an operator does, and reading its report: one line per
check, then a summary."""

from __future__ import annotations

import base64
import os
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.fakes.discord_api import FakeDiscord
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers.processes import steady, steady_async


def new_key() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).decode()


@dataclass(frozen=True, slots=True)
class Report:
    code: int
    lines: dict[str, str]  # check -> "ok ...", "FAIL ...", "skip ..."
    stdout: str

    def failed(self) -> list[str]:
        return [check for check, line in self.lines.items() if line.startswith("FAIL")]

    def status(self, check: str) -> str:
        return self.lines[check].split(" ", 1)[0]

    def said(self, check: str) -> str:
        return self.lines[check].split(": ", 1)[1]


def read_report(result: subprocess.CompletedProcess[str]) -> Report:
    *lines, last = result.stdout.strip().splitlines()
    assert last.startswith("steady doctor: "), result.stdout + result.stderr
    found = {}
    for line in lines:
        status, rest = line.split(" ", 1)
        assert status in {"ok", "FAIL", "skip"}, line
        check = rest.strip().split(": ", 1)[0]
        found[check] = f"{status} {rest.strip()}"
    return Report(result.returncode, found, result.stdout)


async def doctor(data: Path, *args: str, **env: str) -> Report:
    return read_report(await steady_async(["doctor", *args], data, **env))


@asynccontextmanager
async def platforms() -> AsyncIterator[dict[str, str]]:
    """The fake Telegram and Discord, and the settings that point Steady at them."""
    async with FakeTelegram() as tg, FakeDiscord() as dc:
        yield {
            "TELEGRAM_BOT_TOKEN": tg.token,
            "TELEGRAM_API_BASE_URL": f"{tg.url}/bot",
            "DISCORD_BOT_TOKEN": dc.token,
            "DISCORD_API_BASE_URL": dc.api_url,
        }


def webhook(port: int, url: str = "https://bot.example.org/telegram") -> dict[str, str]:
    return {
        "TELEGRAM_WEBHOOK_URL": url,
        "TELEGRAM_WEBHOOK_SECRET": "s3cret-Token_1",
        "TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1",
        "TELEGRAM_WEBHOOK_PORT": str(port),
    }


def started_once(data: Path, **env: str) -> None:
    """A database as a first start leaves it: migrated, its key recorded, one user."""
    result = steady(["console"], data, "/start\n", **env)
    assert result.returncode == 0, result.stderr
