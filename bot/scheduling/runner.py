"""Runs the dispatcher's tick: one APScheduler interval job, plus a wake-up at the next due time.

The interval job is the safety net (at most STEADY_TICK_SECONDS apart); the
single wake-up job, moved after every tick to the earliest due row, lets a
check-in go out on its minute instead of up to a tick late. Two jobs in all,
however many users there are.

The jobs only ask for a tick; one worker task runs the ticks, one after another.
A tick still running when the next is asked for makes that one wait, and any
number of asks meanwhile merge into a single next tick. So a tick never overlaps
itself, and APScheduler never finds its job still running (no "maximum number of
running instances reached" between the lines of a chat).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.logs import get_logger, log_event
from bot.scheduling.dispatcher import Dispatcher

log = get_logger("scheduler")

_TICK_JOB = "tick"
_WAKE_JOB = "wake"
_MAINTENANCE_JOB = "maintenance"


Maintenance = Callable[[], Awaitable[object]]

MAINTENANCE_HOURS = 24


class TickRunner:
    def __init__(
        self, dispatcher: Dispatcher, tick_seconds: float, maintenance: Maintenance | None = None
    ) -> None:
        self._dispatcher = dispatcher
        self._tick_seconds = tick_seconds
        self._maintenance = maintenance
        self._scheduler = AsyncIOScheduler(timezone=UTC)
        self._lock = asyncio.Lock()
        self._wanted = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self._stopping = False
        self.ticks = 0
        self.asked = 0  # ticks asked for (by either job); merged asks make fewer ticks

    def start(self) -> None:
        self._worker = asyncio.create_task(self._work(), name="tick-worker")
        self._scheduler.add_job(
            self._ask,
            "interval",
            seconds=self._tick_seconds,
            id=_TICK_JOB,
            next_run_time=datetime.now(UTC),
            max_instances=1,
            coalesce=True,
        )
        if self._maintenance is not None:
            # Daily housekeeping (expired history), first a minute after start-up.
            self._scheduler.add_job(
                self._maintain,
                "interval",
                hours=MAINTENANCE_HOURS,
                id=_MAINTENANCE_JOB,
                next_run_time=datetime.now(UTC) + timedelta(minutes=1),
                max_instances=1,
                coalesce=True,
            )
        self._scheduler.start()

    async def stop(self, grace_seconds: float = 5.0) -> None:
        """No new ticks; let a tick in progress finish (claimed work is then handed over)."""
        if not self._scheduler.running:
            return
        self._scheduler.pause()
        self._stopping = True  # a tick asked for but not begun is not begun now
        try:
            await asyncio.wait_for(self._lock.acquire(), grace_seconds)
        except TimeoutError:
            log_event(log, "tick.abandoned", logging.WARNING)
        else:
            self._lock.release()
        self._scheduler.shutdown(wait=False)
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker

    async def _ask(self) -> None:
        """The jobs' only work: returns at once, so a job is never still running."""
        self.asked += 1
        self._wanted.set()

    async def _work(self) -> None:
        while True:
            await self._wanted.wait()
            if self._stopping:
                return
            self._wanted.clear()  # asks from now on make one more tick, after this one
            await self._tick()

    async def _tick(self) -> None:
        async with self._lock:
            try:
                await self._dispatcher.tick()
                self.ticks += 1
                await self._plan_wake_up()
            except Exception as error:  # the next tick tries again; never stop ticking
                log_event(log, "tick.failed", logging.ERROR, exc_info=error)

    async def _maintain(self) -> None:
        assert self._maintenance is not None
        try:
            await self._maintenance()
            log_event(log, "maintenance.done")
        except Exception as error:  # tomorrow's run tries again
            log_event(log, "maintenance.failed", logging.ERROR, exc_info=error)

    async def _plan_wake_up(self) -> None:
        due = await self._dispatcher.next_due_at()
        now = datetime.now(UTC)
        if due is None or due - now >= timedelta(seconds=self._tick_seconds):
            return
        self._scheduler.add_job(
            self._ask,
            "date",
            run_date=max(due, now),
            id=_WAKE_JOB,
            replace_existing=True,
            misfire_grace_time=None,
        )
