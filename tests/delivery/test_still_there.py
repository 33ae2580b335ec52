"""Whether a queued message's target is still there is checked for a round of messages at
once, in the transaction that marks their attempts as started."""

from __future__ import annotations

import math
from functools import partial

from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.delivery.outbox import Outgoing
from bot.flows.context import Services
from bot.storage import outbox_rows
from bot.storage.queries import to_epoch
from bot.storage.still_there import StillThere, Target
from bot.storage.user_data import forget_user
from bot.storage.users import ensure_user
from tests.helpers.outboxes import outbox_for
from tests.helpers.recording_adapter import RecordingAdapter
from tests.helpers.world import Sleeps

USERS = 40


async def _users(services: Services, clock: ManualClock, count: int) -> list[tuple[int, Address]]:
    made = []
    async with services.db.transaction() as tx:
        for n in range(count):
            address = Address("test", f"chat-{n}", f"u{n}")
            made.append(((await ensure_user(tx, address, "en", clock.now())).id, address))
    return made


async def test_one_round_lets_go_of_what_is_still_wanted_and_drops_the_rest(
    services: Services, clock: ManualClock
) -> None:
    [(ana, address), (ben, _)] = await _users(services, clock, 2)
    now = to_epoch(clock.now())
    async with services.db.transaction() as tx:
        pending = await tx.insert(
            "INSERT INTO followups (user_id, due_at) VALUES (?, ?)", (ana, now)
        )
        delivered = await tx.insert(
            "INSERT INTO followups (user_id, due_at, delivered_at) VALUES (?, ?, ?)",
            (ana, now, now),
        )
        await tx.execute(
            "INSERT INTO caring_checks (user_id, claimed_at) VALUES (?, ?)", (ana, now)
        )
    keys = {
        StillThere(Target.USER, ana): True,
        StillThere(Target.USER, ben): False,  # forgotten below, after it was queued
        StillThere(Target.FOLLOWUP, pending): True,
        StillThere(Target.FOLLOWUP, delivered): False,
        StillThere(Target.REMINDER, 999): False,  # never was
        StillThere(Target.HARD_DATE, 999): False,
        StillThere(Target.CARING, ana, now): True,
        StillThere(Target.CARING, ana, now - 60): False,  # an earlier claim, replaced
        StillThere(Target.PLAN_REVIEW, ana): False,  # no note asked for
    }
    adapter = RecordingAdapter()
    outbox = outbox_for(services, clock, {adapter.platform: adapter})
    async with services.db.transaction() as tx:
        queued = await outbox.persist(
            tx, [Outgoing(address, Reply("hi"), guard=key) for key in keys]
        )
        await forget_user(tx, ben)
    ids = {item.outgoing.guard: item.row_id for item in queued.messages}
    before = services.db.statements
    allowed = await services.db.outside_the_writer(  # as the outbox runs it
        partial(
            outbox_rows.let_go,
            asked=list(ids.values()),
            finished=[],
            worker=outbox.worker,
            now=clock.now(),
        )
    )
    # For all of them: one statement on PostgreSQL, one to mark and one to drop on SQLite.
    assert services.db.statements - before == (1 if services.db.dialect.writing_with else 2)
    assert allowed == {ids[key] for key, wanted in keys.items() if wanted}
    rows = await services.db.fetch_all("SELECT id, attempt_at FROM outbox ORDER BY id")
    # The unwanted rows are gone; the others are marked attempted, never sent again.
    assert {row["id"] for row in rows} == allowed
    assert all(row["attempt_at"] == now for row in rows)


async def test_the_outbox_marks_a_round_of_sends_at_once_not_each_message(
    services: Services, clock: ManualClock
) -> None:
    users = await _users(services, clock, USERS)
    gone_id, gone = users.pop()
    async with services.db.transaction() as tx:
        await forget_user(tx, gone_id)
    adapter = RecordingAdapter()
    outbox = outbox_for(services, clock, {adapter.platform: adapter}, sleep=Sleeps())
    await outbox.start()
    try:
        await outbox.enqueue(
            *(
                Outgoing(address, Reply("hello"), guard=StillThere(Target.USER, user_id))
                for user_id, address in [*users, (gone_id, gone)]
            )
        )
        await outbox.drain()
    finally:
        await outbox.stop()
    assert sorted(address.user_id for address, _ in adapter.sent) == sorted(
        address.user_id for _, address in users
    )
    # Every sender about to send is let go at once, and the rows they finished go in
    # the next transaction: a couple of transactions for them all, not one each.
    assert outbox.let_go_rounds <= 2 * math.ceil(USERS / outbox.workers_per_platform)
    left = await services.db.fetch_one("SELECT COUNT(*) AS n FROM outbox")
    assert left is not None and left["n"] == 0


async def test_a_user_forgotten_after_one_round_is_not_sent_to_in_the_next(
    services: Services, clock: ManualClock
) -> None:
    """Each message is checked right before its own send: a forget between two rounds
    stops the messages of the later round."""
    [(ana, ana_address)] = await _users(services, clock, 1)
    adapter = RecordingAdapter()
    outbox = outbox_for(services, clock, {adapter.platform: adapter}, 1, sleep=Sleeps())
    await outbox.start()
    send = adapter.send

    async def forget_after_first(address: Address, reply: Reply) -> object:
        sent = await send(address, reply)
        async with services.db.transaction() as tx:
            await forget_user(tx, ana)
        return sent

    adapter.send = forget_after_first  # type: ignore[assignment, method-assign]
    try:
        for text in ("first", "second"):
            await outbox.enqueue(
                Outgoing(ana_address, Reply(text), guard=StillThere(Target.USER, ana))
            )
        await outbox.drain()
    finally:
        await outbox.stop()
    assert [reply.text for _, reply in adapter.sent] == ["first"]
