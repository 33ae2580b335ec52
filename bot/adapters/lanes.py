"""Every message of a platform passes here: it waits for room by its lane, then goes.

A message needs room in the bot's overall limit and in its chat's own (a group's, a
private chat's), each counted as `bot.adapters.pacing` counts it. The lanes and their
ceilings are `bot.coordination.send_budget`'s: bulk never takes more than its share,
and an urgent message always finds the room nothing else may take. When several wait,
urgent ones go first, then interactive ones, then bulk, each lane in order; one held
back by its own chat only (a group that posted its 20 this minute) holds nobody else up.

With several workers each message is then counted in the shared budget too, with the
same lane, before its call.

A 429 means the platform counted differently (another client of the bot, a limit we
do not know). The refused message's lane, and the lanes below it, wait as long as the
platform asked, and the refused message goes first when they open again: it keeps its
place. A longer wait than `LANE_WAIT_MOST` is left to the caller (the outbox schedules
it; a reply's patient retry waits it out).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from bot.adapters.pacing import NEVER, Pace, Window, pace_for
from bot.coordination.send_budget import (
    Burst,
    Lane,
    Limit,
    LocalBudget,
    SendBudget,
    Ticket,
    bulk_share,
)
from bot.core.replies import Reply

Result = TypeVar("Result")
Sleep = Callable[[float], Awaitable[None]]
# What a refusal asks to wait, read from the platform's own error; None: not a 429.
AskedToWait = Callable[[BaseException], "float | None"]

LANE_RETRIES = 3
LANE_WAIT_MOST = 5.0  # seconds: a longer 429 is the caller's to wait out
MOST_CHATS_KEPT = 1_000  # past this, chats whose limits are as good as new are forgotten


@dataclass(frozen=True, slots=True)
class Caps:
    """A platform's limits: the bot's overall one, and each chat's (by kind)."""

    overall: Limit
    group: Limit | None = None  # counted by every worker together, as `overall` is
    private: Limit | Burst | None = None  # this worker's own: a user's turns are its own


# No limit to speak of: the code runs, nothing waits (tests, and benches that measure
# something else than the platform's cap).
UNLIMITED = Caps(Limit(1_000_000_000, 1.0))


def lane_of(reply: Reply) -> Lane:
    """A reply to what someone just did: urgent when it is a crisis or danger reply."""
    return Lane.URGENT if reply.urgent else Lane.INTERACTIVE


@dataclass(eq=False, slots=True)
class _Chat:
    pace: Pace
    users: int = 0  # waiting or under way: not forgotten meanwhile
    held: list[int] = field(default_factory=lambda: [0, 0, 0])  # 429s waited out, by lane


@dataclass(eq=False, slots=True)
class _Waiter:
    chat: _Chat | None
    granted: asyncio.Future[None]


@dataclass(eq=False, slots=True)
class _Slot:
    lane: Lane
    chat: _Chat | None
    tickets: list[Ticket | None]


