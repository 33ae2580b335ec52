"""Leader roles through PostgreSQL's advisory locks (see `bot.coordination.leadership`).

The worker that takes a role's advisory lock (`pg_try_advisory_lock`) holds the role for
as long as the connection that took it stays open. When that worker dies, even by
`kill -9`, its connection closes, PostgreSQL lets go of the lock, and the next worker to
try takes it; workers try every `retry_seconds`, so the role is taken over well within
30 s. A holder checks its connection every `check_seconds` and gives the role up when
the check fails, so a worker cut off from the database stops acting as leader soon
after another may have begun.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import asyncpg

from bot.coordination.leadership import ROLE_KEYS, Action, Role
from bot.logs import get_logger, log_event
from bot.observability.metrics import Metrics
from bot.storage import advisory_locks

log = get_logger("leadership")

DEFAULT_RETRY_SECONDS = 5.0
DEFAULT_CHECK_SECONDS = 5.0


Connect = Callable[[str], Awaitable[asyncpg.Connection]]


async def _connect(url: str) -> asyncpg.Connection:
    connection: asyncpg.Connection = await asyncpg.connect(url)
    return connection


class AdvisoryLeadership:
    """PostgreSQL: a role is held by whoever holds its advisory lock (see the top)."""

    def __init__(
        self,
        url: str,
        metrics: Metrics | None = None,
        retry_seconds: float = DEFAULT_RETRY_SECONDS,
        check_seconds: float = DEFAULT_CHECK_SECONDS,
        connect: Connect = _connect,
    ) -> None:
        self._url = url
        self._metrics = metrics or Metrics()
        self._retry_seconds = retry_seconds
        self._check_seconds = check_seconds
        self._connect = connect
        self._held: set[Role] = set()
        self.attempts = 0  # tries to take a role's lock, for tests and logs

    def holds(self, role: Role) -> bool:
        return role in self._held

    async def serve(self, role: Role, on_gained: Action, on_lost: Action) -> None:
        held = self._metrics.leader_role_held.labels(role.value)
        held.set(0)  # waiting for it: if every worker says 0, nobody holds it
        while True:
            connection = await self._connected()
            try:
                if await self._took(connection, role):
                    await self._hold(connection, role, on_gained, on_lost)
            finally:
                await _close(connection)
            await asyncio.sleep(self._retry_seconds)

    async def _connected(self) -> asyncpg.Connection:
        """A connection of the role's own (a pooled one would be handed to others, lock
        and all); tried again every `retry_seconds` while the database is away."""
        while True:
            try:
                return await asyncio.wait_for(self._connect(self._url), self._check_seconds)
            except (OSError, TimeoutError, asyncpg.PostgresError) as error:
                log_event(log, "leadership.unreachable", error=type(error).__name__)
                await asyncio.sleep(self._retry_seconds)

    async def _took(self, connection: asyncpg.Connection, role: Role) -> bool:
        self.attempts += 1
        try:
            took = await asyncio.wait_for(
                advisory_locks.try_lock(connection, ROLE_KEYS[role]),
                self._check_seconds,
            )
        except (OSError, TimeoutError, asyncpg.PostgresError) as error:
            log_event(log, "leadership.unreachable", error=type(error).__name__)
            return False
        return bool(took)

    async def _hold(
        self, connection: asyncpg.Connection, role: Role, on_gained: Action, on_lost: Action
    ) -> None:
        self._held.add(role)
        self._metrics.leader_changes.inc()
        self._metrics.leader_role_held.labels(role.value).set(1)
        log_event(log, "leadership.gained", role=role.value)
        try:
            await on_gained()
            await self._while_connected(connection)
        finally:
            self._held.discard(role)
            self._metrics.leader_changes.inc()
            self._metrics.leader_role_held.labels(role.value).set(0)
            log_event(log, "leadership.lost", logging.WARNING, role=role.value)
            await on_lost()

    async def _while_connected(self, connection: asyncpg.Connection) -> None:
        """Returns once the connection that holds the lock stops answering: checked every
        `check_seconds` (polled: PostgreSQL tells a client nothing when it lets go)."""
        while True:
            await asyncio.sleep(self._check_seconds)
            try:
                await asyncio.wait_for(advisory_locks.ping(connection), self._check_seconds)
            except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError):
                return


async def _close(connection: asyncpg.Connection) -> None:
    """Closing lets go of the lock. A connection that no longer answers is cut instead
    (the server lets go of the lock once it sees the connection gone)."""
    try:
        await asyncio.wait_for(connection.close(), 1.0)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError):
        with contextlib.suppress(Exception):
            connection.terminate()
