"""The real APScheduler job, on the real clock, for a short moment."""

from __future__ import annotations

import asyncio
import logging
import random
from datetime import UTC, datetime, timedelta

import pytest

from bot.core.clock import SystemClock
from bot.core.events import Address
from bot.engine.due_work import build_dispatcher
from bot.engine.router import Router
from bot.flows.context import Services
from bot.scheduling.runner import TickRunner
from bot.storage import checkin_slots
from bot.storage.queries import to_epoch
from bot.storage.users import ensure_user
from tests.helpers.outboxes import outbox_for
from tests.helpers.recording_adapter import RecordingAdapter
from tests.helpers.waiting import until


async def test_runner_ticks_and_wakes_up_for_the_next_due_checkin(services: Services) -> None:
    live = Services(services.db, services.cipher, services.content, SystemClock())
    adapter = RecordingAdapter()
    router = Router(live, rng=random.Random(1))
    async with live.db.transaction() as tx:
        user = await ensure_user(tx, Address("test", "c", "u"), "en", datetime.now(UTC))
        await checkin_slots.replace_slots(tx, user.id, ["09:00"])
        # Due about two seconds from now: long before the 15 s interval job would look.
        due = datetime.now(UTC) + timedelta(seconds=2)
        await tx.execute(
            "UPDATE checkin_slots SET next_due_at = ?, next_local_date = ? WHERE user_id = ?",
            (to_epoch(due), due.date().isoformat(), user.id),
        )
    outbox = outbox_for(live, live.clock, {adapter.platform: adapter})
    await outbox.start()
    runner = TickRunner(
        build_dispatcher(live, router.checkin, router.pause, outbox), tick_seconds=15
    )
    runner.start()
    try:
        # The wake-up job fires about 2 s from now; the 15 s interval job would be too late
        # for the 10 s allowed here.
        await until(lambda: bool(adapter.sent), timeout=10, what="the wake-up tick's check-in")
    finally:
        await runner.stop()
        await outbox.stop()
    assert runner.ticks >= 2  # the start-up tick, then the wake-up
    assert len(adapter.sent) == 1


class _SlowDispatcher:
    """A tick that runs until the test lets it finish."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.calls = 0
        self.running = 0
        self.most_at_once = 0

    async def tick(self) -> None:
        self.calls += 1
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        try:
            if self.calls == 1:
                await self.release.wait()
        finally:
            self.running -= 1

    async def next_due_at(self) -> None:
        return None


async def test_a_slow_tick_makes_the_next_wait_merged_and_without_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    slow = _SlowDispatcher()
    runner = TickRunner(slow, tick_seconds=1)  # type: ignore[arg-type]
    caplog.set_level(logging.WARNING)
    runner.start()
    try:
        await asyncio.wait_for(until(lambda: slow.calls == 1 and runner.asked >= 3), 10)
        assert slow.calls == 1  # the asks during the slow tick wait for it
        slow.release.set()
        await asyncio.wait_for(until(lambda: slow.calls >= 2), 10)
    finally:
        await runner.stop()
    assert slow.most_at_once == 1
    assert slow.calls < runner.asked  # the asks made while it ran became one tick
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
