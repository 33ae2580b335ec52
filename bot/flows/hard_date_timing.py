"""When a date saved at /dates is kept for, as the flow tells it: today in the user's zone,
the year of a one-off date, what "added" promises and whether check-ins are held back.

When the extra check-ins are sent is `bot.scheduling.hard_date_plan`'s to say.
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from datetime import date

from bot.content_pack.ids import DatesMsg, Msg
from bot.flows.context import FlowContext
from bot.scheduling.hard_date_plan import DateRule, moment_instant
from bot.scheduling.planner import user_zone
from bot.storage import checkin_slots
from bot.storage.hard_dates import Moment, Upcoming
from bot.storage.users import User

# Years between two 29 Februaries, at most (1896 to 1904 had eight; a bound all the same).
_LEAP_CYCLE = 8


def local_today(ctx: FlowContext, user: User) -> date:
    return ctx.now().astimezone(user_zone(user)).date()


def one_off(month: int, day: int, year: int | None, today: date) -> DateRule:
    """A one-off date: in the year given, or the next time the day comes (today included).
    29 February without a year is the next one there is (a leap year's), kept as the
    29th: made yearly again, it stays the 29th."""
    if year is not None:
        return DateRule(month, day, year)
    for candidate in range(today.year, today.year + _LEAP_CYCLE + 1):
        if day <= calendar.monthrange(candidate, month)[1] and date(candidate, month, day) >= today:
            return DateRule(month, day, candidate)
    raise ValueError(f"no {month}-{day} in the years after {today}")  # not a date at all


async def checkin_times(ctx: FlowContext, user: User) -> list[str]:
    return [slot.local_time for slot in await checkin_slots.list_slots(ctx.db, user.id)]


def added_message(user: User, times: Sequence[str], upcoming: Upcoming | None) -> Msg:
    """What "added" promises, true to what comes next: the evening before and the
    morning, one of them (it is too late for the evening, or quiet hours leave one no
    place), or nothing this time (a one-off date whose morning has gone)."""
    if upcoming is None or upcoming.moment is Moment.END:
        return DatesMsg.DATES_ADDED_NONE
    if upcoming.moment is Moment.DAY:
        return DatesMsg.DATES_ADDED_MORNING
    morning = moment_instant(user, times, Moment.DAY, upcoming.on)
    return DatesMsg.DATES_ADDED if morning is not None else DatesMsg.DATES_ADDED_EVENING


def held_back(user: User, upcoming: Upcoming | None) -> bool:
    """Check-ins are stopped, or paused past the next moment: the date's wait too."""
    if upcoming is None or upcoming.moment is Moment.END:
        return False
    paused = user.paused_until is not None and user.paused_until > upcoming.due_at
    return paused or user.checkins_stopped
