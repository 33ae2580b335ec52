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
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import NamedTuple

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
from bot.delivery.collector_hold import CollectorHold
from bot.delivery.outgoing import Effect, Effects, Outgoing
from bot.delivery.reply_codec import decode_reply, encode_reply, shape_of
from bot.logs import get_logger, log_event
from bot.observability.metrics import Metrics, QueueState
from bot.storage import outbox_rows
from bot.storage.crypto import TextCipher
from bot.storage.db import Database, Transaction
from bot.storage.outbox_rows import OutboxRow
from bot.storage.still_there import StillThere, Target
from bot.storage.users import mark_unreachable

log = get_logger("outbox")

Sleep = Callable[[float], Awaitable[None]]

MAX_ATTEMPTS = 5
BACKOFF_BASE_SECONDS = 1.0
BACKOFF_CAP_SECONDS = 30.0
MAX_RETRY_AFTER_SECONDS = 300.0
MAX_RATE_LIMITED_SECONDS = 900.0  # in all, per message, waiting for the platform's 429s
# How long a worker's claim on its unsent rows lasts. It renews the leases of what it
# still holds every tick (at most 15 s apart), so only a worker gone for four ticks
# loses its rows to another.
OUTBOX_LEASE = timedelta(seconds=60)
TAKE_OVER_CHUNK = 1_000
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


