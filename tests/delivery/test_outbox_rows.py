"""The outbox table between workers: what one worker claimed and did not send, another
sends once its lease runs out; what one worker started sending, nobody sends again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import timedelta
from functools import partial
from typing import Any

import asyncpg
import pytest

from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Button, Reply
from bot.delivery import take_over
from bot.delivery.outbox import OUTBOX_LEASE, Outbox
from bot.delivery.outgoing import Outgoing
from bot.flows.context import Services
from bot.storage import outbox_rows, postgres
from bot.storage.db import Transaction
from bot.storage.postgres import PostgresDatabase
from bot.storage.still_there import StillThere, Target
from bot.storage.user_data import forget_user
from bot.storage.users import ensure_user
from tests.helpers.outboxes import outbox_for, queued_and_left
from tests.helpers.recording_adapter import RecordingAdapter
from tests.helpers.waiting import until
from tests.helpers.world import Sleeps

ANA = Address("test", "chat-ana", "ana")
GROUP = Address("test", "group-1", "", is_group=True)


async def _ana(services: Services, clock: ManualClock) -> int:
    async with services.db.transaction() as tx:
        return (await ensure_user(tx, ANA, "en", clock.now())).id


def _worker(services: Services, clock: ManualClock, adapter: RecordingAdapter) -> Outbox:
    return outbox_for(services, clock, {adapter.platform: adapter}, sleep=Sleeps())


def _round(
    dead: Outbox, clock: ManualClock, asked: list[int], finished: tuple[int, ...] = ()
) -> Callable[[Transaction], Coroutine[Any, Any, set[int]]]:
    """One let-go round of `dead`'s rows, as its outbox would run it."""
    return partial(
        outbox_rows.let_go,
        asked=asked,
        finished=list(finished),
        worker=dead.worker,
        now=clock.now(),
    )


async def _rows(services: Services) -> list[tuple[int, bool]]:
    rows = await services.db.fetch_all("SELECT id, attempt_at FROM outbox ORDER BY id")
    return [(row["id"], row["attempt_at"] is not None) for row in rows]


async def test_another_worker_sends_what_a_dead_one_claimed_once_its_lease_ran_out(
    services: Services, clock: ManualClock
) -> None:
    ana = await _ana(services, clock)
    reply = Reply("Hi", buttons=((Button("Yes", "c:tok:1"), Button("No", "c:tok:2")),))
    await queued_and_left(services, clock, Outgoing(ANA, reply, guard=StillThere(Target.USER, ana)))
    adapter = RecordingAdapter()
    other = _worker(services, clock, adapter)
    await other.start()
    try:
        assert await other.keep_leases() == 0  # still the other worker's
        clock.advance(OUTBOX_LEASE)
        assert await other.keep_leases() == 1
        await other.drain()
    finally:
        await other.stop()
    assert adapter.sent == [(ANA, reply)]  # exactly as it was claimed, buttons and all
    assert await _rows(services) == []


async def test_a_lone_worker_sends_what_its_previous_run_left_as_it_starts(
    services: Services, clock: ManualClock
) -> None:
    ana = await _ana(services, clock)
    await queued_and_left(
        services, clock, Outgoing(ANA, Reply("left"), guard=StillThere(Target.USER, ana))
    )
    adapter = RecordingAdapter()
    again = outbox_for(
        services, clock, {adapter.platform: adapter}, sleep=Sleeps(), sole_worker=True
    )
    await again.start()
    try:
        await again.drain()
    finally:
        await again.stop()
    assert adapter.sent == [(ANA, Reply("left"))]
    assert again.stats.taken_over == 1


async def test_a_row_whose_attempt_started_is_never_sent_again(
    services: Services, clock: ManualClock
) -> None:
    ana = await _ana(services, clock)
    await queued_and_left(
        services, clock, Outgoing(ANA, Reply("on the wire"), guard=StillThere(Target.USER, ana))
    )
    async with services.db.transaction() as tx:  # as the request went out, the worker died
        await tx.execute("UPDATE outbox SET attempt_at = ?", (1,))
    adapter = RecordingAdapter()
    other = _worker(services, clock, adapter)
    await other.start()
    clock.advance(OUTBOX_LEASE * 10)
    try:
        assert await other.keep_leases() == 0
        await other.drain()
    finally:
        await other.stop()
    assert adapter.sent == []
    assert await outbox_rows.on_the_wire(services.db) == 1  # counted, never repeated


