"""The /plan's four-weekly note: its buttons, the notes the scheduler has fall due, what a
delivered one moves on, and turning the notes on or off for a user.

What a press of the note's buttons does is `Plan.note_pressed` (`bot.flows.plan`); the
scheduler's side is `bot.scheduling.plan_review_due` (when the next one falls due).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.content_pack.ids import PlanMsg
from bot.core.events import Address
from bot.core.replies import Button, Reply
from bot.delivery.outgoing import Effect, Outgoing
from bot.flows.context import FlowContext, Services
from bot.scheduling.plan_review_due import review_after
from bot.scheduling.planner import in_quiet_hours
from bot.storage import checkin_slots, safety_plans
from bot.storage.db import Transaction
from bot.storage.still_there import StillThere, Target
from bot.storage.users import User

# The four-weekly note's buttons are static, as the crisis reply's are: the note changes
# no one's place in a conversation, so a question it arrives beside stays open. Only
# "Review" moves on, into the plan, because the user asked for that.
NOTE_REVIEW = "plan:review"
NOTE_LATER = "plan:later"
NOTE_STOP = "plan:stop"
NOTE_BUTTONS = frozenset({NOTE_REVIEW, NOTE_LATER, NOTE_STOP})


async def set_notes(ctx: FlowContext, on: bool) -> None:
    """The note on (next due four weeks on, at the user's earliest check-in time) or off."""
    user = await ctx.ensure_user()
    due = None
    if on:
        times = [slot.local_time for slot in await checkin_slots.list_slots(ctx.db, user.id)]
        due = review_after(user, min(times, default=None), ctx.now())
    async with ctx.db.transaction() as tx:
        await safety_plans.set_review(tx, user.id, due)


async def reviews_due(tx: Transaction, services: Services, users: Sequence[User]) -> list[Outgoing]:
    """The four-weekly note for each claimed user. Built from the claimed rows alone:
    nobody is looked up or created here, and nobody's place in a conversation moves."""
    now = services.clock.now()
    outgoing = []
    for user in users:
        ctx = FlowContext(services, user.address, user.locale)
        buttons = tuple(
            (Button(ctx.text(label), data),)
            for label, data in (
                (PlanMsg.PLAN_REVIEW_GO, NOTE_REVIEW),
                (PlanMsg.PLAN_REVIEW_LATER, NOTE_LATER),
                (PlanMsg.PLAN_REVIEW_STOP, NOTE_STOP),
            )
        )
        # Its first line says nothing a lock screen should not show.
        reply = Reply(
            ctx.text(PlanMsg.PLAN_REVIEW_NOTE), buttons=buttons, silent=in_quiet_hours(user, now)
        )
        outgoing.append(_review_outgoing(user, reply))
    return outgoing


def _review_outgoing(user: User, reply: Reply) -> Outgoing:
    """Not sent once the user stopped the notes, deleted the plan or was forgotten."""
    # The note's row goes with the plan, and the plan with the user: one test covers all.
    wanted = StillThere(Target.PLAN_REVIEW, user.id)
    return Outgoing(user.address, reply, guard=wanted, on_delivered=Effect.PLAN_REVIEW_SENT)


async def review_sent(
    tx: Transaction, now: datetime, review: StillThere, to: Address
) -> Sequence[Outgoing]:
    await safety_plans.mark_review_sent(tx, review.id, now)
    return ()
