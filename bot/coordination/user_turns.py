"""One update of a user at a time, across every worker.

Within one process the router's per-user lock keeps a user's updates in order. Workers
on one PostgreSQL database each have their own; what keeps two workers from handling
one user's two quick presses at once is a lock in the database: a session advisory lock
keyed by the user (`pg_advisory_lock`), taken on a pooled connection for the whole of the
update's handling and let go after. Updates of different users never wait for each
other (but for the rare two users whose keys collide, who then take turns).

The in-process lock is taken first, so a process asks the database once per update
however many of one user's updates it has in hand, and holds at most one connection
per user doing so.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Protocol

from bot.core.keyed_lock import KeyedLock
from bot.storage import advisory_locks

if TYPE_CHECKING:  # types only: a SQLite install never loads the PostgreSQL driver
    import asyncpg

UserKey = tuple[str, str]  # (platform, platform's user id)


class UserTurns(Protocol):
    def hold(self, user: UserKey) -> AbstractAsyncContextManager[None]:
        """While inside, no other update of `user` is handled."""
        ...


class InProcessTurns:
    """SQLite: one process, so the process's own lock is all it takes."""

    def __init__(self) -> None:
        self._locks = KeyedLock()

    @asynccontextmanager
    async def hold(self, user: UserKey) -> AsyncIterator[None]:
        async with self._locks.hold(user):
            yield


def lock_key(user: UserKey) -> int:
    """The user's advisory lock: 64 bits of a hash of platform and id, as a signed bigint
    (what PostgreSQL takes). The same in every worker and every version."""
    platform, user_id = user
    digest = hashlib.blake2b(f"{platform}\0{user_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class DatabaseTurns:
    """PostgreSQL: the process's own lock, then the user's advisory lock (see the top)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._locks = KeyedLock()

    @asynccontextmanager
    async def hold(self, user: UserKey) -> AsyncIterator[None]:
        key = lock_key(user)
        async with self._locks.hold(user), self._pool.acquire() as connection:
            await advisory_locks.lock(connection, key)
            try:
                yield
            finally:
                # Should this fail (the connection broke, and the lock with it), the pool
                # resets or drops the connection on its return, which lets go of every
                # advisory lock it held: the update's own error is the one to report.
                with contextlib.suppress(Exception):
                    await advisory_locks.unlock(connection, key)
