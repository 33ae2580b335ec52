"""Stopping and starting: signals end the bot cleanly, a second process is refused, and
what was in flight at the stop is handled as promised after the restart."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import CheckinMsg, PauseMsg
from bot.core.clock import ManualClock
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers.processes import start_steady_run, steady_environment
from tests.helpers.world import build_world

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # the clock fixture's start


async def start_steady(tg: FakeTelegram, data: Path) -> asyncio.subprocess.Process:
    environment = steady_environment(
        data, TELEGRAM_BOT_TOKEN=tg.token, TELEGRAM_API_BASE_URL=f"{tg.url}/bot"
    )
    return await start_steady_run(environment, data.parent)


async def stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.kill()
        await process.wait()


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_stops_the_bot_with_exit_0_within_10_seconds(
    tmp_path: Path, signal_number: signal.Signals
) -> None:
    async with FakeTelegram() as tg:
        process = await start_steady(tg, tmp_path / "data")
        try:
            await tg.wait_for("setMyCommands", timeout=30)
            tg.user_sends_text(42, 42, "/help")
            await tg.wait_for("sendMessage", timeout=30)
            process.send_signal(signal_number)
            assert await asyncio.wait_for(process.wait(), timeout=10) == 0
        finally:
            await stop(process)
        _, stderr = await process.communicate()
        assert b"Traceback" not in stderr


async def test_a_second_bot_on_the_same_database_is_refused_with_exit_2(tmp_path: Path) -> None:
    async with FakeTelegram() as tg:
        first = await start_steady(tg, tmp_path / "data")
        try:
            await tg.wait_for("setMyCommands", timeout=30)
            second = await start_steady(tg, tmp_path / "data")
            try:
                assert await asyncio.wait_for(second.wait(), timeout=30) == 2
                _, stderr = await second.communicate()
                assert b"another Steady process is already running on this database" in stderr
            finally:
                await stop(second)
            assert first.returncode is None  # the first one serves on, untouched
            tg.user_sends_text(43, 43, "/about")
            await tg.wait_for(lambda call: call.method == "sendMessage", timeout=30)
            assert tg.sent_texts(43)
        finally:
            first.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(first.wait(), timeout=10) == 0
            await stop(first)


async def test_after_a_restart_what_was_claimed_and_never_sent_is_sent_once(
    settings: Settings, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    """Both were claimed and queued when the bot stopped, and neither reached the user:
    their outbox rows outlive the process, so the next run sends each once (a few
    minutes late), and nothing is claimed again."""
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        checkin = await world.onboard("ana", "UTC", "09:10")
        await checkin.send("/cancel")
        pause = world.chat("bo")
        await pause.send("/pause")
        await pause.press(text_of(PauseMsg.PAUSE_WAIT))
        await pause.press(text_of(PauseMsg.WAIT_10))
        world.adapter.take()
        await world.outbox.stop()  # the sender stops first, as at shutdown
        clock.set(START + timedelta(minutes=10))
        report = await world.dispatcher.tick()
        assert (report.started, report.followups) == (1, 1)
        assert world.adapter.sent == []  # queued, never sent: left in the table by the stop

    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        sent = []
        for _ in range(12):  # an hour after the restart, ticking every five minutes
            clock.advance(timedelta(minutes=5))
            await world.tick()
            sent += [(address.user_id, reply.text) for address, reply in world.adapter.take()]
        assert sorted(user for user, _ in sent) == ["ana", "bo"]  # each once
        assert (("bo", text_of(PauseMsg.FOLLOWUP))) in sent
        assert any(user == "ana" and text_of(CheckinMsg.ASK_MOOD) in text for user, text in sent)
        clock.set(START + timedelta(days=1, minutes=10))
        await world.tick()
        [(address, reply)] = world.adapter.take()  # the next day's check-in, as usual
        assert address.user_id == "ana" and text_of(CheckinMsg.ASK_MOOD) in reply.text
        await world.outbox.stop()
