"""A message's own hooks: its guard, what happens once delivered, what happens if refused.

Effects are named, so a message read back from the outbox table by another worker
has them too; here each test maps a name to a handler of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.platform import DeliveryUncertain, RecipientUnreachable
from bot.core.replies import Reply
from bot.delivery.outbox import Outbox
from bot.delivery.outgoing import Effect, EffectHandler, Effects, Outgoing
from bot.flows.context import Services
from bot.storage.db import Transaction
from bot.storage.still_there import StillThere, Target
from bot.storage.users import ensure_user, find_user
from tests.helpers.recording_adapter import RecordingAdapter
from tests.helpers.world import Sleeps

GROUP = Address("test", "group-1", "", is_group=True)
ADMIN = Address("test", "chat-admin", "admin")


async def _send(
    services: Services,
    adapter: RecordingAdapter,
    *messages: Outgoing,
    effects: dict[Effect, EffectHandler] | None = None,
) -> None:
    outbox = Outbox(
        services.db,
        services.clock,
        {adapter.platform: adapter},
        sleep=Sleeps(),
        effects=Effects(effects or {}),
    )
    await outbox.start()
    try:
        await outbox.enqueue(*messages)
        await outbox.drain()
    finally:
        await outbox.stop()
    left = await services.db.fetch_one("SELECT COUNT(*) AS n FROM outbox")
    assert left is not None and left["n"] == 0  # every row ends once its message has


async def _user(services: Services, address: Address, clock: ManualClock) -> int:
    async with services.db.transaction() as tx:
        return (await ensure_user(tx, address, "en", clock.now())).id


async def test_a_guard_whose_target_is_gone_keeps_the_message_back(
    services: Services, clock: ManualClock
) -> None:
    admin = await _user(services, ADMIN, clock)
    adapter = RecordingAdapter()
    await _send(
        services,
        adapter,
        Outgoing(ADMIN, Reply("no"), guard=StillThere(Target.USER, admin + 1000)),
        Outgoing(ADMIN, Reply("yes"), guard=StillThere(Target.USER, admin)),
    )
    assert adapter.sent == [(ADMIN, Reply("yes"))]


async def test_on_delivered_runs_for_an_accepted_or_uncertain_send(
    services: Services, clock: ManualClock
) -> None:
    admin = await _user(services, ADMIN, clock)
    seen: list[tuple[int, datetime]] = []

    async def delivered(
        tx: Transaction, now: datetime, target: StillThere, to: Address
    ) -> Sequence[Outgoing]:
        seen.append((target.id, now))
        return ()

    def noting(label: str) -> Outgoing:
        return Outgoing(
            ADMIN,
            Reply(label),
            guard=StillThere(Target.USER, admin),
            on_delivered=Effect.FOLLOWUP_DELIVERED,
        )

    adapter = RecordingAdapter()
    adapter.failures.append(DeliveryUncertain())  # most likely arrived: counted as sent
    await _send(
        services,
        adapter,
        noting("first"),
        noting("second"),
        effects={Effect.FOLLOWUP_DELIVERED: delivered},
    )
    assert seen == [(admin, clock.now()), (admin, clock.now())]
    assert adapter.sent == [(ADMIN, Reply("second"))]


async def test_a_refusal_runs_its_hook_and_sends_what_it_returns(
    services: Services, clock: ManualClock
) -> None:
    group = await _user(services, GROUP, clock)
    refused: list[tuple[datetime, Address]] = []

    async def on_refused(
        tx: Transaction, now: datetime, target: StillThere, to: Address
    ) -> Sequence[Outgoing]:
        refused.append((now, to))
        return [Outgoing(ADMIN, Reply("your group post was refused"))]

    adapter = RecordingAdapter()
    adapter.failures.append(RecipientUnreachable())
    post = Outgoing(
        GROUP,
        Reply("post"),
        guard=StillThere(Target.USER, group),
        on_refused=Effect.REMINDER_REFUSED,
    )
    await _send(services, adapter, post, effects={Effect.REMINDER_REFUSED: on_refused})
    assert refused == [(clock.now(), GROUP)]
    assert adapter.sent == [(ADMIN, Reply("your group post was refused"))]
    found = await find_user(services.db, GROUP.platform, GROUP.user_id)
    assert found is not None and found.unreachable_since is None  # the hook replaced that
