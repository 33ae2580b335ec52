"""The `steady` command as a user runs it: a real process, stdin in, stdout out."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.discord_api import FakeDiscord
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers.processes import start_steady_run, steady, steady_environment
from tests.helpers.synthetic_pack import write_pack

REPO = Path(__file__).resolve().parent.parent


def test_piped_console_onboards_checks_in_and_remembers(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = steady(
        ["console"],
        data,
        "/start\nEurope/Berlin\n08:30\n/checkin\n4\n2\nwalked the long way home\n",
    )
    assert first.returncode == 0, first.stderr
    assert "Your check-in time is 08:30 (8:30 am), Europe/Berlin time." in first.stdout
    assert "  a) 1 · very low" in first.stdout  # labels hold numbers: choices are lettered
    assert "Saved, with your note." in first.stdout
    assert "Traceback" not in first.stderr

    second = steady(["console"], data, "/start\n/mydata\n")
    assert second.returncode == 0, second.stderr
    assert "Welcome back." in second.stdout
    assert '"note": "walked the long way home"' in second.stdout
    assert '"urge": "some"' in second.stdout


def test_run_without_token_or_terminal_exits_2_naming_both_tokens(tmp_path: Path) -> None:
    result = steady(["run"], tmp_path / "data", "")
    assert result.returncode == 2
    assert "TELEGRAM_BOT_TOKEN" in result.stderr
    assert "DISCORD_BOT_TOKEN" in result.stderr


def test_invalid_setting_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = steady(["console"], tmp_path / "data", "", STEADY_LOG_LEVEL="chatty")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "steady: STEADY_LOG_LEVEL is not valid: expected one of DEBUG, INFO, WARNING, ERROR."
    ]


def test_wrong_key_is_a_clear_error_not_garbage(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert steady(["console"], data, "/checkin\n3\nnone\nsecret words\n").returncode == 0
    (data / "steady.key").unlink()
    (data / "steady.key").write_text("x" * 43 + "=\n")  # 32 bytes, but not the right ones
    result = steady(["console"], data, "/mydata\n")
    assert result.returncode == 2
    assert "different encryption key" in result.stderr
    assert "secret words" not in result.stdout
    assert "rotation was interrupted" not in result.stderr
    # A rotation that stopped at the very moment of committing leaves the old key beside
    # the new one: start-up says so, and how to settle it.
    (data / "steady.key.old").write_text("y" * 43 + "=\n")
    result = steady(["console"], data, "/mydata\n")
    assert result.returncode == 2
    assert "steady.key.old is there too" in result.stderr
    assert "steady keys rotate" in result.stderr


@pytest.mark.parametrize("broken", [True, False])
def test_content_check_command(tmp_path: Path, broken: bool) -> None:
    content = write_pack(tmp_path)  # full size: the item counts are checked too
    if broken:
        messages = content / "en" / "messages.yaml"
        messages.write_text(messages.read_text().replace("general.use_buttons", "general.nope"))
    result = steady(["content", "check"], tmp_path / "data", STEADY_CONTENT_DIR=str(content))
    if broken:
        assert result.returncode == 1
        assert f"{content}/en/messages.yaml:" in result.stdout
        assert "unknown message id 'general.nope'" in result.stdout
    else:
        assert result.returncode == 0, result.stdout
        assert "content pack is valid" in result.stdout


def test_broken_content_stops_the_console_before_it_answers(tmp_path: Path) -> None:
    content = tmp_path / "content"
    (content / "en").mkdir(parents=True)
    result = steady(["console"], tmp_path / "data", "/start\n", STEADY_CONTENT_DIR=str(content))
    assert result.returncode == 2
    assert "messages.yaml:1: file is missing" in result.stderr
    assert result.stdout == ""


def test_detect_names_the_intent_and_the_rule(tmp_path: Path) -> None:
    crisis = steady(["detect", "I w\u200bant to DIE"], tmp_path / "data")
    assert crisis.returncode == 0
    lines = crisis.stdout.splitlines()
    assert lines[0] == "normalised: i want to die"
    assert lines[1].startswith("crisis: rule ")
    ordinary = steady(["detect", "killing it at work today"], tmp_path / "data")
    # No rule: only the learned stage's reading (not raised, for talk this ordinary) and the reply.
    [model, reply] = ordinary.stdout.splitlines()[1:]
    assert model.startswith("model: en, score ") and model.endswith(", not raised")
    assert reply == "reply: none"
    urge = steady(["detect", "i want to text him so badly"], tmp_path / "data")
    assert urge.stdout.splitlines()[1].startswith("urge: rule ")


async def test_run_serves_telegram_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    async with FakeTelegram() as tg:
        environment = steady_environment(
            tmp_path / "data",
            TELEGRAM_BOT_TOKEN=tg.token,
            TELEGRAM_API_BASE_URL=f"{tg.url}/bot",
        )
        process = await start_steady_run(environment, tmp_path)
        try:
            await tg.wait_for("setMyCommands", timeout=30)
            tg.user_sends_text(42, 42, "/about")
            await tg.wait_for("sendMessage", timeout=30)
            assert tg.sent_texts(42)[0].startswith("Steady is a companion for reflection")
            process.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(process.wait(), timeout=10) == 0
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        _, stderr = await process.communicate()
        assert b"Traceback" not in stderr
        assert b"/about" not in stderr  # no user text in the logs


def test_a_second_console_on_the_same_data_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    environment = {**os.environ, "STEADY_DATA_DIR": str(data)}
    first = subprocess.Popen(
        [sys.executable, "-m", "bot", "console"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=environment, cwd=tmp_path, text=True,
    )  # fmt: skip
    try:
        assert first.stdin is not None and first.stdout is not None
        first.stdin.write("/about\n")
        first.stdin.flush()
        assert first.stdout.readline().startswith("Steady is a companion")  # it is running
        second = steady(["console"], data, "/about\n")
        assert second.returncode == 2
        assert "another Steady process is already running" in second.stderr
    finally:
        first.kill()
        first.wait()


async def test_run_serves_telegram_and_discord_from_one_process(tmp_path: Path) -> None:
    async with FakeTelegram() as tg, FakeDiscord() as dc:
        environment = steady_environment(
            tmp_path / "data",
            TELEGRAM_BOT_TOKEN=tg.token,
            TELEGRAM_API_BASE_URL=f"{tg.url}/bot",
            DISCORD_BOT_TOKEN=dc.token,
            DISCORD_API_BASE_URL=dc.api_url,  # the gateway address is asked of the API
        )
        process = await start_steady_run(environment, tmp_path)
        try:
            await tg.wait_for("setMyCommands", timeout=30)
            await dc.wait_for("PUT /applications/{application_id}/commands", timeout=30)
            await dc.wait_until_connected(timeout=30)
            tg.user_sends_text(42, 42, "/about")
            dc.user_sends_dm(43, "/about")
            await tg.wait_for("sendMessage", timeout=30)
            await dc.wait_for("POST /channels/{channel_id}/messages", timeout=30)
            assert tg.sent_texts(42)[0].startswith("Steady is a companion for reflection")
            assert dc.dm_texts(43)[0].startswith("Steady is a companion for reflection")
            process.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(process.wait(), timeout=15) == 0
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        _, stderr = await process.communicate()
        assert b"Traceback" not in stderr
        assert b"/about" not in stderr
        # It hung up (with 4000, not 1000: discord.py's close races its own reader).
        assert len(dc.client_closes) == 1 and dc.connected_session is None


@pytest.mark.parametrize("platform", ["telegram", "discord"])
async def test_a_refused_token_is_one_clear_line_and_exit_2(tmp_path: Path, platform: str) -> None:
    async with FakeTelegram() as tg, FakeDiscord() as dc:
        if platform == "telegram":
            environment = steady_environment(
                tmp_path / "data",
                TELEGRAM_BOT_TOKEN="999:not-the-right-token",
                TELEGRAM_API_BASE_URL=f"{tg.url}/bot",
            )
            expected = "steady: Telegram refused TELEGRAM_BOT_TOKEN."
        else:
            environment = steady_environment(
                tmp_path / "data",
                DISCORD_BOT_TOKEN="not-the-right-token",
                DISCORD_API_BASE_URL=dc.api_url,
            )
            expected = "steady: Discord refused DISCORD_BOT_TOKEN."
        process = await start_steady_run(environment, tmp_path)
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
    assert process.returncode == 2
    assert b"Traceback" not in stderr
    assert stderr.decode().strip().splitlines()[-1].startswith(expected)
