"""The tick's due work, wired: check-ins, urge follow-ups and group reminders, each bound
to the services here, so the scheduler below knows none of the flows it hands work to."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from bot.core.events import CheckInDue
from bot.delivery.outbox import Outbox, Outgoing
from bot.flows.checkin import CheckIn
from bot.flows.context import Services
from bot.flows.pause import Pause
from bot.reminders.posting import claim_due_reminders
from bot.scheduling.dispatcher import DEFAULT_GRACE, Dispatcher, DueWork
from bot.storage.db import Transaction
from bot.storage.users import User


def build_dispatcher(
    services: Services,
    checkin: CheckIn,
    pause: Pause,
    outbox: Outbox,
    grace: timedelta = DEFAULT_GRACE,
) -> Dispatcher:
    async def start_checkins(tx: Transaction, due: Sequence[CheckInDue]) -> list[Outgoing]:
        return await checkin.start_due(tx, services, due)

    async def send_followups(
        tx: Transaction, claimed: Sequence[tuple[int, User]]
    ) -> list[Outgoing]:
        return await pause.followups_due(tx, services, claimed)

    async def post_reminders(tx: Transaction, now: datetime, late: timedelta) -> list[Outgoing]:
        return await claim_due_reminders(tx, services, now, late)

    work = DueWork(start_checkins, send_followups, post_reminders)
    return Dispatcher(
        services.db, services.clock, work, outbox, step_expiry=services.step_expiry, grace=grace
    )
