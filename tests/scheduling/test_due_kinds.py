"""A kind of due work added from outside: the dispatcher and the outbox stay as they are."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.delivery.outbox import Outbox, Outgoing
from bot.engine.due_work import due_kinds
from bot.engine.router import Router
from bot.flows.context import Services
from bot.scheduling.dispatcher import Dispatcher
from bot.scheduling.due import Claimed, DueKind, DueKinds
from bot.storage.db import Database, Transaction
from tests.helpers.recording_adapter import RecordingAdapter
from tests.helpers.world import Sleeps

ANA = Address("test", "chat-ana", "ana")
BEN = Address("test", "chat-ben", "ben")


@dataclass
class Letters:
    """A made-up kind: letters due at set times, kept in memory instead of a table."""

    due: list[tuple[datetime, Address]] = field(default_factory=list)
    withdrawn: set[str] = field(default_factory=set)  # user ids whose letter was taken back
    delivered: list[str] = field(default_factory=list)

    async def claim(self, tx: Transaction, now: datetime) -> Claimed[Address]:
        taken = [address for when, address in self.due if when <= now]
        self.due = [(when, address) for when, address in self.due if when > now]
        return Claimed(taken)

    async def handle(self, tx: Transaction, due: Sequence[Address]) -> list[Outgoing]:
        return [self._letter(address) for address in due]

    async def next_due(self, db: Database) -> datetime | None:
        return min((when for when, _ in self.due), default=None)

    def _letter(self, address: Address) -> Outgoing:
        async def still_wanted(db: Database) -> bool:
            return address.user_id not in self.withdrawn

        async def delivered(tx: Transaction, now: datetime) -> None:
            self.delivered.append(address.user_id)

        return Outgoing(address, Reply("a letter"), guard=still_wanted, on_delivered=delivered)

    def kind(self) -> DueKind[Address]:
        return DueKind("letter", self.claim, self.handle, self.next_due)


async def test_a_registered_kind_is_claimed_sent_and_confirmed(
    services: Services, clock: ManualClock, router: Router
) -> None:
    letters = Letters(due=[(clock.now(), ANA), (clock.now(), BEN)])
    letters.withdrawn.add("ben")  # taken back after the claim: its guard stops it
    kinds = due_kinds(services, router.checkin, router.pause)
    kinds.register(letters.kind())
    adapter = RecordingAdapter()
    outbox = Outbox(services.db, clock, {adapter.platform: adapter}, sleep=Sleeps())
    outbox.start()
    dispatcher = Dispatcher(services.db, clock, outbox, kinds)
    try:
        report = await dispatcher.tick()
        await outbox.drain()
    finally:
        await outbox.stop()
    assert report.handed_over["letter"] == 2
    assert adapter.sent == [(ANA, Reply("a letter"))]
    assert letters.delivered == ["ana"]
    assert (await dispatcher.tick()).handed_over["letter"] == 0  # claimed once only


async def test_the_next_wake_up_counts_every_kind(
    services: Services, clock: ManualClock, router: Router
) -> None:
    later = datetime(2026, 3, 2, 9, 45, tzinfo=UTC)
    letters = Letters(due=[(later, ANA)])
    kinds = due_kinds(services, router.checkin, router.pause)
    kinds.register(letters.kind())
    outbox = Outbox(services.db, clock, {})
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
