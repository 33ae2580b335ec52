"""Start-up as an operator meets it: one line naming what to fix, exit 2; and the console's
first lines."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import signal
import socket
import stat
import sys
from datetime import timedelta
from pathlib import Path

import pytest
import telegram.error

from bot import cli, platform_start
from bot.adapters.console import ConsoleAdapter
from bot.config import Settings, SettingsError, pick_default_locale
from bot.content_pack.ids import CheckinMsg, GeneralMsg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.engine.router import Router
from bot.logs import configure_logging
from tests.helpers.processes import start_steady_run, steady, steady_environment


def closed_port() -> int:
    """A loopback port nobody listens on: a network that refuses every connection."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def run_until_exit(environment: dict[str, str], cwd: Path) -> tuple[int, list[str]]:
    process = await start_steady_run(environment, cwd)
    _, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, stderr.decode().strip().splitlines()


def unreachable(platform: str) -> dict[str, str]:
    url = f"http://127.0.0.1:{closed_port()}"
    if platform == "telegram":
        return {"TELEGRAM_BOT_TOKEN": "123:abc", "TELEGRAM_API_BASE_URL": f"{url}/bot"}
    return {"DISCORD_BOT_TOKEN": "abc", "DISCORD_API_BASE_URL": f"{url}/api/v10"}


@pytest.mark.parametrize(
    ("platform", "name", "setting"),
    [
        ("telegram", "Telegram", "TELEGRAM_API_BASE_URL"),
        ("discord", "Discord", "DISCORD_API_BASE_URL"),
    ],
)
async def test_no_network_is_retried_for_a_while_then_one_line_and_exit_2(
    tmp_path: Path, platform: str, name: str, setting: str
) -> None:
    environment = steady_environment(
        tmp_path / "data", STEADY_START_RETRY="2s", **unreachable(platform)
    )
    code, lines = await run_until_exit(environment, tmp_path)
    assert code == 2
    assert lines[-1].startswith(f"steady: cannot reach {name} (retried for 2 s).")
    assert setting in lines[-1] and "STEADY_START_RETRY" in lines[-1]
    assert not any("Traceback" in line or "PyNaCl" in line for line in lines)
    retries = [line for line in lines if "event=platform.unreachable" in line]
    assert retries and all(f"platform={platform}" in line for line in retries)  # said in the log


@pytest.mark.parametrize("where", ["a file", "under /proc", "under a file"])
async def test_an_unusable_data_folder_is_one_line_and_exit_2(tmp_path: Path, where: str) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    data = {
        "a file": blocker,
        "under /proc": Path("/proc/steady-data"),
        "under a file": blocker / "data",
    }[where]
    environment = steady_environment(data, STEADY_START_RETRY="1s", **unreachable("telegram"))
    code, lines = await run_until_exit(environment, tmp_path)
    assert code == 2
    assert len(lines) == 1 and lines[0].startswith(f"steady: STEADY_DATA_DIR ({data})")


def test_a_default_locale_the_pack_lacks_names_the_variable(tmp_path: Path) -> None:
    result = steady(["run"], tmp_path / "data", STEADY_DEFAULT_LOCALE="xx")  # and no token
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "steady: STEADY_DEFAULT_LOCALE is not valid: the content pack has no xx (it has en, es)."
    ]


@pytest.mark.parametrize("tag", ["en-US", "en_GB", "EN"])
def test_locale_tags_fall_back_to_their_language(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, tag: str
) -> None:
    monkeypatch.setenv("STEADY_DEFAULT_LOCALE", tag)
    assert pick_default_locale(Settings(_env_file=None)).default_locale == "en"


def test_a_tag_that_is_no_language_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEADY_DEFAULT_LOCALE", "../en")
    with pytest.raises(ValueError, match="language tag"):
        Settings(_env_file=None)
    with pytest.raises(SettingsError):
        pick_default_locale(Settings(_env_file=None, STEADY_DEFAULT_LOCALE="fr"))  # type: ignore[call-arg]


async def test_the_console_in_a_terminal_greets_once(router: Router, tmp_path: Path) -> None:
    out = io.StringIO()
    console = ConsoleAdapter(
        router, io.StringIO(""), out, prompt=True, data_dir=tmp_path,
        image_saved=str, greeting="Type /start to begin, or /help.",
    )  # fmt: skip
    await console.run()
    assert out.getvalue().splitlines()[0] == "Type /start to begin, or /help."


