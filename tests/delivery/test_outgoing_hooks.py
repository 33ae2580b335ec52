"""A message's own hooks: its guard, what happens once delivered, what happens if refused."""

from __future__ import annotations

from datetime import datetime

from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.platform import DeliveryUncertain, RecipientUnreachable
from bot.core.replies import Reply
from bot.delivery.outbox import Outbox, Outgoing
from bot.flows.context import Services
from bot.storage.db import Database, Transaction
from bot.storage.users import ensure_user, find_user
from tests.helpers.recording_adapter import RecordingAdapter
from tests.helpers.world import Sleeps

GROUP = Address("test", "group-1", "", is_group=True)
ADMIN = Address("test", "chat-admin", "admin")


async def _send(services: Services, adapter: RecordingAdapter, *messages: Outgoing) -> None:
    outbox = Outbox(services.db, services.clock, {adapter.platform: adapter}, sleep=Sleeps())
    outbox.start()
    for message in messages:
        outbox.enqueue(message)
    try:
        await outbox.drain()
    finally:
        await outbox.stop()


async def _never(db: Database) -> bool:
    return False


async def test_a_guard_that_says_no_keeps_the_message_back(services: Services) -> None:
    adapter = RecordingAdapter()
    await _send(
        services, adapter, Outgoing(ADMIN, Reply("no"), guard=_never), Outgoing(ADMIN, Reply("yes"))
    )
    assert adapter.sent == [(ADMIN, Reply("yes"))]


async def test_on_delivered_runs_for_an_accepted_or_uncertain_send(
    services: Services, clock: ManualClock
) -> None:
    seen: list[tuple[str, datetime]] = []

    def noting(label: str) -> Outgoing:
        async def delivered(tx: Transaction, now: datetime) -> None:
            seen.append((label, now))

        return Outgoing(ADMIN, Reply(label), on_delivered=delivered)

    adapter = RecordingAdapter()
    adapter.failures.append(DeliveryUncertain())  # most likely arrived: counted as sent
    await _send(services, adapter, noting("first"), noting("second"))
    assert seen == [("first", clock.now()), ("second", clock.now())]
    assert adapter.sent == [(ADMIN, Reply("second"))]


async def test_a_refusal_runs_its_hook_and_sends_what_it_returns(
    services: Services, clock: ManualClock
) -> None:
    async with services.db.transaction() as tx:
        await ensure_user(tx, GROUP, "en", clock.now())
    refused: list[datetime] = []

    async def on_refused(tx: Transaction, now: datetime) -> list[Outgoing]:
        refused.append(now)
        return [Outgoing(ADMIN, Reply("your group post was refused"))]

    adapter = RecordingAdapter()
    adapter.failures.append(RecipientUnreachable())
    await _send(services, adapter, Outgoing(GROUP, Reply("post"), on_refused=on_refused))
    assert refused == [clock.now()]
    assert adapter.sent == [(ADMIN, Reply("your group post was refused"))]
    group = await find_user(services.db, GROUP.platform, GROUP.user_id)
    assert group is not None and group.unreachable_since is None  # the hook replaced that
