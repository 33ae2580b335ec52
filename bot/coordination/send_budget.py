"""One send budget for every worker: a platform's limits hold for all of them together.

Telegram allows a bot about 30 messages a second, and 20 a minute in one group. Within
one process PTB's limiter and our group pacer keep to that; with several workers each
would allow the whole rate. So on PostgreSQL every send is first counted in a shared
log (`bot/storage/send_budget.py`): a send that would go over a limit waits until the
oldest send inside that limit's window leaves it. A sliding window, like the pacer's:
the limit holds for every window, not only on average.

On SQLite there is one worker, whose own limiters suffice (`LocalBudget`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from bot.storage import send_budget

if TYPE_CHECKING:  # types only: a SQLite install never loads the PostgreSQL driver
    import asyncpg

Sleep = Callable[[float], Awaitable[None]]

PURGE_EVERY = 500  # sends between purges of the log's old rows


@dataclass(frozen=True, slots=True)
class Limit:
    sends: int
    window_seconds: float


TELEGRAM_OVERALL = Limit(30, 1.0)
TELEGRAM_GROUP = Limit(20, 60.0)


class SendBudget(Protocol):
    async def take(self, scope: str, limit: Limit) -> None:
        """Return once one more send in `scope` keeps within `limit` (and count it)."""
        ...


class LocalBudget:
    """One worker: its own limiters keep the platform's limits."""

    async def take(self, scope: str, limit: Limit) -> None:
        return None


class SharedBudget:
    """Every worker on one PostgreSQL database counts its sends in one log."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        sleep: Sleep = asyncio.sleep,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        self._pool = pool
        self._sleep = sleep
        self._now_ms = now_ms
        self._taken = 0

    async def take(self, scope: str, limit: Limit) -> None:
        window_ms = int(limit.window_seconds * 1000)
        while True:
            async with self._pool.acquire() as connection:
                wait_ms = await send_budget.take_if_room(
                    connection, scope, limit.sends, window_ms, self._now_ms()
                )
                if wait_ms is None:
                    self._taken += 1
                    if self._taken % PURGE_EVERY == 0:
                        await send_budget.purge(connection, self._now_ms())
                    return
            await self._sleep(max(wait_ms, 1) / 1000)
