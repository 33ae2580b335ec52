"""When a user's check-in slot fires next, from their settings and the rules of local time."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from bot.scheduling.hard_date_plan import DateRule, replanned
from bot.scheduling.rules import LocalRule, next_occurrence, zone
from bot.storage import checkin_slots, hard_dates
from bot.storage.checkin_slots import SlotPlan
from bot.storage.db import Database, Transaction
from bot.storage.users import QuietHours, User, get_user

FALLBACK_TIMEZONE = "UTC"  # a user who set a time before a time zone
# Distinct (zone, time, weekdays, instant, last date) answers kept: more than one
# minute's worth of due slots ever needs (20 zones x 1,440 minutes x a few day sets
# would, but a tick's slots share a handful of instants and dates).
NEXT_LOCAL_TIMES_KEPT = 8192
_JUST_BEFORE = timedelta(seconds=1)


def user_zone(user: User) -> ZoneInfo:
    return zone(user.timezone or FALLBACK_TIMEZONE)


def plan_slot(
    user: User, local_time: str, not_before: datetime, last_local_date: date | None
) -> tuple[datetime, date] | None:
    """The next (UTC instant, local date) at or after `not_before`, or None while stopped.

    Never a local date at or before `last_local_date`: that date's check-in
    was already claimed, and a slot fires at most once per local date. A
    pause ends at `paused_until`; a slot at that very minute fires.
    """
    if user.checkins_stopped:
        return None
    start = not_before if user.paused_until is None else max(not_before, user.paused_until)
    return next_local_time(
        user.timezone or FALLBACK_TIMEZONE, local_time, user.weekdays, start, last_local_date
    )


@lru_cache(maxsize=NEXT_LOCAL_TIMES_KEPT)
def next_local_time(
    timezone: str,
    local_time: str,
    weekdays: frozenset[int],
    not_before: datetime,
    last_local_date: date | None,
) -> tuple[datetime, date]:
    """`plan_rule` for a slot's rule, worked out once per distinct question.

    Thousands of slots claimed in the same minute share a few hundred (zone, time,
    weekdays): the tick asks each of those once. The answer depends on nothing
    but these arguments, and the instant and the last date are among them, so a
    kept answer is never read for another moment (DST changes included).
    """
    rule = LocalRule(timezone, time.fromisoformat(local_time), weekdays)
    return plan_rule(rule, not_before, last_local_date)


def plan_rule(
    rule: LocalRule, not_before: datetime, last_local_date: date | None
) -> tuple[datetime, date]:
    """The rule's next (UTC instant, local date) at or after `not_before`, on a local date
    after `last_local_date`: check-in slots and group reminders share this."""
    # Whole minutes: one second earlier turns "strictly after" into "at or after".
    instant, local_date = next_occurrence(rule, not_before - _JUST_BEFORE)
    while last_local_date is not None and local_date <= last_local_date:
        instant, local_date = next_occurrence(rule, instant)
    return instant, local_date


async def reschedule_user(tx: Transaction, user_id: int, now: datetime) -> None:
    """Recompute every slot of the user after their settings changed.

    Strictly after `now`: saving 09:00 at 09:00 means tomorrow, not this instant.
    """
    user = await get_user(tx, user_id)
    if user is None:
        return
    plans = []
    for slot in await checkin_slots.list_slots(tx, user_id):
        planned = plan_slot(user, slot.local_time, now + _JUST_BEFORE, slot.last_local_date)
        due, local_date = planned if planned is not None else (None, None)
        plans.append(SlotPlan(slot.id, due, local_date))
    await checkin_slots.save_plans(tx, plans)
    await _replan_hard_dates(tx, user)


async def _replan_hard_dates(tx: Transaction, user: User) -> None:
    """A hard date's next check-in follows a new check-in time, time zone or quiet hours."""
    times = [slot.local_time for slot in await checkin_slots.list_slots(tx, user.id)]
    pending = await hard_dates.pending_moments(tx, user.id)
    await hard_dates.move_on(
        tx,
        [
            (date_id, replanned(user, times, DateRule(*on), upcoming))
            for date_id, on, upcoming in pending
        ],
    )


def out_of_quiet_hours(user: User, instant: datetime) -> datetime:
    """`instant`, or the end of the user's quiet hours if it falls inside them."""
    quiet = user.quiet_hours
    if quiet is None:
        return instant
    local = instant.astimezone(user_zone(user))
    if not quiet.contains(local.time()):
        return instant
    end = local.replace(hour=quiet.end.hour, minute=quiet.end.minute, second=0, microsecond=0)
    if end <= local:
        end += timedelta(days=1)
    return end.astimezone(instant.tzinfo)


def in_quiet_hours(user: User, instant: datetime) -> bool:
    quiet: QuietHours | None = user.quiet_hours
    return quiet is not None and quiet.contains(instant.astimezone(user_zone(user)).time())


def start_of_next_local_day(user: User, instant: datetime) -> datetime:
    local = instant.astimezone(user_zone(user))
    tomorrow = datetime.combine(local.date() + timedelta(days=1), time(0), tzinfo=local.tzinfo)
    return tomorrow.astimezone(instant.tzinfo)


async def schedule_unplanned(db: Database, now: datetime) -> int:
    """Give a next due time to every slot that has none while its user is not stopped.

    Such slots come from an upgrade (migration 0002 copied the old single
    check-in time) or an interrupted change; without this they would never fire.
    """
    user_ids = await checkin_slots.users_with_unplanned_slots(db)
    if user_ids:
        async with db.transaction() as tx:
            for user_id in user_ids:
                await reschedule_user(tx, user_id, now)
    return len(user_ids)
