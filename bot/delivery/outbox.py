"""Scheduled messages leave through here: rows of the outbox table, sent from memory.

Replies to what a user just wrote do not queue here; they go straight back
through the adapter, so a crisis reply never waits behind routine sends.

A message is written as an outbox row in the transaction that claims it
(`persist`), and once that commits it is queued in this worker's memory
(`hand_over`). Just before its request goes out, its row is marked as attempted,
and dropped if its target is gone (`StillThere`: the user forgotten, the follow-up
answered, the reminder paused), together with the rows of every message other
senders are about to send at that moment, in one round (`LetGo`: one transaction on
SQLite, one statement beside the writer on PostgreSQL). So:

- a worker killed before a message's attempt leaves its row; once the row's lease
  runs out another worker takes it over (`keep_leases`, each tick), and a lone
  worker on SQLite takes over what a previous run left at start;
- a message whose attempt started may have reached the platform: it is never sent
  again, by anyone (at most once, as a check-in must be);
- each message is still checked at the last moment before its send, for one
  round trip to the database per round of sends.

Beside it: `let_go.py` (the round that checks and marks rows attempted),
`outbox_row_codec.py` (a message as a row, sealed where it must be, and back),
`take_over.py` (a dead worker's rows taken over in chunks), `shape_marks.py` (which shared
reply shapes this worker marked lately) and `retry_policy.py` (how long a send is retried).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from bot.core.clock import Clock
from bot.core.platform import (
    Adapter,
    DeliveryUncertain,
    RecipientUnreachable,
    RetryAfter,
    SentMessage,
    TransientDeliveryError,
)
from bot.delivery.collector_hold import CollectorHold
from bot.delivery.let_go import LetGo
from bot.delivery.outbox_row_codec import as_row
from bot.delivery.outgoing import Effects, Outgoing
from bot.delivery.retry_policy import (
    MAX_ATTEMPTS,
    MAX_RATE_LIMITED_SECONDS,
    MAX_RETRY_AFTER_SECONDS,
    backoff_seconds,
)
from bot.delivery.shape_marks import ShapeMarks
from bot.delivery.take_over import take_over_chunk
from bot.logs import get_logger, log_event
from bot.observability.metrics import Metrics, QueueState
from bot.storage import outbox_rows
from bot.storage.crypto import TextCipher
from bot.storage.db import Database, Transaction
from bot.storage.users import mark_unreachable

log = get_logger("outbox")

Sleep = Callable[[float], Awaitable[None]]

# How long a worker's claim on its unsent rows lasts. It renews the leases of what it
# still holds every tick (at most 15 s apart), so only a worker gone for four ticks
# loses its rows to another.
OUTBOX_LEASE = timedelta(seconds=60)
# A batch this big is a due minute's: the collector is held off while it queues (see
# collector_hold). A few messages at a time never hold it.
COLLECTOR_HOLD_FROM = 500


class _Queued(NamedTuple):
    outgoing: Outgoing
    row_id: int


@dataclass(frozen=True, slots=True)
class Persisted:
    """Messages written as rows in a transaction, to `hand_over` once it commits."""

    messages: list[_Queued]
    shapes_written: tuple[str, ...] = ()  # marked as written by this worker once committed


@dataclass
class OutboxStats:
    sent: int = 0
    retried: int = 0
    unreachable: int = 0
    dropped: int = 0
    uncertain: int = 0  # the answer timed out after the request went out: counted as sent
    taken_over: int = 0  # rows another (dead) worker, or an earlier run, had claimed


class Outbox:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        adapters: Mapping[str, Adapter],
        # Sends wait on the network, not the CPU: enough of them that a few slow or
        # rate-limited ones (each waits alone) do not hold up everyone else's. The
        # platforms' own limiters still set the pace; more senders means each round's
        # transaction covers more messages: 64 made a due minute of 10,000 take a
        # quarter of the rounds 16 did.
        workers_per_platform: int = 64,
        sleep: Sleep = asyncio.sleep,
        on_sent: Callable[[Outgoing, SentMessage | None], None] | None = None,
        metrics: Metrics | None = None,
        *,
        effects: Effects | None = None,
        cipher: TextCipher | None = None,
        # The only worker there is (SQLite's single instance): what an earlier run left
        # unsent is taken over at start, without waiting for its lease.
        sole_worker: bool = False,
    ) -> None:
        self._db = db
        self._clock = clock
        self._adapters = dict(adapters)
        self._workers_per_platform = workers_per_platform
        self._sleep = sleep
        self._on_sent = on_sent
        self._effects = effects or Effects()
        self._cipher = cipher
        self._sole_worker = sole_worker
        # Names this worker's leases: only another (dead) worker's rows are taken over,
        # so a send that is merely slow here is never repeated.
        self._worker = secrets.token_hex(8)
        self._queues: dict[str, asyncio.Queue[_Queued]] = {}
        # Per platform, when each message queued or being sent was queued (by row id),
        # oldest first (a dict keeps insertion order): depth and age for /metrics.
        self._unfinished: dict[str, dict[int, datetime]] = {}
        # Rows queued here whose attempt has not started: their leases are renewed.
        self._holding: set[int] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._let_go = LetGo(db, clock, self._worker)
        self._collector = CollectorHold()
        self._shape_marks = ShapeMarks()
        self._metrics = metrics or Metrics()
        # Each platform's send counter, looked up once: it goes up for every message.
        self._sends = {platform: self._metrics.sends.labels(platform) for platform in adapters}
        self.stats = OutboxStats()

    @property
    def let_go_rounds(self) -> int:
        """Rounds so far that marked messages as attempted."""
        return self._let_go.rounds

    @property
    def workers_per_platform(self) -> int:
        return self._workers_per_platform

    @property
    def worker(self) -> str:
        """The name this worker's leases carry."""
        return self._worker

    def queue_states(self) -> dict[str, QueueState]:
        """Each platform's messages queued or being sent, and since when the oldest waits."""
        return {
            platform: QueueState(len(waiting), next(iter(waiting.values()), None))
            for platform, waiting in self._unfinished.items()
        }

    async def start(self) -> None:
        self._metrics.watch_outbox(self.queue_states, self._clock.now)
        for platform in self._adapters:
            # Started again after a stop, what was queued then is still queued.
            queue = self._queues.setdefault(platform, asyncio.Queue())
            self._unfinished.setdefault(platform, {})
            for number in range(self._workers_per_platform):
                task = asyncio.create_task(
                    self._work(platform, queue), name=f"outbox-{platform}-{number}"
                )
                self._tasks.append(task)
        if self._sole_worker:
            # Every lease given so far ends before now + OUTBOX_LEASE.
            await self.keep_leases(expired_by=self._clock.now() + OUTBOX_LEASE)

    async def stop(self, drain_timeout: float = 0.0) -> None:
        """Stop the senders, first giving queued messages up to `drain_timeout` seconds.

        What is still queued after that stays in the table, unattempted: taken over
        when its lease runs out, or at once by the next run of a lone worker.
        """
        if drain_timeout > 0:
            try:
                await asyncio.wait_for(self.drain(), drain_timeout)
            except TimeoutError:
                log_event(log, "outbox.left_queued", logging.WARNING)
        try:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            self._tasks.clear()
            try:
                await asyncio.wait_for(self._let_go.settled(), 1.0)
            except Exception as error:  # attempted rows then wait for the daily purge
                log_event(log, "outbox.unsettled", logging.WARNING, error=type(error).__name__)
            await self._let_go.close()
        finally:
            self._collector.emptied()  # never left off by an outbox that stopped

    async def persist(self, tx: Transaction, messages: Sequence[Outgoing]) -> Persisted:
        """Write `messages` as rows in the caller's transaction (a claim's): once it
        commits, `hand_over` what this returns. A platform no adapter serves here is
        logged and skipped."""
        served = [message for message in messages if self._serves(message)]
        if not served:
            return Persisted([])
        now = self._clock.now()
        ids = await outbox_rows.reserve_ids(tx, len(served))
        shapes: dict[str, str] = {}
        rows = [
            as_row(row_id, message, shapes, self._cipher)
            for row_id, message in zip(ids, served, strict=True)
        ]
        to_mark = self._shape_marks.to_mark(shapes, now)
        await outbox_rows.add_shapes(tx, to_mark, now)
        await outbox_rows.add(tx, rows, self._worker, now, now + OUTBOX_LEASE)
        return Persisted(
            [_Queued(message, row_id) for row_id, message in zip(ids, served, strict=True)],
            tuple(to_mark),
        )

    def hand_over(self, persisted: Persisted) -> None:
        """Queue persisted messages in memory, once their rows are committed."""
        now = self._clock.now()
        if len(persisted.messages) >= COLLECTOR_HOLD_FROM:
            self._collector.hold()
        self._shape_marks.marked(persisted.shapes_written, now)
        for item in persisted.messages:
            platform = item.outgoing.address.platform
            self._unfinished[platform][item.row_id] = now
            self._holding.add(item.row_id)
            self._queues[platform].put_nowait(item)

    async def enqueue(self, *messages: Outgoing) -> bool:
        """Persist and queue messages in a transaction of their own; False when some
        platform has no adapter here."""
        async with self._db.transaction() as tx:
            persisted = await self.persist(tx, messages)
        self.hand_over(persisted)
        return len(persisted.messages) == len(messages)

    async def keep_leases(self, expired_by: datetime | None = None) -> int:
        """Renew the leases of what this worker holds, and take over rows whose lease ran
        out by `expired_by` (now): their worker died before their attempt. Run every
        tick. Returns how many rows were taken over."""
        now = self._clock.now()
        async with self._db.transaction() as tx:
            await outbox_rows.renew(tx, self._holding, self._worker, now + OUTBOX_LEASE)
        taken = 0
        while True:  # a chunk per transaction, each queued as soon as it commits
            platforms = sorted(self._queues)
            until = now + OUTBOX_LEASE
            chunk, more = await take_over_chunk(
                self._db, self._worker, platforms, expired_by or now, until, self._cipher
            )
            self.hand_over(Persisted([_Queued(message, row_id) for message, row_id in chunk]))
            taken += len(chunk)
            if not more:
                break
        if taken:
            self.stats.taken_over += taken
            log_event(log, "outbox.taken_over", messages=taken)
        return taken

    async def drain(self) -> None:
        """Wait until everything queued so far has been sent or given up on, and its row
        is gone."""
        await asyncio.gather(*(queue.join() for queue in self._queues.values()))
        await self._let_go.settled()

    def _serves(self, message: Outgoing) -> bool:
        if message.address.platform in self._adapters:
            return True
        log_event(log, "outbox.no_adapter", logging.WARNING, platform=message.address.platform)
        return False

    async def _work(self, platform: str, queue: asyncio.Queue[_Queued]) -> None:
        adapter = self._adapters[platform]
        unfinished = self._unfinished[platform]
        while True:
            queued = await queue.get()
            try:
                await self._deliver(adapter, queued)
            except Exception as error:  # one bad message must not stop the sender
                self.stats.dropped += 1
                self._metrics.give_ups.labels(platform).inc()
                log_event(log, "outbox.failed", logging.ERROR, exc_info=error, platform=platform)
            finally:
                unfinished.pop(queued.row_id, None)
                queue.task_done()
                if self._collector.engaged and not any(self._unfinished.values()):
                    self._collector.emptied()

    async def _deliver(self, adapter: Adapter, queued: _Queued) -> None:
        outgoing, row_id = queued.outgoing, queued.row_id
        # From the ask on, this worker no longer renews it: a renewal would only hold the
        # row's lock against the round. Should the round fail, its lease runs out and it
        # is taken over (here too) later.
        self._holding.discard(row_id)
        allowed = await self._let_go.may_send(row_id)
        if not allowed:
            return  # its target is gone, or another worker took it over
        try:
            finished_by = await self._send(adapter, outgoing, row_id)
        except BaseException:
            self._let_go.finished(row_id)
            raise
        if not finished_by:
            self._let_go.finished(row_id)

    async def _send(self, adapter: Adapter, outgoing: Outgoing, row_id: int) -> bool:
        """The attempts; True when a transaction of an effect already deleted the row."""
        platform = outgoing.address.platform
        attempt = 0
        waited_for_platform = 0.0
        while attempt < MAX_ATTEMPTS:
            try:
                sent = await adapter.send(outgoing.address, outgoing.reply)
            except RecipientUnreachable:
                self.stats.unreachable += 1
                self._metrics.refusals.labels(platform).inc()
                await self._refused(outgoing, row_id)
                return True
            except DeliveryUncertain:
                # Most likely delivered; sending again could show it twice. Counted as sent.
                self.stats.uncertain += 1
                self._sends[platform].inc()
                log_event(log, "outbox.uncertain", platform=platform)
                return await self._delivered(outgoing, None, row_id)
            except RetryAfter as error:
                # The platform said when: waiting is not a failed attempt. Only the total
                # wait is bounded, so a long flood wait cannot hold a sender forever.
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
                if outgoing.on_delivered is None and self._on_sent is None:
                    return False  # nearly every message: nothing more to do
                return await self._delivered(outgoing, sent, row_id)
        self.stats.dropped += 1
        self._metrics.give_ups.labels(platform).inc()
        log_event(log, "outbox.gave_up", logging.WARNING, platform=platform)
        return False

    async def _delivered(self, outgoing: Outgoing, sent: SentMessage | None, row_id: int) -> bool:
        finished = False
        if outgoing.on_delivered is not None and outgoing.guard is not None:
            async with self._db.transaction() as tx:
                await self._effects.run(
                    outgoing.on_delivered, tx, self._clock.now(), outgoing.guard, outgoing.address
                )
                await outbox_rows.finish(tx, row_id)
            finished = True
        if self._on_sent is not None:
            self._on_sent(outgoing, sent)
        return finished

    async def _refused(self, outgoing: Outgoing, row_id: int) -> None:
        now = self._clock.now()
        async with self._db.transaction() as tx:
            if outgoing.on_refused is not None and outgoing.guard is not None:
                instead = await self._effects.run(
                    outgoing.on_refused, tx, now, outgoing.guard, outgoing.address
                )
                event = "outbox.refused"
            else:
                await mark_unreachable(tx, outgoing.address, now)
                instead, event = (), "outbox.unreachable"
            await outbox_rows.finish(tx, row_id)
            persisted = await self.persist(tx, instead)
        log_event(log, event, platform=outgoing.address.platform)
        self.hand_over(persisted)
