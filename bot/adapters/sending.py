"""What the Telegram and Discord adapters do alike when they send: replies one by one, a
reply's text in pieces, frames played by editing, background work kept until stop.

Who retries what (one layer per path, nothing nested):

- **Platform call.** Each adapter's `errors` module turns one call's failure into one of
  the core's delivery errors and never retries it. discord.py cannot be told so: it
  waits out a 429 of up to 30 s (it accepts no less) and retries some 5xx answers inside
  the call, all within the adapter's request timeout, so that stays bounded.
- **Lanes** (`bot/adapters/lanes.py`): every message waits for room at the platform's
  limits first. A 429 of up to 5 s is waited out there, holding the message's lane, and
  the message tried again first; nothing of it was delivered. A longer one goes on to
  the layers below.
- **Replies** to what a user just did (`reply_all`, and Discord's interaction
  followups): every platform call of the reply (opening a DM, each piece, an edit) is
  tried `patiently` (`bot/adapters/retry.py`): rate limits waited out, network errors
  and unsure timeouts tried again, a bounded number of times. The reply as a whole is
  never tried again, so a piece that is out is never sent twice.
- **Scheduled sends** (the outbox calls `send`): the first call is tried once, and the
  outbox retries the whole message on its own schedule, since nothing of it is out yet.
  Once a first piece is out, only the remaining pieces are tried `patiently` in place:
  the outbox trying again would repeat the piece already delivered.
- **Frames** (a countdown edited in place, after the message is out): each edit is
  tried `patiently`, whichever path sent the message; one that still fails stops the
  countdown.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Protocol, TypeVar

from bot.adapters.retry import RateLimited, Sleep, patiently
from bot.core.events import Address
from bot.core.platform import DeliveryError, DeliveryUncertain
from bot.core.replies import Reply
from bot.logs import log_event

Result = TypeVar("Result")
Message = TypeVar("Message")


class Attempt(Protocol):
    """How one platform call is tried: `once` (the caller retries), or `patient`."""

    def __call__(self, call: Callable[[], Awaitable[Result]], /) -> Awaitable[Result]: ...


FRAME_MIN_SECONDS = 1.0  # at most one edit a second per message


async def once(call: Callable[[], Awaitable[Result]]) -> Result:
    """A call tried once: its caller (the outbox) owns the retrying."""
    return await call()


def patient(sleep: Sleep, rate_limited: RateLimited | None = None) -> Attempt:
    """A call tried patiently, pausing with `sleep` (injected in tests)."""

    async def attempt(call: Callable[[], Awaitable[Result]]) -> Result:
        return await patiently(call, sleep, rate_limited)

    return attempt


class Background:
    """Work that runs beside the adapter (frames, a flush loop), cancelled when it stops."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def keep(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def running(self) -> int:
        return len(self._tasks)

    async def cancel_all(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def reply_all(
    address: Address,
    replies: Sequence[Reply],
    deliver: Callable[[Address, Reply], Awaitable[None]],
    log: logging.Logger,
    dropped_event: str,
    urgent_dropped: Callable[[], None] | None = None,
) -> None:
    """Each reply on its own: one that cannot be delivered does not stop the next.

    A crisis, danger or /sos reply that still fails after its retries is logged as an
    error of its own and counted (`urgent_dropped`, for /metrics): an operator's alert
    pages on it, since someone who needed it did not see it."""
    for reply in replies:
        try:
            await deliver(address, reply)
        except DeliveryError as error:
            note_dropped(reply, error, address.platform, log, dropped_event, urgent_dropped)


def note_dropped(
    reply: Reply,
    error: DeliveryError,
    platform: str,
    log: logging.Logger,
    dropped_event: str,
    urgent_dropped: Callable[[], None] | None,
) -> None:
    """A reply given up on, logged; a crisis, danger or /sos one as an error, and counted."""
    if not reply.urgent:
        log_event(log, dropped_event, logging.WARNING, exc_info=error)
        return
    log_event(log, "safety.reply_undelivered", logging.ERROR, exc_info=error, platform=platform)
    if urgent_dropped is not None:
        urgent_dropped()


async def post_pieces(
    pieces: Sequence[str],
    post: Callable[[int, str], Awaitable[Message]],
    first: Attempt,
    sleep: Sleep,
    rate_limited: RateLimited | None = None,
) -> Message:
    """Post `pieces` in order with `post(number, piece)`; the last one's message returns.

    The first piece is tried as `first` says; once it is out, the rest are tried
    patiently one by one, so a refusal of the third piece never sends the first two
    again. A piece other than the last whose answer never came (on its last try) most
    likely arrived: the rest go on rather than start over.
    """
    sent: Message | None = None
    for number, piece in enumerate(pieces):
        last = number == len(pieces) - 1

        def call(number: int = number, piece: str = piece) -> Awaitable[Message]:
            return post(number, piece)

        try:
            sent = await (first(call) if number == 0 else patiently(call, sleep, rate_limited))
        except DeliveryUncertain:
            if last:
                raise
    assert sent is not None  # the last piece either returned or raised
    return sent


def play_frames(
    background: Background,
    reply: Reply,
    edit: Callable[[str], Awaitable[None]],
    sleep: Sleep,
    log: logging.Logger,
    stopped_event: str,
    stops_on: tuple[type[BaseException], ...] = (DeliveryError,),
) -> None:
    """Count down in place: each frame edits the message, and the last shows the text."""

    async def play() -> None:
        frames = reply.frames
        try:
            for previous, frame in itertools.pairwise(frames):
                await sleep(max(FRAME_MIN_SECONDS, previous.seconds))
                await edit(frame.text)
            await sleep(max(FRAME_MIN_SECONDS, frames[-1].seconds))
            await edit(reply.text)
        except stops_on as error:
            # A deleted message, a blocked user, a long outage: the countdown just stops.
            log_event(log, stopped_event, logging.INFO, exc_info=error)

    background.keep(play())