async def test_a_worker_that_lost_its_lease_sends_nothing_the_new_holder_sends_it(
    services: Services, clock: ManualClock
) -> None:
    """A worker slow enough to lose its lease (stalled, not dead) finds the row taken
    when it is about to send: one of the two sends it, never both."""
    ana = await _ana(services, clock)
    late = RecordingAdapter()
    slow = await queued_and_left(
        services,
        clock,
        Outgoing(ANA, Reply("once"), guard=StillThere(Target.USER, ana)),
        adapter=late,
    )
    clock.advance(OUTBOX_LEASE)
    adapter = RecordingAdapter()
    other = _worker(services, clock, adapter)
    await other.start()
    assert await other.keep_leases() == 1
    await slow.start()  # its senders, back to life
    try:
        await slow.drain()
        await other.drain()
    finally:
        await slow.stop()
        await other.stop()
    assert (late.sent, adapter.sent) == ([], [(ANA, Reply("once"))])


async def test_forget_deletes_what_waits_for_the_user_and_mydata_counts_it(
    services: Services, clock: ManualClock
) -> None:
    ana = await _ana(services, clock)
    await queued_and_left(
        services,
        clock,
        Outgoing(ANA, Reply("for ana"), guard=StillThere(Target.USER, ana)),
        Outgoing(ANA, Reply("a note, by address only")),
        Outgoing(GROUP, Reply("for the group")),
    )
    assert await outbox_rows.waiting_for(services.db, ana) == 1
    async with services.db.transaction() as tx:
        await forget_user(tx, ana)
    rows = await services.db.fetch_all("SELECT chat_id FROM outbox")
    assert [row["chat_id"] for row in rows] == [GROUP.chat_id]


async def test_a_reminders_own_words_wait_sealed_and_go_out_as_written(
    services: Services, clock: ManualClock
) -> None:
    reminder = StillThere(Target.REMINDER, 7)
    async with services.db.transaction() as tx:
        await tx.execute(
            "INSERT INTO group_reminders (id, platform, chat_id, number, locale, timezone,"
            " local_time, weekdays, created_at) VALUES (7, 'test', ?, 1, 'en', 'UTC', '09:00',"
            " 127, 0)",
            (GROUP.chat_id,),
        )
    words = "Our circle meets at eight, bring tea"
    await queued_and_left(
        services, clock, Outgoing(GROUP, Reply(words), guard=reminder, own_words=True)
    )
    stored = await services.db.fetch_one("SELECT reply, sealed_for_reminder FROM outbox")
    assert stored is not None and stored["reply"] is None
    assert words.encode() not in bytes(stored["sealed_for_reminder"])
    clock.advance(OUTBOX_LEASE + timedelta(seconds=1))
    adapter = RecordingAdapter()
    other = _worker(services, clock, adapter)
    await other.start()
    try:
        await other.keep_leases()
        await other.drain()
    finally:
        await other.stop()
    assert adapter.sent == [(GROUP, Reply(words))]


