"""Whether a queued message's target is still there is asked for many messages in one query."""

from __future__ import annotations

import math

import pytest

from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.delivery.outbox import Outbox, Outgoing
from bot.flows.context import Services
from bot.storage import still_there
from bot.storage.queries import to_epoch
from bot.storage.still_there import StillThere, Target
from bot.storage.user_data import forget_user
from bot.storage.users import ensure_user
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


async def test_one_query_answers_for_users_follow_ups_and_reminders(
    services: Services, clock: ManualClock
) -> None:
    [(ana, _), (ben, _)] = await _users(services, clock, 2)
    now = to_epoch(clock.now())
    async with services.db.transaction() as tx:
        pending = await tx.insert(
            "INSERT INTO followups (user_id, due_at) VALUES (?, ?)", (ana, now)
        )
        delivered = await tx.insert(
            "INSERT INTO followups (user_id, due_at, delivered_at) VALUES (?, ?, ?)",
            (ana, now, now),
        )
        await forget_user(tx, ben)
    keys = [
        StillThere(Target.USER, ana),
        StillThere(Target.USER, ben),  # forgotten
        StillThere(Target.FOLLOWUP, pending),
        StillThere(Target.FOLLOWUP, delivered),
        StillThere(Target.REMINDER, 999),  # never was
    ]
    before = services.db.statements
    found = await still_there.present(services.db, keys)
    assert services.db.statements - before == 1
    assert found == {StillThere(Target.USER, ana), StillThere(Target.FOLLOWUP, pending)}
    assert await StillThere(Target.USER, ana)(services.db)
    assert not await StillThere(Target.USER, ben)(services.db)


async def test_the_outbox_asks_once_per_round_of_sends_not_once_per_message(
    services: Services, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    users = await _users(services, clock, USERS)
    gone_id, gone = users.pop()
    async with services.db.transaction() as tx:
        await forget_user(tx, gone_id)
    adapter = RecordingAdapter()
    outbox = Outbox(services.db, clock, {adapter.platform: adapter}, sleep=Sleeps())
    outbox.start()
    asked = 0
    ask = still_there.present

    async def counted(*args: object) -> set[StillThere]:
        nonlocal asked
        asked += 1
        return await ask(*args)  # type: ignore[arg-type]

    still_there.present = counted  # type: ignore[assignment]
    try:
        for user_id, address in [*users, (gone_id, gone)]:
            outbox.enqueue(
                Outgoing(address, Reply("hello"), guard=StillThere(Target.USER, user_id))
            )
        await outbox.drain()
    finally:
        still_there.present = ask  # type: ignore[assignment]
        await outbox.stop()
    assert sorted(address.user_id for address, _ in adapter.sent) == sorted(
        address.user_id for _, address in users
    )
    # Every worker about to send asks at once: one query for them all.
    assert asked == outbox.presence_queries
    assert asked <= math.ceil(USERS / outbox.workers_per_platform)


async def test_a_user_forgotten_after_one_round_is_not_sent_to_in_the_next(
    services: Services, clock: ManualClock
) -> None:
    """Each message is checked right before its own send: a forget between two rounds
    stops the messages of the later round."""
    [(ana, ana_address)] = await _users(services, clock, 1)
    adapter = RecordingAdapter()
    outbox = Outbox(services.db, clock, {adapter.platform: adapter}, 1, sleep=Sleeps())
    outbox.start()
    send = adapter.send

    async def forget_after_first(address: Address, reply: Reply) -> object:
        sent = await send(address, reply)
        async with services.db.transaction() as tx:
            await forget_user(tx, ana)
        return sent

    adapter.send = forget_after_first  # type: ignore[assignment, method-assign]
    try:
        for text in ("first", "second"):
            outbox.enqueue(Outgoing(ana_address, Reply(text), guard=StillThere(Target.USER, ana)))
        await outbox.drain()
    finally:
        await outbox.stop()
    assert [reply.text for _, reply in adapter.sent] == ["first"]
