"""When a hard date's extra check-ins are sent: the evening before, and the morning of.

Pure functions of the user's settings, no clock and no I/O. What the two moments mean,
on the user's own clock:

* The morning of: at the user's earliest check-in time if it is before noon (a morning
  check-in), otherwise at 09:00.
* The evening before: at the user's latest check-in time if it is 17:00 or later (an
  evening check-in), otherwise at 19:00.

Both keep to quiet hours. A morning inside them moves to the end of the quiet hours, if
that is still before noon; an evening inside them moves to an hour before they begin, if
that is still the afternoon or later. Otherwise that one message is left out and the
other still comes: the day is never announced in the middle of someone's night, and an
evening message never turns into a morning one.

Local times become UTC as check-ins do (`bot.scheduling.rules`): a time in a spring
gap moves forward by the gap, a time in an autumn overlap fires once, at the first.

The days of the week chosen for routine check-ins do not apply: the user asked for
these dates themselves. A pause or a stop does (see `bot.scheduling.hard_date_due`).

A date every year falls on 28 February in years without a 29th. A one-off date also
has an end, the midnight after it, when its row is removed and nothing is sent.
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from bot.scheduling.rules import LocalRule, occurrence_on, zone
from bot.storage.hard_dates import Moment, Upcoming
from bot.storage.users import QuietHours, User

# The planner's own for check-ins (a test holds them equal): a user who gave no time zone
# yet keeps UTC. Not imported from there: the planner imports this module.
FALLBACK_TIMEZONE = "UTC"
NOON = time(12, 0)
EVENING_FROM = time(17, 0)
MORNING_DEFAULT = time(9, 0)
EVENING_DEFAULT = time(19, 0)
BEFORE_QUIET = timedelta(hours=1)
_DAY = timedelta(days=1)
_ANY_DAY = date(2000, 1, 2)  # for arithmetic on a wall time alone
# How many years ahead a date every year is looked for: a few, since 29 February
# falls every year (on the 28th when there is none); a bound, never `while True`.
_YEARS_AHEAD = 3


@dataclass(frozen=True, slots=True)
class DateRule:
    """A day and month, with a year for a one-off date (None: every year)."""

    month: int
    day: int
    year: int | None = None

    def on(self, year: int) -> date:
        """The date in `year`: 29 February is the 28th in a year without one."""
        last = calendar.monthrange(year, self.month)[1]
        return date(year, self.month, min(self.day, last))


def moment_time(
    moment: Moment, checkin_times: Sequence[str], quiet: QuietHours | None
) -> time | None:
    """The local wall time of the evening-before or morning-of message; None when quiet
    hours leave it no place."""
    times = sorted(time.fromisoformat(value) for value in checkin_times)
    if moment is Moment.DAY:
        wall = times[0] if times and times[0] < NOON else MORNING_DEFAULT
        if quiet is not None and quiet.contains(wall):
            wall = quiet.end
            return wall if wall < NOON and not quiet.contains(wall) else None
        return wall
    wall = times[-1] if times and times[-1] >= EVENING_FROM else EVENING_DEFAULT
    if quiet is not None and quiet.contains(wall):
        earlier = datetime.combine(_ANY_DAY, quiet.start) - BEFORE_QUIET
        wall = earlier.time()
        usable = earlier.date() == _ANY_DAY and wall >= NOON and not quiet.contains(wall)
        return wall if usable else None
    return wall


def moment_instant(
    user: User, checkin_times: Sequence[str], moment: Moment, on: date
) -> datetime | None:
    """The UTC instant of `moment` for the date `on`, or None when it has none."""
    zone_name = user.timezone or FALLBACK_TIMEZONE
    if moment is Moment.END:
        # 00:00 may fall in a gap (a zone that springs forward at midnight): then the
        # first minute of the day, as every other local time here.
        return occurrence_on(LocalRule(zone_name, time(0, 0)), on + _DAY)
    wall = moment_time(moment, checkin_times, user.quiet_hours)
    if wall is None:
        return None
    local_date = on - _DAY if moment is Moment.EVE else on
    return occurrence_on(LocalRule(zone_name, wall), local_date)


def moment_date(upcoming: Upcoming) -> date:
    """The local date a moment's message belongs to: the day before for the evening."""
    return upcoming.on - _DAY if upcoming.moment is Moment.EVE else upcoming.on


def next_upcoming(
    user: User, checkin_times: Sequence[str], rule: DateRule, after: datetime
) -> Upcoming | None:
    """The first moment strictly after `after`; None once a one-off date is over."""
    moments: tuple[Moment, ...]
    if rule.year is not None:
        years = [rule.year]
        moments = (Moment.EVE, Moment.DAY, Moment.END)
    else:
        first = after.astimezone(zone(user.timezone or FALLBACK_TIMEZONE)).year
        years = list(range(first, first + _YEARS_AHEAD))
        moments = (Moment.EVE, Moment.DAY)
    for year in years:
        on = rule.on(year)
        for moment in moments:
            instant = moment_instant(user, checkin_times, moment, on)
            if instant is not None and instant > after:
                return Upcoming(instant, moment, on)
    return None


def replanned(
    user: User, checkin_times: Sequence[str], rule: DateRule, pending: Upcoming
) -> Upcoming | None:
    """The pending moment at its time under the user's settings as they are now; the
    moment after it if it has no place any more. Never a moment before the pending one,
    so nothing already sent is sent again. It may lie in the past: the claim then sends
    it at once if it is within the grace window, and skips it otherwise."""
    planned = moment_instant(user, checkin_times, pending.moment, pending.on)
    if planned is not None:
        return Upcoming(planned, pending.moment, pending.on)
    # Only an evening or a morning can lose its place (to quiet hours). After the start
    # of the day comes its morning; after its noon, the next date or the end.
    wall = time(0, 0) if pending.moment is Moment.EVE else NOON
    after = datetime.combine(pending.on, wall, tzinfo=zone(user.timezone or FALLBACK_TIMEZONE))
    return next_upcoming(user, checkin_times, rule, after)


def is_past(rule: DateRule, today: date) -> bool:
    """A one-off date before the user's today (today itself is not past)."""
    return rule.year is not None and rule.on(rule.year) < today
