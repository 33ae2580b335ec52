"""The tick: claim every kind of due work, chunk by chunk, and hand it to the outbox.

The dispatcher knows no kind of due item: each registered `DueKind` claims its
own rows and builds its own messages (see `bot.scheduling.due`).

Thousands of rows can fall due in the same minute. Claimed in one transaction,
they kept the event loop busy for seconds (a reply, a crisis reply too, waited
that long), so a kind claims a bounded chunk at a time: each chunk is claimed,
moved on and handled in a transaction of its own, its messages are queued as
soon as it commits, and other tasks run before the next chunk.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import datetime

from bot.core.clock import Clock
from bot.delivery.outbox import Outbox
from bot.logs import get_logger, log_event
from bot.observability.metrics import Metrics
from bot.scheduling.due import DueKinds
from bot.storage.db import Database

log = get_logger("dispatcher")

# The kind names the report's shorthand properties read (see the kinds' own modules).
_CHECKINS, _FOLLOWUPS, _REMINDERS = "checkin", "followup", "reminder"


@dataclass(frozen=True, slots=True)
class TickReport:
    claimed: int = 0
    missed: int = 0  # older than the grace window: skipped to the next slot
    unreachable: int = 0
    deferred: int = 0
    statements: int = 0
    handed_over: Mapping[str, int] = field(default_factory=dict)  # per kind, to the outbox
    taken_over: int = 0  # unsent outbox rows of a worker that died, now sent from here

    @property
    def started(self) -> int:
        """Check-ins opened."""
        return self.handed_over.get(_CHECKINS, 0)

    @property
    def followups(self) -> int:
        return self.handed_over.get(_FOLLOWUPS, 0)

    @property
    def reminders(self) -> int:
        """Group reminder posts."""
        return self.handed_over.get(_REMINDERS, 0)


class Dispatcher:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        outbox: Outbox,
        kinds: DueKinds,
        metrics: Metrics | None = None,
    ) -> None:
        self._db = db
        self._clock = clock
        self._outbox = outbox
        self._kinds = kinds
        self._metrics = metrics or Metrics()

    async def tick(self) -> TickReport:
        started = time.perf_counter()
        now = self._clock.now()
        lag = await self._lag(now)
        taken_over = await self._keep_leases()
        before = self._db.statements
        handed_over: dict[str, int] = {}
        claimed = missed = unreachable = deferred = 0
        copying_aside = False
        async with AsyncExitStack() as stack:
            for kind in self._kinds:
                handed_over[kind.name] = 0
                more = True
                while more:
                    # One transaction from claim to conversation positions: a /forget
                    # waits for it, so nobody is half-claimed, and nobody forgotten is
                    # written back.
                    # The messages are outbox rows of the same transaction: a crash after
                    # the claim leaves them to be sent, never claimed again.
                    async with self._db.transaction() as tx:
                        ran = await kind.run(tx, now)
                        queued = await self._outbox.persist(tx, ran.outgoing)
                    self._outbox.hand_over(queued)
                    handed_over[kind.name] += len(ran.outgoing)
                    claimed += ran.tally.claimed
                    missed += ran.tally.missed
                    unreachable += ran.tally.unreachable
                    deferred += ran.tally.deferred
                    more = ran.more
                    if more:
                        if not copying_aside:
                            copying_aside = True
                            await self._copy_log_aside_from_now(stack)
                        # Replies (and the outbox) run now, before the next chunk.
                        await asyncio.sleep(0)
        report = TickReport(
            claimed=claimed,
            missed=missed,
            unreachable=unreachable,
            deferred=deferred,
            statements=self._db.statements - before,
            handed_over=handed_over,
            taken_over=taken_over,
        )
        if report.claimed:
            log_event(
                log,
                "tick.claimed",
                claimed=report.claimed,
                started=report.started,
                missed=report.missed,
                unreachable=report.unreachable,
                deferred=report.deferred,
            )
        if report.reminders:
            log_event(log, "tick.reminders", posted=report.reminders)
        self._metrics.tick_done(
            self._clock.now(), time.perf_counter() - started, lag, report.handed_over
        )
        return report

    async def _copy_log_aside_from_now(self, stack: AsyncExitStack) -> None:
        """Past a large minute's first chunk, the write-ahead log is copied back once after
        its last, not inside each chunk's COMMIT.

        Inside a COMMIT, SQLite copies the log back to the database (fsync and all) once it
        passes a thousand pages: 10,000 due check-ins did that several times, each time in
        a chunk's COMMIT, where every other write waits (about 0.04 s of a 0.6 s tick).
        Here SQLite's own copying is off until `stack` closes, as in the daily purge
        (`Database.log_copied_aside`), and the log is copied in a worker thread just before
        (callbacks run last in, first out). Copying beside each chunk instead made the
        chunks' COMMITs slower than before.
        """
        await stack.enter_async_context(self._db.log_copied_aside())
        stack.push_async_callback(self._copy_log_back)

    async def _copy_log_back(self) -> None:
        try:
            await self._db.copy_log_aside()
        except Exception as error:  # a copy never fails a tick: the next COMMIT copies
            log_event(log, "tick.log_not_copied", logging.WARNING, error=type(error).__name__)

    async def _keep_leases(self) -> int:
        """This worker's unsent rows stay its own; a dead worker's are taken over. A
        failure here never stops the tick: the next one tries again."""
        try:
            return await self._outbox.keep_leases()
        except Exception as error:
            log_event(log, "tick.leases_failed", logging.WARNING, error=type(error).__name__)
            return 0

    async def _lag(self, now: datetime) -> float | None:
        """How late the earliest due work is as the tick begins, for /metrics: a few
        indexed MIN reads, outside the statements the report counts for the tick's own
        work. None when they fail: a number for a graph never stops a tick."""
        try:
            earliest = await self.next_due_at()
        except Exception as error:
            log_event(log, "tick.lag_unknown", logging.WARNING, error=type(error).__name__)
            return None
        return 0.0 if earliest is None else max(0.0, (now - earliest).total_seconds())

    async def next_due_at(self) -> datetime | None:
        """The earliest moment any kind has work due, or None when none is planned."""
        due = [await kind.next_due(self._db) for kind in self._kinds]
        return min((when for when in due if when is not None), default=None)
