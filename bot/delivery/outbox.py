"""Scheduled messages leave through here: one queue per platform, retried within bounds.

Replies to what a user just wrote do not queue here; they go straight back
through the adapter, so a crisis reply never waits behind routine sends.

Just before a message goes out, its guard is checked: a `StillThere` guard (the
user not forgotten, the follow-up not answered, the reminder not paused) is
asked together with those of every message other workers are about to send at
that moment, in one query (`PresenceChecks`), so 10,000 due check-ins do not make
10,000 queries, and each is still checked at the last moment before its send.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.core.clock import Clock
from bot.core.events import Address
from bot.core.platform import (
    Adapter,
    DeliveryUncertain,
    RecipientUnreachable,
    RetryAfter,
    SentMessage,
    TransientDeliveryError,
)
from bot.core.replies import Reply
from bot.logs import get_logger, log_event
from bot.observability.metrics import Metrics, QueueState
from bot.storage import still_there
from bot.storage.db import Database, Transaction
from bot.storage.still_there import StillThere
from bot.storage.users import mark_unreachable

log = get_logger("outbox")

Sleep = Callable[[float], Awaitable[None]]

MAX_ATTEMPTS = 5
BACKOFF_BASE_SECONDS = 1.0
BACKOFF_CAP_SECONDS = 30.0
MAX_RETRY_AFTER_SECONDS = 300.0
MAX_RATE_LIMITED_SECONDS = 900.0  # in all, per message, waiting for the platform's 429s


# A message's own checks and consequences, so the outbox knows no kind of message.
# Checked again just before sending: False drops it (the user was forgotten, the
# follow-up already answered, the reminder paused while it waited in the queue).
# A `StillThere` is such a guard that can be checked together with others.
Guard = Callable[[Database], Awaitable[bool]]
# Run in a transaction of their own once the platform accepted the message.
OnDelivered = Callable[[Transaction, datetime], Awaitable[None]]
# Run in a transaction of their own when the platform refuses the recipient; what
# they return is sent next (a note to a reminder's admin, say).
OnRefused = Callable[[Transaction, datetime], Awaitable[Sequence["Outgoing"]]]


@dataclass(frozen=True, slots=True)
class Outgoing:
    address: Address
    reply: Reply
    guard: Guard | None = None
    on_delivered: OnDelivered | None = None
    # None: the recipient is a person, marked unreachable (routine sends stop until
    # they write again).
    on_refused: OnRefused | None = None


@dataclass(frozen=True, slots=True)
class _Queued:
    outgoing: Outgoing
    number: int  # its key among the platform's unfinished messages


@dataclass
class OutboxStats:
    sent: int = 0
    retried: int = 0
    unreachable: int = 0
    dropped: int = 0
    uncertain: int = 0  # the answer timed out after the request went out: counted as sent


class PresenceChecks:
    """`StillThere` guards asked at the same moment, answered by one query.

    A worker about to send asks here and waits; every ask made while no query is
    running joins the next one. So each message is checked right before its own
    send, as a query per message did, for a query per round of sends.
    """

    def __init__(self, db: Database) -> None:
        self._db = db
        self._asked: list[tuple[StillThere, asyncio.Future[bool]]] = []
        self._answering: asyncio.Task[None] | None = None
        self.queries = 0

    async def still_there(self, key: StillThere) -> bool:
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._asked.append((key, answer))
        if self._answering is None:
            # Started as a task, it first runs once the other workers woken with this
            # one have asked too.
            self._answering = asyncio.create_task(self._answer(), name="outbox-presence")
        return await answer

    async def close(self) -> None:
        """Stop a query in flight (its workers are being stopped too)."""
        if self._answering is not None:
            self._answering.cancel()
            await asyncio.gather(self._answering, return_exceptions=True)

    async def _answer(self) -> None:
        try:
            while self._asked:
                asked, self._asked = self._asked, []
                try:
                    self.queries += 1
                    present = await still_there.present(self._db, {key for key, _ in asked})
                except Exception as error:  # each worker counts its own message as failed
                    for _, answer in asked:
                        if not answer.done():
                            answer.set_exception(error)
                    continue
                for key, answer in asked:
                    if not answer.done():  # not a worker cancelled while it waited
                        answer.set_result(key in present)
        finally:
            self._answering = None


def backoff_seconds(attempt: int) -> float:
    """1, 2, 4, 8 ... seconds, capped: bounded, so a long outage never becomes a retry storm."""
    return float(min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** (attempt - 1)))


class Outbox:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        adapters: Mapping[str, Adapter],
        # Sends wait on the network, not the CPU: enough of them that a few slow or
        # rate-limited ones (each waits alone) do not hold up everyone else's. The
        # platforms' own limiters still set the pace; more workers means each "still
        # there" query (one per round of sends) covers more messages: 64 made a due
        # minute of 10,000 take a quarter of the queries 16 did, and 0.06 s less.
        workers_per_platform: int = 64,
        sleep: Sleep = asyncio.sleep,
        on_sent: Callable[[Outgoing, SentMessage | None], None] | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self._db = db
        self._clock = clock
        self._adapters = dict(adapters)
        self._workers_per_platform = workers_per_platform
        self._sleep = sleep
        self._on_sent = on_sent
        self._queues: dict[str, asyncio.Queue[_Queued]] = {}
        # Per platform, when each message queued or being sent was queued, oldest first
        # (a dict keeps insertion order): the depth and the oldest's age for /metrics.
        self._unfinished: dict[str, dict[int, datetime]] = {}
        self._numbers = itertools.count()
        self._tasks: list[asyncio.Task[None]] = []
        self._presence = PresenceChecks(db)
        self._metrics = metrics or Metrics()
        # Each platform's send counter, looked up once: it goes up for every message.
        self._sends = {platform: self._metrics.sends.labels(platform) for platform in adapters}
        self.stats = OutboxStats()

    @property
    def presence_queries(self) -> int:
        """Queries made so far to check that messages' targets are still there."""
        return self._presence.queries

    @property
    def workers_per_platform(self) -> int:
        return self._workers_per_platform

    def queue_states(self) -> dict[str, QueueState]:
        """Each platform's messages queued or being sent, and since when the oldest waits."""
        return {
            platform: QueueState(len(waiting), next(iter(waiting.values()), None))
            for platform, waiting in self._unfinished.items()
        }

    def start(self) -> None:
        self._metrics.watch_outbox(self.queue_states, self._clock.now)
        for platform in self._adapters:
            queue: asyncio.Queue[_Queued] = asyncio.Queue()
            self._queues[platform] = queue
            self._unfinished[platform] = {}
            for number in range(self._workers_per_platform):
                task = asyncio.create_task(
                    self._work(platform, queue), name=f"outbox-{platform}-{number}"
                )
                self._tasks.append(task)

    async def stop(self, drain_timeout: float = 0.0) -> None:
        """Stop the workers, first giving queued messages up to `drain_timeout` seconds.

        What is still queued after that is dropped: a routine check-in is not
        worth holding a shutdown for, and a follow-up not marked delivered is
        claimed again after a restart.
        """
        if drain_timeout > 0:
            try:
                await asyncio.wait_for(self.drain(), drain_timeout)
            except TimeoutError:
                log_event(log, "outbox.abandoned", logging.WARNING)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        await self._presence.close()

    def enqueue(self, outgoing: Outgoing) -> bool:
        """Queue one message; False when no adapter serves its platform."""
        queue = self._queues.get(outgoing.address.platform)
        if queue is None:
            log_event(log, "outbox.no_adapter", logging.WARNING, platform=outgoing.address.platform)
            return False
        number = next(self._numbers)
        self._unfinished[outgoing.address.platform][number] = self._clock.now()
        queue.put_nowait(_Queued(outgoing, number))
        return True

    async def drain(self) -> None:
        """Wait until everything queued so far has been sent or given up on."""
        await asyncio.gather(*(queue.join() for queue in self._queues.values()))

    async def _work(self, platform: str, queue: asyncio.Queue[_Queued]) -> None:
        adapter = self._adapters[platform]
        unfinished = self._unfinished[platform]
        while True:
            queued = await queue.get()
            try:
                await self._deliver(adapter, queued.outgoing)
            except Exception as error:  # one bad message must not stop the worker
                self.stats.dropped += 1
                self._metrics.give_ups.labels(platform).inc()
                log_event(log, "outbox.failed", logging.ERROR, exc_info=error, platform=platform)
            finally:
                unfinished.pop(queued.number, None)
                queue.task_done()

    async def _deliver(self, adapter: Adapter, outgoing: Outgoing) -> None:
        if not await self._still_wanted(outgoing):
            return  # no longer wanted: it changed while the message waited in the queue
        platform = outgoing.address.platform
        attempt = 0
        waited_for_platform = 0.0
        while attempt < MAX_ATTEMPTS:
            try:
                sent = await adapter.send(outgoing.address, outgoing.reply)
            except RecipientUnreachable:
                self.stats.unreachable += 1
                self._metrics.refusals.labels(platform).inc()
                if outgoing.on_refused is not None:
                    await self._refused(outgoing, outgoing.on_refused)
                    return
                async with self._db.transaction() as tx:
                    await mark_unreachable(tx, outgoing.address, self._clock.now())
                log_event(log, "outbox.unreachable", platform=outgoing.address.platform)
                return
            except DeliveryUncertain:
                # Most likely delivered; sending again could show it twice. Counted as sent.
                self.stats.uncertain += 1
                self._sends[platform].inc()
                log_event(log, "outbox.uncertain", platform=outgoing.address.platform)
                await self._delivered(outgoing, None)
                return
            except RetryAfter as error:
                # The platform said when: waiting is not a failed attempt. Only the total
                # wait is bounded, so a long flood wait cannot hold a worker forever.
                self._metrics.rate_limited.labels(platform, "outbox").inc()
                wait = min(error.seconds, MAX_RETRY_AFTER_SECONDS)
                if waited_for_platform + wait > MAX_RATE_LIMITED_SECONDS:
                    break
                waited_for_platform += wait
                self.stats.retried += 1
                await self._sleep(wait)
            except TransientDeliveryError:
                attempt += 1
                self.stats.retried += 1
                await self._sleep(backoff_seconds(attempt))
            else:
                self.stats.sent += 1
                self._sends[platform].inc()
                await self._delivered(outgoing, sent)
                return
        self.stats.dropped += 1
        self._metrics.give_ups.labels(platform).inc()
        log_event(log, "outbox.gave_up", logging.WARNING, platform=outgoing.address.platform)

    async def _still_wanted(self, outgoing: Outgoing) -> bool:
        guard = outgoing.guard
        if guard is None:
            return True
        if isinstance(guard, StillThere):
            return await self._presence.still_there(guard)
        return await guard(self._db)

    async def _delivered(self, outgoing: Outgoing, sent: SentMessage | None) -> None:
        if outgoing.on_delivered is not None:
            async with self._db.transaction() as tx:
                await outgoing.on_delivered(tx, self._clock.now())
        if self._on_sent is not None:
            self._on_sent(outgoing, sent)

    async def _refused(self, outgoing: Outgoing, on_refused: OnRefused) -> None:
        async with self._db.transaction() as tx:
            instead = await on_refused(tx, self._clock.now())
        log_event(log, "outbox.refused", platform=outgoing.address.platform)
        for message in instead:
            self.enqueue(message)