class Lanes:
    def __init__(
        self,
        scope: str,
        caps: Caps,
        asked_to_wait: AskedToWait,
        budget: SendBudget | None = None,
        rate_limited: Callable[[], None] | None = None,
        now: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._scope = scope
        self._rate_limited = rate_limited  # told of each 429 waited out here
        self._caps = caps
        self._asked_to_wait = asked_to_wait
        self._budget = budget or LocalBudget()
        self._now = now
        self._sleep = sleep
        self._overall = Window(caps.overall)
        # Bulk is spread over the window, not sent a window's share at once: a slot comes
        # free every `_bulk_every`, and a reply waiting takes it first, instead of waiting
        # for the window that bulk filled in its first moment to pass.
        self._bulk_every = caps.overall.window_seconds / bulk_share(caps.overall.sends)
        self._bulk_next = -NEVER
        self._held = [0, 0, 0]  # 429s being waited out, by lane
        self._chats: dict[tuple[str, bool], _Chat] = {}
        self._waiting: dict[Lane, deque[_Waiter]] = {lane: deque() for lane in Lane}
        self._waker: asyncio.Task[None] | None = None
        self._wake_at = NEVER

    @property
    def caps(self) -> Caps:
        return self._caps

    async def close(self) -> None:
        """Stop the timer that wakes waiting messages (their senders are stopped too)."""
        waker, self._waker = self._waker, None
        if waker is not None:
            waker.cancel()
            await asyncio.gather(waker, return_exceptions=True)

    def waiting(self, lane: Lane) -> int:
        """Messages of `lane` waiting for room now (for tests and the bench)."""
        return sum(1 for waiter in self._waiting[lane] if not waiter.granted.done())

    async def send(
        self,
        lane: Lane,
        chat_id: str | None,
        group: bool,
        call: Callable[[], Awaitable[Result]],
        pause: Sleep,
    ) -> Result:
        """`call()` once there is room for it; a 429 waited out (with `pause`) in place."""
        front = False
        for attempt in range(LANE_RETRIES + 1):
            slot = await self._acquire(lane, chat_id, group, front)
            try:
                result = await call()
            except BaseException as error:
                self._finish(slot)
                wait = self._asked_to_wait(error)
                if wait is None or wait > LANE_WAIT_MOST or attempt == LANE_RETRIES:
                    raise
                if self._rate_limited is not None:
                    self._rate_limited()
                await self._wait_out(lane, slot.chat, wait, pause)
                front = True
                continue
            self._finish(slot)
            return result
        raise AssertionError("unreachable")  # pragma: no cover

    async def _wait_out(self, lane: Lane, chat: _Chat | None, wait: float, pause: Sleep) -> None:
        """Hold `lane` and those below it, everywhere and in the refused chat, while the
        platform's wait runs. Which limit it meant, the platform does not say: a wait
        this short (see LANE_WAIT_MOST) costs little where it was not needed."""
        holds = [self._held]
        if chat is not None:
            chat.users += 1  # kept while held
            holds.append(chat.held)
        for held in holds:
            held[lane] += 1
        try:
            await pause(wait)
        finally:
            for held in holds:
                held[lane] -= 1
            if chat is not None:
                chat.users -= 1
            # The refused message asks again at once, at its lane's front (`front`), before
            # anyone else is served: nothing runs between here and its ask.

    async def _acquire(self, lane: Lane, chat_id: str | None, group: bool, front: bool) -> _Slot:
        chat = None if chat_id is None else self._chat(chat_id, group)
        if not front:
            self._grant()
        if not front and self._may_start(lane, chat, self._now()):
            self._start(lane, chat)
        else:
            await self._wait_turn(lane, chat, front)
        slot = _Slot(lane, chat, [])
        try:
            slot.tickets.append(await self._budget.take(self._scope, self._caps.overall, lane))
            if group and self._caps.group is not None:
                scope = f"{self._scope} group {chat_id}"
                slot.tickets.append(await self._budget.take(scope, self._caps.group, lane))
        except BaseException:
            self._finish(slot)
            raise
        return slot

    async def _wait_turn(self, lane: Lane, chat: _Chat | None, front: bool) -> None:
        """Queue up in `lane` (at its front: a message a 429 refused) until started."""
        waiter = _Waiter(chat, asyncio.get_running_loop().create_future())
        if chat is not None:
            chat.users += 1
        queue = self._waiting[lane]
        if front:
            queue.appendleft(waiter)
        else:
            queue.append(waiter)
        self._grant()
        try:
            await waiter.granted
        except BaseException:
            if waiter.granted.done() and not waiter.granted.cancelled():
                self._finish(_Slot(lane, chat, []))  # started, then cancelled: never sent
            else:
                waiter.granted.cancel()
            raise
        finally:
            if chat is not None:
                chat.users -= 1

    def _chat(self, chat_id: str, group: bool) -> _Chat | None:
        spec = self._caps.group if group else self._caps.private
        if spec is None:
            return None
        key = (chat_id, group)
        chat = self._chats.get(key)
        if chat is None:
            chat = self._chats[key] = _Chat(pace_for(spec))
        return chat

    def _overall_ready(self, lane: Lane, now: float) -> float:
        ready = self._overall.ready_at(lane, now)
        return max(ready, self._bulk_next) if lane is Lane.BULK else ready

    def _may_start(self, lane: Lane, chat: _Chat | None, now: float) -> bool:
        if _held(self._held, lane) or self._overall_ready(lane, now) > now:
            return False
        return chat is None or (not _held(chat.held, lane) and chat.pace.ready_at(lane, now) <= now)

    def _start(self, lane: Lane, chat: _Chat | None) -> None:
        if lane is Lane.BULK:
            # The next slot is one step after this one's, not after the moment it started:
            # a busy loop that woke a little late does not push every later slot back
            # with it (the burst drained at 22 a second of bulk's 27 so). Bulk that
            # started a whole step or more after its slot (it had nothing to send) starts
            # its spacing again from now: it never sends two at once.
            now = self._now()
            slot = self._bulk_next
            self._bulk_next = (slot if now - slot < self._bulk_every else now) + self._bulk_every
        self._overall.started(lane)
        if chat is not None:
            chat.pace.started(lane)
            chat.users += 1

    def _finish(self, slot: _Slot) -> None:
        now = self._now()
        self._overall.finished(slot.lane, now)
        chat = slot.chat
        if chat is not None:
            chat.pace.finished(slot.lane, now)
            chat.users -= 1
        for ticket in slot.tickets:
            self._budget.settle(ticket)
        if len(self._chats) > MOST_CHATS_KEPT:
            self._chats = {
                key: kept
                for key, kept in self._chats.items()
                if kept.users or not kept.pace.idle(now)
            }
        self._grant()

    def _grant(self) -> None:
        """Start every waiting message that has room now, urgent ones first; then wake
        again when time alone will make room for the next."""
        now = self._now()
        wake = NEVER
        for lane in Lane:
            queue = self._waiting[lane]
            if not queue:
                continue
            if _held(self._held, lane):
                break  # lifted by the sender that waits the 429 out, which then asks again
            overall = self._overall_ready(lane, now)
            if overall > now:
                wake = min(wake, overall)
                break  # the lanes below have lower ceilings: none of them has room either
            passed_over: deque[_Waiter] = deque()
            while queue:
                waiter = queue.popleft()
                if waiter.granted.done():
                    continue  # cancelled while it waited
                chat = waiter.chat
                if chat is not None and _held(chat.held, lane):
                    passed_over.append(waiter)
                    continue
                ready = now if chat is None else chat.pace.ready_at(lane, now)
                if ready > now:
                    wake = min(wake, ready)
                    passed_over.append(waiter)
                    continue
                self._start(lane, chat)
                waiter.granted.set_result(None)
                overall = self._overall_ready(lane, now)
                if overall > now:
                    wake = min(wake, overall)
                    break
            queue.extendleft(reversed(passed_over))
            if overall > now:
                break
        self._wake_later(wake)

    def _wake_later(self, at: float) -> None:
        if at == NEVER or (self._waker is not None and self._wake_at <= at):
            return
        if self._waker is not None:
            self._waker.cancel()
        self._wake_at = at
        self._waker = asyncio.create_task(self._wake(at), name=f"lanes-{self._scope}")

    async def _wake(self, at: float) -> None:
        await self._sleep(max(0.0, at - self._now()))
        self._waker = None
        self._wake_at = NEVER
        self._grant()


def _held(held: list[int], lane: Lane) -> bool:
    """Is `lane` held by a 429 of its own or of a lane above it?"""
    return any(held[: lane + 1])
