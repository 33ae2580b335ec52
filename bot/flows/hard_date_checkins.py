"""The extra check-ins of /dates' hard days: the message sent the evening before and that
morning, written in the transaction that claimed them.

When they are sent is `bot.scheduling.hard_date_plan`'s to say, and the scheduler's side is
`bot.scheduling.hard_date_due`; the flow that saves the dates is `bot.flows.hard_dates`.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.content_pack.ids import DatesMsg, GeneralMsg, Msg
from bot.core.replies import Button, Reply
from bot.delivery.outgoing import Outgoing
from bot.flows.checkin import CheckIn, CheckInStep, scheduled_question
from bot.flows.context import FlowContext, Services
from bot.flows.typed_labels import Shown
from bot.scheduling.hard_date_due import DateCheckIn
from bot.storage import flow_positions
from bot.storage.db import Transaction
from bot.storage.flow_positions import FlowPosition, Placement, new_token
from bot.storage.hard_dates import DateKind, Moment
from bot.storage.still_there import StillThere, Target

# The words of a date's check-in, by the moment and the kind of day.
_WORDS: dict[tuple[Moment, DateKind], Msg] = {
    (Moment.EVE, DateKind.ANNIVERSARY): DatesMsg.DATES_EVE_ANNIVERSARY,
    (Moment.EVE, DateKind.BIRTHDAY): DatesMsg.DATES_EVE_BIRTHDAY,
    (Moment.EVE, DateKind.HOLIDAY): DatesMsg.DATES_EVE_HOLIDAY,
    (Moment.EVE, DateKind.LEGAL): DatesMsg.DATES_EVE_LEGAL,
    (Moment.EVE, DateKind.CHILDREN): DatesMsg.DATES_EVE_CHILDREN,
    (Moment.EVE, DateKind.OTHER): DatesMsg.DATES_EVE_OTHER,
    (Moment.DAY, DateKind.ANNIVERSARY): DatesMsg.DATES_DAY_ANNIVERSARY,
    (Moment.DAY, DateKind.BIRTHDAY): DatesMsg.DATES_DAY_BIRTHDAY,
    (Moment.DAY, DateKind.HOLIDAY): DatesMsg.DATES_DAY_HOLIDAY,
    (Moment.DAY, DateKind.LEGAL): DatesMsg.DATES_DAY_LEGAL,
    (Moment.DAY, DateKind.CHILDREN): DatesMsg.DATES_DAY_CHILDREN,
    (Moment.DAY, DateKind.OTHER): DatesMsg.DATES_DAY_OTHER,
}

# In discreet mode the words name no kind of day: a lock screen shows a message's first
# lines, and "the court date" or "the handover" there says more than discretion allows.
_DISCREET_WORDS: dict[Moment, Msg] = {
    Moment.EVE: DatesMsg.DATES_EVE_DISCREET,
    Moment.DAY: DatesMsg.DATES_DAY_DISCREET,
}


def while_planned(date_id: int) -> StillThere:
    """A date's check-in is not sent if the date was deleted (or its user forgotten) while
    it waited in the queue."""

    return StillThere(Target.HARD_DATE, date_id)


async def hard_date_checkins(
    services: Services, tx: Transaction, due: Sequence[DateCheckIn]
) -> list[Outgoing]:
    """The extra check-in of each claimed date, in the claiming transaction.

    A neutral first line (a lock screen shows it), the words for that kind of day and
    the user's own label only with discreet mode off (discreet, the words name no kind
    of day: a preview shows more than the first line), then the check-in's own question, which
    puts the user in the check-in as any scheduled one does. When a routine check-in
    opened in this same tick, the words come without a second question.
    """
    now = services.clock.now()
    outgoing: list[Outgoing] = []
    placements: list[Placement] = []
    # Per locale and platform, the question and its buttons are built once (many dates
    # may fall due in the same minute).
    questions: dict[tuple[str, str], tuple[str, Shown]] = {}
    for item in due:
        user = item.user
        ctx = FlowContext(services, user.address, user.locale)
        words = _DISCREET_WORDS[item.moment] if user.discreet else _WORDS[(item.moment, item.kind)]
        parts = [ctx.text(DatesMsg.DATES_OPENING), ctx.text(words)]
        if not user.discreet:
            label = services.cipher.decrypt(item.sealed_label, user.id)
            parts.append(ctx.text(DatesMsg.DATES_YOUR_WORDS, label=label))
        buttons: tuple[tuple[Button, ...], ...] = ()
        if item.asks:
            wording = (user.locale, user.platform)
            if wording not in questions:
                questions[wording] = scheduled_question(ctx)
            question, shown = questions[wording]
            position = FlowPosition(CheckIn.name, CheckInStep.MOOD, new_token(), shown.data())
            placements.append(Placement(user.id, position))
            if item.closes_question:
                parts.append(ctx.text(GeneralMsg.QUESTION_CLOSED_BY_CHECKIN))
            parts.append(question)
            buttons = shown.markup(position)
        else:
            parts.append(ctx.text(DatesMsg.DATES_CHECKIN_ABOVE))
        # protect: with discreet mode off, it quotes the user's own words.
        reply = Reply("\n\n".join(parts), buttons=buttons, protect=not user.discreet)
        outgoing.append(
            Outgoing(user.address, reply, guard=while_planned(item.date_id), user_row_id=user.id)
        )
    await flow_positions.move_many(tx, placements, now)
    return outgoing
