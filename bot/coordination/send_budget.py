"""What a platform allows a bot to send, in two lanes, for every worker together.

Telegram allows a bot about 30 messages a second, 20 a minute in one group and about
one a second in a private chat (short bursts allowed); Discord 50 requests a second,
and 5 messages in 5 seconds in one channel. Every send counts in one of three lanes:

- `URGENT`: crisis and danger replies, /sos and its buttons. They may take the whole
  cap, so the last of it, which nothing else may take, is there when one comes.
- `INTERACTIVE`: replies to something a person just did. They may take all of the cap
  but that last message.
- `BULK`: what the outbox sends (check-ins, reminders, follow-ups, caring notes, plan
  reviews). Its own sends take at most `BULK_SHARE` of a cap (`bulk_share`), and never
  the last message either.

Why 90%: a burst of check-ins at 8:00 then drains at 27 of Telegram's 30 messages a
second, and 3 a second stay free for replies at the very moment the most people answer:
the burst drains at 90% of the cap while nobody writes, and at up to all of it while
they do. A person's reply takes one of those 3 at once, or the next room bulk leaves
(it always goes before bulk); a crisis reply also the last one.

Within one worker the lanes are kept by `bot.adapters.lanes`, counting each message
when its call returns (the platform counted it on arrival, somewhere inside the call).
With several workers on PostgreSQL every send is also counted in a shared log first
(`SharedBudget`), with the same lane ceilings, so four workers keep the same promise as
one. On SQLite there is one worker, whose own lanes suffice (`LocalBudget`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Protocol

from bot.logs import get_logger, log_event
from bot.storage import send_budget

if TYPE_CHECKING:  # types only: a SQLite install never loads the PostgreSQL driver
    import asyncpg

log = get_logger("send_budget")

Sleep = Callable[[float], Awaitable[None]]

BULK_SHARE = 0.9
PURGE_EVERY = 500  # sends between purges of the log's old rows
REPLY_ASKS = 2  # interactive sends asking the shared budget at once, per worker
# A shared wait is looked at again at least this often: a send in flight on another
# worker (its row dated ahead, see `send_budget.PENDING_MS`) usually returns long before.
SHARED_POLL_SECONDS = 0.02


class Lane(IntEnum):
    """The lower the value, the sooner a send goes when several wait for room."""

    URGENT = 0
    INTERACTIVE = 1
    BULK = 2


@dataclass(frozen=True, slots=True)
class Limit:
    """At most `sends` in any `window_seconds` (a sliding window, as platforms count)."""

    sends: int
    window_seconds: float


@dataclass(frozen=True, slots=True)
class Burst:
    """`size` at once, then `per_second` (a token bucket: Telegram's private chats)."""

    size: int
    per_second: float


def ceiling(lane: Lane, sends: int) -> int:
    """How many of `sends` (every lane's together) there may be when a send of `lane`
    starts, and it still fits: all but the last one, which only an urgent send takes."""
    if lane is Lane.URGENT or sends <= 1:
        return sends
    return sends - 1


def bulk_share(sends: int) -> int:
    """How many of `sends` bulk's own sends may be."""
    return max(1, min(ceiling(Lane.BULK, sends), int(sends * BULK_SHARE)))


TELEGRAM_OVERALL = Limit(30, 1.0)
TELEGRAM_GROUP = Limit(20, 60.0)
TELEGRAM_PRIVATE = Burst(5, 1.0)
DISCORD_OVERALL = Limit(50, 1.0)  # interactions and their followups do not count
DISCORD_CHANNEL = Limit(5, 5.0)


@dataclass(frozen=True, slots=True)
class Ticket:
    """A send counted in the shared log (a row per scope), to be dated when its call
    returns."""

    row_ids: tuple[int, ...]


class SendBudget(Protocol):
    async def take(self, scope: str, limit: Limit, lane: Lane) -> Ticket | None:
        """Return once one more send of `lane` in `scope` keeps within its ceiling of
        `limit` (and count it)."""
        ...

    def settle(self, ticket: Ticket | None) -> None:
        """The counted send's call returned: date it now (the platform counted it by
        then)."""
        ...


class LocalBudget:
    """One worker: its own lanes keep the platform's limits."""

    async def take(self, scope: str, limit: Limit, lane: Lane) -> Ticket | None:
        return None

    def settle(self, ticket: Ticket | None) -> None:
        return None


class SharedBudget:
    """Every worker on one PostgreSQL database counts its sends in one log.

    A send's row is dated ahead while its call is under way (`PENDING_MS`) and dated
    to the moment its call returned once it has, so the log counts it as the platform
    did: on arrival, at the latest when the answer came. A worker that died mid-call
    leaves a row that ages out by itself.

    Bulk sends ask one at a time (each worker's outbox has dozens waiting), and replies
    at most `REPLY_ASKS` at a time: an urgent ask then waits behind at most a few asks
    per worker at the database, and always finds a connection of the budget's pool
    (`bot.coordination.workers` gives it one more than all of those need).
    """

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
        self._bulk_turn = asyncio.Lock()
        self._reply_turns = asyncio.Semaphore(REPLY_ASKS)
        self._to_settle: list[tuple[int, int]] = []
        self._settling: asyncio.Task[None] | None = None

    async def take(self, scope: str, limit: Limit, lane: Lane) -> Ticket | None:
        if lane is Lane.URGENT:
            return await self._take(scope, limit, lane)
        turn = self._bulk_turn if lane is Lane.BULK else self._reply_turns
        async with turn:
            return await self._take(scope, limit, lane)

    async def _take(self, scope: str, limit: Limit, lane: Lane) -> Ticket:
        window_ms = int(limit.window_seconds * 1000)
        room = [send_budget.Room(scope, ceiling(lane, limit.sends))]
        if lane is Lane.BULK:  # and bulk's own share, counted apart
            room.append(send_budget.Room(f"{scope} bulk", bulk_share(limit.sends)))
        while True:
            async with self._pool.acquire() as connection:
                taken = await send_budget.take_if_room(connection, room, window_ms, self._now_ms())
                if isinstance(taken, send_budget.Taken):
                    self._taken += 1
                    if self._taken % PURGE_EVERY == 0:
                        await send_budget.purge(connection, self._now_ms())
                    return Ticket(taken.row_ids)
            await self._sleep(min(max(taken, 1) / 1000, SHARED_POLL_SECONDS))

    def settle(self, ticket: Ticket | None) -> None:
        if ticket is None:
            return
        now = self._now_ms()
        self._to_settle.extend((row_id, now) for row_id in ticket.row_ids)
        if self._settling is None:
            self._settling = asyncio.create_task(self._settle(), name="send-budget-settle")

    async def _settle(self) -> None:
        """Date every returned send, a round of them per statement."""
        try:
            while self._to_settle:
                returned, self._to_settle = self._to_settle, []
                try:
                    async with self._pool.acquire() as connection:
                        await send_budget.date_returned(connection, returned)
                except Exception as error:  # those rows age out on their own, a bit later
                    log_event(
                        log, "send_budget.undated", logging.WARNING, error=type(error).__name__
                    )
        finally:
            self._settling = None

    async def settled(self) -> None:
        """Until every returned send is dated (for tests and a clean stop)."""
        while self._settling is not None:
            await asyncio.shield(self._settling)