async def test_everything_a_dead_worker_left_is_taken_over_chunk_by_chunk(
    services: Services, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(take_over, "TAKE_OVER_CHUNK", 2)
    ana = await _ana(services, clock)
    texts = [f"message {n}" for n in range(5)]
    await queued_and_left(
        services,
        clock,
        *(Outgoing(ANA, Reply(text), guard=StillThere(Target.USER, ana)) for text in texts),
    )
    clock.advance(OUTBOX_LEASE)
    adapter = RecordingAdapter()
    other = _worker(services, clock, adapter)
    await other.start()
    try:
        assert await other.keep_leases() == len(texts)
        await other.drain()
    finally:
        await other.stop()
    assert sorted(reply.text for _, reply in adapter.sent) == texts


@pytest.mark.postgres_only
async def test_a_round_is_marked_while_a_claim_holds_the_writer(
    services: Services, clock: ManualClock
) -> None:
    ana = await _ana(services, clock)
    dead = await queued_and_left(
        services, clock, Outgoing(ANA, Reply("hi"), guard=StillThere(Target.USER, ana))
    )
    [(row_id, _)] = await _rows(services)
    async with services.db.transaction() as tx:
        await tx.execute("UPDATE users SET locale = locale WHERE id = ?", (ana,))  # the writer
        # Bounded: a round that waited for the writer would wait here for ever.
        allowed = await asyncio.wait_for(
            services.db.outside_the_writer(_round(dead, clock, [row_id])),
            timeout=30,
        )
    assert allowed == {row_id}
    assert await _rows(services) == [(row_id, True)]


@pytest.mark.postgres_only
async def test_a_round_gives_way_to_a_writer_holding_its_row_then_goes_ahead(
    services: Services, clock: ManualClock
) -> None:
    ana = await _ana(services, clock)
    dead = await queued_and_left(
        services, clock, Outgoing(ANA, Reply("hi"), guard=StillThere(Target.USER, ana))
    )
    [(row_id, _)] = await _rows(services)
    gave_way = 0
    marking: asyncio.Task[set[int]] | None = None
    async with services.db.transaction() as tx:
        # A writer (a renewal of leases) holds the row's lock until it commits.
        await tx.execute("UPDATE outbox SET lease_until = lease_until WHERE id = ?", (row_id,))

        async def let_go_counting(round_tx: Transaction) -> set[int]:
            nonlocal gave_way
            gave_way += 1
            return await outbox_rows.let_go(
                round_tx, asked=[row_id], finished=[], worker=dead.worker, now=clock.now()
            )

        marking = asyncio.create_task(services.db.outside_the_writer(let_go_counting))
        await until(lambda: gave_way >= 2, what="the round to give way and start again")
    assert await marking == {row_id}
    assert await _rows(services) == [(row_id, True)]


@pytest.mark.postgres_only
async def test_a_round_with_finished_rows_is_one_statement_on_postgresql(
    services: Services, clock: ManualClock
) -> None:
    ana = await _ana(services, clock)
    dead = await queued_and_left(
        services,
        clock,
        Outgoing(ANA, Reply("sent"), guard=StillThere(Target.USER, ana)),
        Outgoing(ANA, Reply("next"), guard=StillThere(Target.USER, ana)),
    )
    [(sent, _), (following, _)] = await _rows(services)
    async with services.db.transaction() as tx:
        await tx.execute("UPDATE outbox SET attempt_at = ? WHERE id = ?", (1, sent))
    before = services.db.statements
    allowed = await services.db.outside_the_writer(_round(dead, clock, [following], (sent,)))
    assert services.db.statements - before == 1
    assert allowed == {following}
    assert await _rows(services) == [(following, True)]


@pytest.mark.postgres_only
async def test_a_round_still_locked_out_after_its_attempts_waits_as_the_writer(
    services: Services,
    clock: ManualClock,
    database_url: str | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert database_url is not None
    ana = await _ana(services, clock)
    dead = await queued_and_left(
        services, clock, Outgoing(ANA, Reply("hi"), guard=StillThere(Target.USER, ana))
    )
    [(row_id, _)] = await _rows(services)
    monkeypatch.setattr(postgres, "OUTSIDE_ATTEMPTS", 2)
    as_the_writer = asyncio.Event()
    in_one_hop = PostgresDatabase.in_one_hop

    async def noting(self: PostgresDatabase, body: Callable[[Transaction], Any]) -> Any:
        as_the_writer.set()
        return await in_one_hop(self, body)

    monkeypatch.setattr(PostgresDatabase, "in_one_hop", noting)
    other = await asyncpg.connect(database_url)  # another worker's writer, holding the row
    try:
        await other.execute("BEGIN")
        await other.execute("SELECT id FROM outbox WHERE id = $1 FOR UPDATE", row_id)
        marking = asyncio.create_task(services.db.outside_the_writer(_round(dead, clock, [row_id])))
        await asyncio.wait_for(as_the_writer.wait(), timeout=30)
        await other.execute("COMMIT")
        assert await asyncio.wait_for(marking, timeout=30) == {row_id}
    finally:
        await other.close()
    assert await _rows(services) == [(row_id, True)]


@pytest.mark.postgres_only
async def test_a_round_after_the_connection_beside_the_writer_broke_opens_a_new_one(
    services: Services, clock: ManualClock, database_url: str | None
) -> None:
    assert database_url is not None
    ana = await _ana(services, clock)
    dead = await queued_and_left(
        services,
        clock,
        Outgoing(ANA, Reply("one"), guard=StillThere(Target.USER, ana)),
        Outgoing(ANA, Reply("two"), guard=StillThere(Target.USER, ana)),
    )
    [(first, _), (second, _)] = await _rows(services)

    async def own_pid(tx: Transaction) -> int:
        row = await tx.fetch_one("SELECT pg_backend_pid() AS pid")
        assert row is not None
        return int(row["pid"])

    assert await services.db.outside_the_writer(_round(dead, clock, [first])) == {first}
    pid = await services.db.outside_the_writer(own_pid)
    admin = await asyncpg.connect(database_url)
    try:
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await admin.close()
    assert await services.db.outside_the_writer(_round(dead, clock, [second])) == {second}
    assert await services.db.outside_the_writer(own_pid) != pid
    assert await _rows(services) == [(first, True), (second, True)]
