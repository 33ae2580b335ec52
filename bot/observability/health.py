"""Is this worker healthy: can it reach its database, and is its scheduler still ticking?

The roles it holds are reported too. Today one process holds all of them (SQLite's
single-instance lock): the platforms it serves and the scheduler. `roles` is asked on
every check, so a later version that shares roles between workers passes what its
leader election currently holds, and nothing here changes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta

from bot.core.clock import Clock
from bot.logs import get_logger, log_event
from bot.observability.metrics import Metrics
from bot.storage import vitals
from bot.storage.db import Database

# A `SELECT 1` slower than this means the database is as good as gone for users.
DATABASE_TIMEOUT_SECONDS = 1.0
# The runner ticks at least every STEADY_TICK_SECONDS; a tick of thousands of due
# check-ins takes a few seconds more. Three intervals with nothing finished is a stuck
# scheduler, not a busy one (and never less than this, for a 1-second interval).
TICK_INTERVALS_ALLOWED = 3
SHORTEST_TICK_LIMIT = timedelta(seconds=30)

log = get_logger("health")

Roles = Callable[[], Sequence[str]]
# The learned safety stage's state, as JSON ({"state": ..., "reason": ...}), or None.
ModelState = Callable[[], Mapping[str, str | None]]


def tick_limit(tick_seconds: float) -> timedelta:
    return max(SHORTEST_TICK_LIMIT, timedelta(seconds=TICK_INTERVALS_ALLOWED * tick_seconds))


@dataclass(frozen=True, slots=True)
class HealthReport:
    database_reachable: bool
    last_tick_age_seconds: float | None  # None: no tick has finished yet
    tick_limit_seconds: float
    roles: tuple[str, ...]
    reasons: tuple[str, ...]  # why it is unhealthy; empty when healthy
    # The safety screen's learned stage: loaded, not loaded yet, or unavailable and why.
    # Unavailable leaves the screen on its rules, which still answer every message, so it
    # is reported here without making the worker unhealthy.
    safety_model: Mapping[str, str | None] | None = None

    @property
    def healthy(self) -> bool:
        return not self.reasons

    def as_json(self) -> dict[str, object]:
        return {
            "status": "ok" if self.healthy else "unhealthy",
            "reasons": list(self.reasons),
            "database_reachable": self.database_reachable,
            "last_tick_age_seconds": self.last_tick_age_seconds,
            "tick_limit_seconds": self.tick_limit_seconds,
            "roles": list(self.roles),
            "safety_model": None if self.safety_model is None else dict(self.safety_model),
        }


class HealthCheck:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        metrics: Metrics,
        limit: timedelta,
        roles: Roles,
        database_timeout: float = DATABASE_TIMEOUT_SECONDS,
        safety_model: ModelState | None = None,
    ) -> None:
        self._db = db
        self._clock = clock
        self._metrics = metrics
        self._limit = limit
        self._roles = roles
        self._database_timeout = database_timeout
        self._safety_model = safety_model
        if safety_model is not None:
            metrics.watch_safety_model(safety_model)
        # Before the first tick, the time since the check began counts as its age.
        self._since = clock.now()

    async def check(self) -> HealthReport:
        reasons: list[str] = []
        reachable = await self._database_reachable()
        if not reachable:
            reasons.append(
                f"database did not answer a trivial read within {self._database_timeout:g} s"
            )
        now = self._clock.now()
        last = self._metrics.last_tick_at
        age = now - (last or self._since)
        if age > self._limit:
            what = "the last tick finished" if last else "started, and no tick has finished"
            reasons.append(
                f"{what} {age.total_seconds():.0f} s ago"
                f" (limit {self._limit.total_seconds():.0f} s)"
            )
        return HealthReport(
            database_reachable=reachable,
            last_tick_age_seconds=None if last is None else _seconds(now - last),
            tick_limit_seconds=self._limit.total_seconds(),
            roles=tuple(self._roles()),
            reasons=tuple(reasons),
            safety_model=None if self._safety_model is None else self._safety_model(),
        )

    async def refresh_backlog(self) -> None:
        """The due backlog gauge, counted now (bounded like the health read; a count
        that does not come back leaves the last one)."""
        try:
            due = await asyncio.wait_for(
                vitals.due_backlog(self._db.bounded, self._clock.now()), self._database_timeout
            )
        except Exception as error:  # the health check says what is wrong; this one waits
            log_event(log, "health.backlog_unknown", logging.WARNING, error=type(error).__name__)
            self._metrics.database_reachable.set(0)
            return
        self._metrics.database_reachable.set(1)
        self._metrics.due_backlog.set(due)

    async def _database_reachable(self) -> bool:
        try:
            # bounded: read where giving up on the read is possible
            await asyncio.wait_for(vitals.ping(self._db.bounded), self._database_timeout)
        except Exception as error:  # a timeout or any error: not reachable
            failure = type(error).__name__
            log_event(log, "health.database_unreachable", logging.WARNING, error=failure)
            return False
        return True


def _seconds(span: timedelta) -> float:
    return round(max(0.0, span.total_seconds()), 3)