def test_the_console_shows_an_open_question_again_after_a_restart(
    tmp_path: Path, content: ContentPack
) -> None:
    data = tmp_path / "data"
    first = steady(["console"], data, "/checkin\n4\n")
    assert first.returncode == 0, first.stderr
    second = steady(["console"], data, "2\n")  # a restart, then "2" answers what it shows
    assert second.returncode == 0, second.stderr
    assert second.stdout.splitlines()[0] == content.text("en", GeneralMsg.QUESTION_AGAIN)
    assert content.text("en", CheckinMsg.ASK_URGE) in second.stdout
    assert content.text("en", CheckinMsg.ASK_NOTE) in second.stdout  # "2" pressed "Some"


def test_in_the_console_a_number_after_a_crisis_reply_answers_the_question(
    tmp_path: Path, content: ContentPack
) -> None:
    result = steady(["console"], tmp_path / "data", "/checkin\ni want to die\n1\n")
    assert result.returncode == 0, result.stderr
    assert content.text("en", SafetyMsg.SAFETY_MISREAD_REPLY) not in result.stdout
    assert content.text("en", CheckinMsg.ASK_URGE) in result.stdout  # "1" was mood 1, as meant


def test_the_data_folder_and_its_files_are_owner_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = steady(["console"], data, "/start\n")
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    for file in data.iterdir():
        assert stat.S_IMODE(os.stat(file).st_mode) == 0o600, file.name


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_chat_in_this_terminal_logs_to_a_file_not_between_its_lines(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, logging.getLogger("steady").level)
    stream = cli._log_stream(settings, "console")
    assert stream is not None
    try:
        configure_logging(cli._log_level(settings, "console", stream), stream)
        logging.getLogger("apscheduler.scheduler").warning("a library's warning")
        logging.getLogger("steady.test").info("%s", "tick.done")
    finally:
        root.handlers[:], _, _ = saved
        root.setLevel(saved[1])
        logging.getLogger("steady").setLevel(saved[2])
        stream.close()
    log_file = settings.data_dir / cli.LOG_FILE
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600
    written = log_file.read_text()
    assert "a library's warning" in written and "event=tick.done" in written
    assert terminal.getvalue() == ""  # nothing between the chat's lines
    # With a platform token, `steady run` is no chat here: its logs stay on stderr.
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
    assert cli._log_stream(Settings(_env_file=None), "run") is None


async def test_sigterm_while_waiting_for_the_network_stops_at_once(tmp_path: Path) -> None:
    environment = steady_environment(
        tmp_path / "data", STEADY_START_RETRY="10m", **unreachable("telegram")
    )
    process = await start_steady_run(environment, tmp_path)
    assert process.stderr is not None
    try:
        while b"event=platform.unreachable" not in await asyncio.wait_for(
            process.stderr.readline(), timeout=30
        ):
            pass
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), timeout=15) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def test_charts_earlier_versions_left_in_the_data_folder_are_removed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    legacy = data / "charts"
    legacy.mkdir(parents=True)
    (legacy / "steady-progress-2026-03-01.png").write_bytes(b"\x89PNG")
    result = steady(["console"], data, "/help\n")
    assert result.returncode == 0, result.stderr
    assert not legacy.exists()


class FloodedOnce:
    """A platform whose first start meets its flood control (Telegram's 429 on getMe)."""

    def __init__(self) -> None:
        self.starts = 0
        self.stops = 0

    async def start(self) -> None:
        self.starts += 1
        if self.starts == 1:
            raise telegram.error.RetryAfter(0)

    async def stop(self) -> None:
        self.stops += 1


async def test_a_flood_wait_at_start_up_is_waited_out_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(platform_start, "FIRST_RETRY_SECONDS", 0.01)
    platform = FloodedOnce()
    started = await platform_start.start_with_retries(
        platform, "telegram", timedelta(seconds=30), asyncio.Event()
    )
    assert started and platform.starts == 2 and platform.stops == 1


def test_the_wait_a_flood_control_asks_for_is_read_in_seconds() -> None:
    assert platform_start.asked_to_wait(telegram.error.RetryAfter(7)) == 7.0
    assert platform_start.asked_to_wait(ValueError("not a flood wait")) is None