class LetGo:
    """The rows senders are about to send, marked attempted in one round.

    A sender asks here and waits; every ask made while no round is running joins the
    next one, and so do the rows finished meanwhile (deleted). So each message is
    checked and marked right before its own send, for one round trip to the database
    per round of sends (`outbox_rows.let_go`, run beside the writer where it can).
    """

    def __init__(self, db: Database, clock: Clock, worker: str) -> None:
        self._db = db
        self._clock = clock
        self._worker = worker
        self._asked: list[tuple[int, asyncio.Future[bool]]] = []
        self._finished: list[int] = []
        self._answering: asyncio.Task[None] | None = None
        self.rounds = 0

    def may_send(self, row_id: int) -> asyncio.Future[bool]:
        """Resolves once the row's round is written: True when it may be sent."""
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._asked.append((row_id, answer))
        self._wake()
        return answer

    def finished(self, row_id: int) -> None:
        self._finished.append(row_id)
        self._wake()

    async def settled(self) -> None:
        """Until nothing asked or finished is left unwritten."""
        while self._answering is not None:
            await asyncio.shield(self._answering)

    async def close(self) -> None:
        """Stop a transaction in flight (its senders are being stopped too)."""
        if self._answering is not None:
            self._answering.cancel()
            await asyncio.gather(self._answering, return_exceptions=True)

    def _wake(self) -> None:
        if self._answering is None:
            # Started as a task, it first runs once the other senders woken with this
            # one have asked too.
            self._answering = asyncio.create_task(self._answer(), name="outbox-let-go")

    async def _answer(self) -> None:
        try:
            while self._asked or self._finished:
                asked, self._asked = self._asked, []
                finished, self._finished = self._finished, []
                ids = [row_id for row_id, _ in asked]
                now = self._clock.now()
                try:
                    self.rounds += 1
                    allowed = await self._db.outside_the_writer(
                        partial(
                            outbox_rows.let_go,
                            asked=ids,
                            finished=finished,
                            worker=self._worker,
                            now=now,
                        )
                    )
                except Exception as error:  # each sender counts its own message as failed
                    # Finished rows stay marked attempted, never sent again; the daily
                    # purge removes them.
                    for _, answer in asked:
                        if not answer.done():
                            answer.set_exception(error)
                    continue
                for row_id, answer in asked:
                    if not answer.done():  # not a sender cancelled while it waited
                        answer.set_result(row_id in allowed)
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
        # When this worker last wrote or marked each shape it used (see add_shapes).
        self._shapes_marked: dict[str, datetime] = {}
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
            self._row(row_id, message, shapes) for row_id, message in zip(ids, served, strict=True)
        ]
        to_mark = self._to_mark(shapes, now)
        await outbox_rows.add_shapes(tx, to_mark, now)
        await outbox_rows.add(tx, rows, self._worker, now, now + OUTBOX_LEASE)
        return Persisted(
            [_Queued(message, row_id) for row_id, message in zip(ids, served, strict=True)],
            tuple(to_mark),
        )

    def _to_mark(self, shapes: dict[str, str], now: datetime) -> dict[str, str]:
        """The shapes this worker has not written or marked within the hour (the others
        exist, and the daily purge leaves them)."""
        fresh = now - outbox_rows.SHAPE_MARKED_EVERY
        return {
            shape_id: text
            for shape_id, text in shapes.items()
            if self._shapes_marked.get(shape_id, fresh) <= fresh
        }

    def hand_over(self, persisted: Persisted) -> None:
        """Queue persisted messages in memory, once their rows are committed."""
        now = self._clock.now()
        if len(persisted.messages) >= COLLECTOR_HOLD_FROM:
            self._collector.hold()
        if persisted.shapes_written:
            if len(self._shapes_marked) > _MOST_SHAPES_MARKED:
                self._shapes_marked.clear()  # each written or marked again: no harm
            self._shapes_marked.update(dict.fromkeys(persisted.shapes_written, now))
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
            queued, more = await self._take_over_chunk(now, expired_by or now)
            self.hand_over(Persisted(queued))
            taken += len(queued)
            if not more:
                break
        if taken:
            self.stats.taken_over += taken
            log_event(log, "outbox.taken_over", messages=taken)
        return taken

    async def _take_over_chunk(
        self, now: datetime, expired_by: datetime
    ) -> tuple[list[_Queued], bool]:
        platforms = sorted(self._queues)
        async with self._db.transaction() as tx:
            rows = await outbox_rows.take_over(
                tx, self._worker, platforms, expired_by, now + OUTBOX_LEASE, TAKE_OVER_CHUNK
            )
            shapes = await outbox_rows.shapes(
                tx, {row.shape_id for row in rows if row.shape_id is not None}
            )
            queued = []
            for row in rows:
                try:
                    queued.append(_Queued(self._outgoing(row, shapes), row.id))
                except Exception as error:  # never retried forever: logged and removed
                    log_event(log, "outbox.unreadable", logging.ERROR, error=type(error).__name__)
                    await outbox_rows.finish(tx, row.id)
        return queued, len(rows) >= TAKE_OVER_CHUNK

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

    def _row(self, row_id: int, message: Outgoing, shapes: dict[str, str]) -> OutboxRow:
        """The message as a row; a shape it is written with is added to `shapes`."""
        address, guard = message.address, message.guard
        user_id = message.user_row_id
        if user_id is None and guard is not None and guard.target in _USER_TARGETS:
            user_id = guard.id
        sealed = message.own_words or message.reply.protect
        shaped = None if sealed else shape_of(message.reply)
        shape_id = fill = None
        if shaped is not None:
            shape, fill = shaped
            shape_id = shape.id
            shapes[shape_id] = shape.text
            plain: str | None = None
        else:
            plain = encode_reply(message.reply)
        for_user = for_reminder = None
        if sealed and plain is not None:
            if self._cipher is None:
                raise ValueError("an outbox that seals words needs the cipher")
            if user_id is not None:
                for_user = self._cipher.encrypt(plain, user_id)
            elif guard is not None and guard.target is Target.REMINDER:
                for_reminder = self._cipher.encrypt_for_reminder(plain, guard.id)
            else:
                raise ValueError("sealed words are bound to a user row or a reminder")
            plain = None
        # The enums are strings (StrEnum): written as they are, no `.value` lookups.
        return OutboxRow(
            row_id,
            address.platform,
            address.chat_id,
            address.user_id,
            int(address.is_group),
            user_id,
            plain,
            for_user,
            for_reminder,
            None if guard is None else guard.target,
            None if guard is None else guard.id,
            None if guard is None else guard.stamp,
            message.on_delivered,
            message.on_refused,
            shape_id,
            fill,
        )

    def _outgoing(self, row: OutboxRow, shapes: Mapping[str, str]) -> Outgoing:
        """A row read back (taken over): the message as it was persisted."""
        guard = None
        if row.guard_target is not None and row.guard_id is not None:
            guard = StillThere(Target(row.guard_target), row.guard_id, row.guard_stamp)
        sealed = row.sealed_for_user is not None or row.sealed_for_reminder is not None
        fill = None
        if row.reply is not None:
            text = row.reply
        elif row.shape_id is not None:
            text, fill = shapes[row.shape_id], row.fill  # a purged shape: unreadable
        elif self._cipher is None:
            raise ValueError("a sealed row needs the cipher")
        elif row.sealed_for_user is not None and row.user_id is not None:
            text = self._cipher.decrypt(row.sealed_for_user, row.user_id)
        elif row.sealed_for_reminder is not None and row.guard_id is not None:
            text = self._cipher.decrypt_for_reminder(row.sealed_for_reminder, row.guard_id)
        else:
            raise ValueError("an outbox row without its words")
        reply = decode_reply(text, fill)
        return Outgoing(
            Address(row.platform, row.chat_id, row.platform_user_id, bool(row.is_group)),
            reply,
            guard=guard,
            on_delivered=None if row.on_delivered is None else Effect(row.on_delivered),
            on_refused=None if row.on_refused is None else Effect(row.on_refused),
            user_row_id=row.user_id,
            own_words=sealed and not reply.protect,
        )

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


_MOST_SHAPES_MARKED = 4_096
# Targets whose id is the user's row.
_USER_TARGETS = frozenset({Target.USER, Target.CARING, Target.PLAN_REVIEW})
