"""A kind of due work added from outside: the dispatcher and the outbox stay as they are.

Its messages are outbox rows like any other, so their guard is a `StillThere` target
and their consequence a named `Effect` (here a user, and an effect handled by the
test's own handler)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.delivery.outbox import Outbox
from bot.delivery.outgoing import Effect, Effects, Outgoing
from bot.engine.due_work import due_kinds
from bot.engine.router import Router
from bot.flows.context import Services
from bot.scheduling.dispatcher import Dispatcher
from bot.scheduling.due import Claimed, DueKind, DueKinds
from bot.storage.db import Database, Transaction
from bot.storage.still_there import StillThere, Target
from bot.storage.user_data import forget_user
from bot.storage.users import ensure_user
from tests.helpers.outboxes import outbox_for
from tests.helpers.recording_adapter import RecordingAdapter
from tests.helpers.world import Sleeps

ANA = Address("test", "chat-ana", "ana")
BEN = Address("test", "chat-ben", "ben")


@dataclass
class Letters:
    """A made-up kind: letters due at set times, kept in memory instead of a table."""

    due: list[tuple[datetime, Address]] = field(default_factory=list)
    user_rows: dict[str, int] = field(default_factory=dict)  # platform user id -> row
    delivered: list[int] = field(default_factory=list)

    async def claim(self, tx: Transaction, now: datetime) -> Claimed[Address]:
        taken = [address for when, address in self.due if when <= now]
        self.due = [(when, address) for when, address in self.due if when > now]
        return Claimed(taken)

    async def handle(self, tx: Transaction, due: Sequence[Address]) -> list[Outgoing]:
        return [self._letter(address) for address in due]

    async def next_due(self, db: Database) -> datetime | None:
        return min((when for when, _ in self.due), default=None)

    def _letter(self, address: Address) -> Outgoing:
        return Outgoing(
            address,
            Reply("a letter"),
            guard=StillThere(Target.USER, self.user_rows[address.user_id]),
            on_delivered=Effect.FOLLOWUP_DELIVERED,  # handled by `noted` below
        )

    async def noted(
        self, tx: Transaction, now: datetime, target: StillThere, to: Address
    ) -> Sequence[Outgoing]:
        self.delivered.append(target.id)
        return ()

    def kind(self) -> DueKind[Address]:
        return DueKind("letter", self.claim, self.handle, self.next_due)


async def test_a_registered_kind_is_claimed_sent_and_confirmed(
    services: Services, clock: ManualClock, router: Router
) -> None:
    letters = Letters(due=[(clock.now(), ANA), (clock.now(), BEN)])
    async with services.db.transaction() as tx:
        for address in (ANA, BEN):
            user = await ensure_user(tx, address, "en", clock.now())
            letters.user_rows[address.user_id] = user.id
        await forget_user(tx, letters.user_rows["ben"])  # gone before it is sent: stopped
    kinds = due_kinds(services, router.checkin, router.pause)
    kinds.register(letters.kind())
    adapter = RecordingAdapter()
    outbox = Outbox(
        services.db,
        clock,
        {adapter.platform: adapter},
        sleep=Sleeps(),
        effects=Effects({Effect.FOLLOWUP_DELIVERED: letters.noted}),
    )
    await outbox.start()
    dispatcher = Dispatcher(services.db, clock, outbox, kinds)
    try:
        report = await dispatcher.tick()
        await outbox.drain()
    finally:
        await outbox.stop()
    assert report.handed_over["letter"] == 2
    assert adapter.sent == [(ANA, Reply("a letter"))]
    assert letters.delivered == [letters.user_rows["ana"]]
    assert (await dispatcher.tick()).handed_over["letter"] == 0  # claimed once only


async def test_the_next_wake_up_counts_every_kind(
    services: Services, clock: ManualClock, router: Router
) -> None:
    later = datetime(2026, 3, 2, 9, 45, tzinfo=UTC)
    letters = Letters(due=[(later, ANA)])
    kinds = due_kinds(services, router.checkin, router.pause)
    kinds.register(letters.kind())
    outbox = outbox_for(services, clock, {})
    dispatcher = Dispatcher(services.db, clock, outbox, kinds)
    assert await dispatcher.next_due_at() == later
    letters.due.clear()
    assert await dispatcher.next_due_at() is None


def test_a_kind_is_registered_once() -> None:
    letters = Letters()
    kinds = DueKinds([letters.kind()])
    with pytest.raises(ValueError, match="letter"):
        kinds.register(letters.kind())
    assert kinds.names == ("letter",)


def test_kinds_run_in_the_order_registered(services: Services, router: Router) -> None:
    kinds = due_kinds(services, router.checkin, router.pause, grace=timedelta(hours=2))
    assert kinds.names == (
        "checkin", "followup", "reminder", "plan_review", "caring", "hard_date"
    )  # fmt: skip
