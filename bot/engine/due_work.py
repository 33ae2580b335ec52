"""Every kind of due work the scheduler runs, wired to the flows that handle it.

The order here is the order in which a tick claims them and queues their
messages. A new kind of scheduled message is registered with one line here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from functools import partial

from bot.core.events import CheckInDue
from bot.delivery.outbox import Outbox
from bot.delivery.outgoing import Effect, Effects, Outgoing
from bot.flows.caring import caring_handler
from bot.flows.checkin import CheckIn, CheckInStep
from bot.flows.context import Services
from bot.flows.hard_date_checkins import hard_date_checkins
from bot.flows.pause import Pause
from bot.flows.pause_steps import PauseStep
from bot.flows.plan_review_note import review_sent, reviews_due
from bot.reminders.posting import reminder_kind, reminder_refused
from bot.scheduling.caring_due import caring_ended, caring_kind, caring_refused
from bot.scheduling.checkin_due import CheckInFlow, checkin_kind
from bot.scheduling.dispatcher import Dispatcher
from bot.scheduling.due import DueKinds
from bot.scheduling.followup_due import FollowupStep, followup_delivered, followup_kind
from bot.scheduling.hard_date_due import hard_date_kind
from bot.scheduling.plan_review_due import plan_review_kind
from bot.storage.db import Transaction
from bot.storage.users import User

DEFAULT_GRACE = timedelta(hours=2)


def due_kinds(
    services: Services, checkin: CheckIn, pause: Pause, grace: timedelta = DEFAULT_GRACE
) -> DueKinds:
    checkin_flow = CheckInFlow(CheckIn.name, first_step=CheckInStep.MOOD)

    async def start_checkins(tx: Transaction, due: Sequence[CheckInDue]) -> list[Outgoing]:
        return await checkin.start_due(tx, services, due)

    async def ask_followups(tx: Transaction, claimed: Sequence[tuple[int, User]]) -> list[Outgoing]:
        return await pause.followups_due(tx, services, claimed)

    async def offer_plan_reviews(tx: Transaction, claimed: Sequence[User]) -> list[Outgoing]:
        return await reviews_due(tx, services, claimed)

    return DueKinds(
        [
            checkin_kind(checkin_flow, start_checkins, grace, services.step_expiry),
            followup_kind(
                checkin_flow,
                FollowupStep(Pause.name, PauseStep.FOLLOWUP),
                ask_followups,
            ),
            reminder_kind(services, grace),
            plan_review_kind(checkin_flow, offer_plan_reviews, grace),
            caring_kind(caring_handler(services)),
            hard_date_kind(
                checkin_flow, partial(hard_date_checkins, services), grace, services.step_expiry
            ),
        ]
    )


def outbox_effects(services: Services) -> Effects:
    """What each named effect of a sent or refused message does (see `Effect`)."""
    return Effects(
        {
            Effect.FOLLOWUP_DELIVERED: followup_delivered,
            Effect.CARING_ENDED: caring_ended,
            Effect.CARING_REFUSED: caring_refused,
            Effect.PLAN_REVIEW_SENT: review_sent,
            Effect.REMINDER_REFUSED: reminder_refused(services),
        }
    )


def build_dispatcher(
    services: Services,
    checkin: CheckIn,
    pause: Pause,
    outbox: Outbox,
    grace: timedelta = DEFAULT_GRACE,
) -> Dispatcher:
    """The dispatcher with every kind registered, feeding `outbox`."""
    return Dispatcher(
        services.db,
        services.clock,
        outbox,
        due_kinds(services, checkin, pause, grace),
        services.metrics,
    )
