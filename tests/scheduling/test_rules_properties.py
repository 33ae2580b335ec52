"""Schedule rules over every IANA zone: one instant per scheduled local day, in order,
never at a wall time the zone skipped, never on an unscheduled weekday."""

from __future__ import annotations

import zoneinfo
from datetime import UTC, date, datetime, time, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.scheduling.rules import LocalRule, next_occurrence, occurrence_on, occurrences_between

ZONES = sorted(
    name for name in zoneinfo.available_timezones() if not name.startswith(("posix/", "right/"))
)

rules = st.builds(
    LocalRule,
    timezone=st.sampled_from(ZONES),
    time_of_day=st.times().map(lambda t: t.replace(second=0, microsecond=0)),
    weekdays=st.frozensets(st.integers(0, 6), min_size=1),
)
starts = st.datetimes(datetime(1995, 1, 1), datetime(2036, 12, 31)).map(
    lambda naive: naive.replace(tzinfo=UTC)
)


def shown_on_clocks(wall: datetime, zone: ZoneInfo) -> bool:
    """Whether the zone's clocks showed this naive wall time (it is not in a spring gap)."""
    aware = wall.replace(tzinfo=zone)
    return aware.astimezone(UTC).astimezone(zone).replace(tzinfo=None) == wall


def fires_at_a_real_time(rule: LocalRule, instant: datetime, local_date: date) -> bool:
    """At the rule's wall time when the clocks show it that day; when they skip it, later
    by exactly the time skipped (02:30 in a one-hour gap fires at 03:30)."""
    wall = datetime.combine(local_date, rule.time_of_day)
    local = instant.astimezone(rule.zone).replace(tzinfo=None)
    if shown_on_clocks(wall, rule.zone):
        return local == wall
    shift = local - wall
    before = (instant - shift).astimezone(rule.zone).utcoffset()
    after = instant.astimezone(rule.zone).utcoffset()
    assert before is not None and after is not None
    return timedelta(0) < shift == after - before


@settings(max_examples=150, deadline=None, database=None)
@given(rule=rules, start=starts, days=st.integers(1, 45))
def test_occurrences_are_one_per_scheduled_day_increasing_and_real(
    rule: LocalRule, start: datetime, days: int
) -> None:
    end = start + timedelta(days=days)
    found = occurrences_between(rule, start, end)
    instants = [instant for instant, _ in found]
    local_dates = [local_date for _, local_date in found]

    assert all(a < b for a, b in pairwise(instants))  # strictly increasing
    assert len(set(local_dates)) == len(local_dates)  # never two on one local date
    for instant, local_date in found:
        assert start < instant <= end
        assert local_date.weekday() in rule.weekdays  # only scheduled days
        assert fires_at_a_real_time(rule, instant, local_date)  # never in a gap
        assert occurrence_on(rule, local_date) == instant

    # Every scheduled local date strictly inside the range has its one occurrence.
    first, last = start.astimezone(rule.zone).date(), end.astimezone(rule.zone).date()
    day = first + timedelta(days=1)
    while day < last:
        on_day = occurrence_on(rule, day)
        if day.weekday() in rule.weekdays and on_day is not None and start < on_day <= end:
            assert (on_day, day) in found
        day += timedelta(days=1)


@settings(max_examples=150, deadline=None, database=None)
@given(rule=rules, start=starts)
def test_stepping_with_next_occurrence_walks_the_same_instants(
    rule: LocalRule, start: datetime
) -> None:
    cursor, walked = start, []
    for _ in range(10):
        instant, local_date = next_occurrence(rule, cursor)
        assert instant > cursor
        assert local_date.weekday() in rule.weekdays
        assert fires_at_a_real_time(rule, instant, local_date)
        walked.append((instant, local_date))
        cursor = instant
    assert occurrences_between(rule, start, walked[-1][0]) == walked


def test_the_gap_check_itself_tells_a_skipped_time_from_a_real_one() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    assert not shown_on_clocks(datetime(2026, 3, 29, 2, 30), berlin)  # skipped that night
    assert shown_on_clocks(datetime(2026, 3, 29, 3, 30), berlin)
    rule = LocalRule("Europe/Berlin", time(2, 30))
    fired = occurrence_on(rule, date(2026, 3, 29))
    assert fired == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)  # 03:30 CEST
    assert fires_at_a_real_time(rule, fired, date(2026, 3, 29))
    assert not fires_at_a_real_time(rule, fired + timedelta(hours=1), date(2026, 3, 29))
