"""Local schedule rules to UTC instants, pinned with instants worked out by hand.

Every expected instant below is written out in UTC so a change in DST policy
(or in zoneinfo) shows up as a failing literal, not as a shifted assumption.
"""

from __future__ import annotations

import zoneinfo
from datetime import UTC, date, datetime, time, timedelta
from itertools import combinations, pairwise
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.scheduling.rules import (
    LocalRule,
    format_weekdays,
    next_occurrence,
    occurrence_on,
    occurrences_between,
    parse_weekdays,
)

MON_FRI = frozenset(range(5))


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


def rule(tz: str, hour: int, minute: int = 0, days: frozenset[int] | None = None) -> LocalRule:
    if days is None:
        return LocalRule(tz, time(hour, minute))
    return LocalRule(tz, time(hour, minute), days)


def on(tz: str, day: date, hour: int, minute: int = 0) -> datetime | None:
    return occurrence_on(rule(tz, hour, minute), day)


# --- zoneinfo behaviour the implementation relies on -------------------------


def test_zoneinfo_fold0_in_a_gap_uses_the_pre_transition_offset() -> None:
    # The whole gap policy rests on this: 02:30 does not exist in Berlin on
    # 2024-03-31; read with fold=0 it takes CET (+01:00), i.e. 01:30 UTC,
    # which is 03:30 CEST on the wall. fold=1 would go backwards to 01:30 CET.
    berlin = ZoneInfo("Europe/Berlin")
    wall = datetime(2024, 3, 31, 2, 30, tzinfo=berlin)
    assert wall.astimezone(UTC) == utc(2024, 3, 31, 1, 30)
    assert wall.astimezone(UTC).astimezone(berlin).replace(tzinfo=None) == datetime(
        2024, 3, 31, 3, 30
    )
    assert wall.replace(fold=1).astimezone(UTC) == utc(2024, 3, 31, 0, 30)


def test_zoneinfo_fold0_in_an_overlap_is_the_first_occurrence() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    wall = datetime(2024, 10, 27, 2, 30, tzinfo=berlin)
    assert wall.astimezone(UTC) == utc(2024, 10, 27, 0, 30)
    assert wall.replace(fold=1).astimezone(UTC) == utc(2024, 10, 27, 1, 30)


# --- Europe/Berlin ------------------------------------------------------------


def test_berlin_ordinary_days_winter_and_summer() -> None:
    assert on("Europe/Berlin", date(2024, 1, 15), 8, 30) == utc(2024, 1, 15, 7, 30)
    assert on("Europe/Berlin", date(2024, 6, 3), 8, 30) == utc(2024, 6, 3, 6, 30)


def test_berlin_spring_forward_gap_fires_once_shifted_forward() -> None:
    # 02:00 CET -> 03:00 CEST on 2024-03-31; 02:30 is shifted to 03:30 CEST.
    assert on("Europe/Berlin", date(2024, 3, 30), 2, 30) == utc(2024, 3, 30, 1, 30)
    assert on("Europe/Berlin", date(2024, 3, 31), 2, 30) == utc(2024, 3, 31, 1, 30)
    assert on("Europe/Berlin", date(2024, 4, 1), 2, 30) == utc(2024, 4, 1, 0, 30)
    got = occurrences_between(rule("Europe/Berlin", 2, 30), utc(2024, 3, 30), utc(2024, 4, 2))
    assert got == [
        (utc(2024, 3, 30, 1, 30), date(2024, 3, 30)),
        (utc(2024, 3, 31, 1, 30), date(2024, 3, 31)),
        (utc(2024, 4, 1, 0, 30), date(2024, 4, 1)),
    ]


def test_berlin_gap_edges() -> None:
    # 02:00 is the first missing minute (-> 03:00 CEST); 03:00 exists and is
    # the same instant, which is fine: they are different rules.
    assert on("Europe/Berlin", date(2024, 3, 31), 2, 0) == utc(2024, 3, 31, 1, 0)
    assert on("Europe/Berlin", date(2024, 3, 31), 3, 0) == utc(2024, 3, 31, 1, 0)
    assert on("Europe/Berlin", date(2024, 3, 31), 1, 59) == utc(2024, 3, 31, 0, 59)


def test_berlin_fall_back_overlap_fires_once_at_first_occurrence() -> None:
    # 03:00 CEST -> 02:00 CET on 2024-10-27; 02:30 happens at 00:30 and 01:30 UTC.
    assert on("Europe/Berlin", date(2024, 10, 27), 2, 30) == utc(2024, 10, 27, 0, 30)
    got = occurrences_between(rule("Europe/Berlin", 2, 30), utc(2024, 10, 26), utc(2024, 10, 29))
    assert got == [
        (utc(2024, 10, 26, 0, 30), date(2024, 10, 26)),
        (utc(2024, 10, 27, 0, 30), date(2024, 10, 27)),
        (utc(2024, 10, 28, 1, 30), date(2024, 10, 28)),
    ]


def test_berlin_next_occurrence_skips_the_second_pass_of_the_overlap() -> None:
    # Just after the first 02:30, the second 02:30 (01:30 UTC) is not a new
    # occurrence for the same local date; the next one is the following day.
    r = rule("Europe/Berlin", 2, 30)
    assert next_occurrence(r, utc(2024, 10, 27, 0, 30)) == (
        utc(2024, 10, 28, 1, 30),
        date(2024, 10, 28),
    )
    assert next_occurrence(r, utc(2024, 10, 27, 1, 0)) == (
        utc(2024, 10, 28, 1, 30),
        date(2024, 10, 28),
    )


# --- America/New_York ---------------------------------------------------------


def test_new_york_ordinary_day() -> None:
    assert on("America/New_York", date(2024, 7, 1), 8, 30) == utc(2024, 7, 1, 12, 30)
    assert on("America/New_York", date(2024, 1, 8), 8, 30) == utc(2024, 1, 8, 13, 30)


def test_new_york_spring_forward_gap_fires_once_shifted_forward() -> None:
    # 02:00 EST -> 03:00 EDT on 2024-03-10; 02:30 is shifted to 03:30 EDT.
    got = occurrences_between(rule("America/New_York", 2, 30), utc(2024, 3, 9), utc(2024, 3, 12))
    assert got == [
        (utc(2024, 3, 9, 7, 30), date(2024, 3, 9)),
        (utc(2024, 3, 10, 7, 30), date(2024, 3, 10)),
        (utc(2024, 3, 11, 6, 30), date(2024, 3, 11)),
    ]


def test_new_york_fall_back_overlap_fires_once_at_first_occurrence() -> None:
    # 02:00 EDT -> 01:00 EST on 2024-11-03; 01:30 happens at 05:30 and 06:30 UTC.
    got = occurrences_between(rule("America/New_York", 1, 30), utc(2024, 11, 2), utc(2024, 11, 5))
    assert got == [
        (utc(2024, 11, 2, 5, 30), date(2024, 11, 2)),
        (utc(2024, 11, 3, 5, 30), date(2024, 11, 3)),
        (utc(2024, 11, 4, 6, 30), date(2024, 11, 4)),
    ]


# --- Fractional offsets -------------------------------------------------------


def test_kolkata_half_hour_offset() -> None:
    assert on("Asia/Kolkata", date(2024, 3, 10), 8, 30) == utc(2024, 3, 10, 3, 0)
    assert on("Asia/Kolkata", date(2024, 3, 10), 2, 0) == utc(2024, 3, 9, 20, 30)


def test_kathmandu_45_minute_offset() -> None:
    assert on("Asia/Kathmandu", date(2024, 3, 10), 8, 30) == utc(2024, 3, 10, 2, 45)


def test_eucla_occurrence_falls_on_the_previous_utc_date() -> None:
    # +08:45: 08:30 local on 3 June is 23:45 UTC on 2 June.
    r = rule("Australia/Eucla", 8, 30)
    assert occurrence_on(r, date(2024, 6, 3)) == utc(2024, 6, 2, 23, 45)
    # `after` is already 3 June locally (07:45); the occurrence is the same day.
    assert next_occurrence(r, utc(2024, 6, 2, 23, 0)) == (utc(2024, 6, 2, 23, 45), date(2024, 6, 3))


def test_lord_howe_half_hour_dst_start() -> None:
    # 02:00 +10:30 -> 02:30 +11:00 on Sunday 2024-10-06: 02:00-02:29 do not exist.
    tz = "Australia/Lord_Howe"
    day = date(2024, 10, 6)
    assert on(tz, day, 2, 15) == utc(2024, 10, 5, 15, 45)  # shown as 02:45 +11:00
    assert on(tz, day, 2, 0) == utc(2024, 10, 5, 15, 30)  # shown as 02:30 +11:00
    assert on(tz, day, 2, 30) == utc(2024, 10, 5, 15, 30)
    assert on(tz, day, 1, 59) == utc(2024, 10, 5, 15, 29)
    assert on(tz, date(2024, 10, 5), 2, 15) == utc(2024, 10, 4, 15, 45)
    assert on(tz, date(2024, 10, 7), 2, 15) == utc(2024, 10, 6, 15, 15)
    shifted = on(tz, day, 2, 15)
    assert shifted is not None
    assert shifted.astimezone(ZoneInfo(tz)).time() == time(2, 45)
    got = occurrences_between(rule(tz, 2, 15), utc(2024, 10, 4, 12), utc(2024, 10, 6, 16))
    assert got == [
        (utc(2024, 10, 4, 15, 45), date(2024, 10, 5)),
        (utc(2024, 10, 5, 15, 45), date(2024, 10, 6)),
        (utc(2024, 10, 6, 15, 15), date(2024, 10, 7)),
    ]


def test_lord_howe_half_hour_dst_end() -> None:
    # 02:00 +11:00 -> 01:30 +10:30 on Sunday 2024-04-07: 01:30-01:59 happen twice.
    tz = "Australia/Lord_Howe"
    day = date(2024, 4, 7)
    assert on(tz, day, 1, 45) == utc(2024, 4, 6, 14, 45)  # first pass, +11:00
    assert on(tz, day, 1, 30) == utc(2024, 4, 6, 14, 30)
    assert on(tz, day, 2, 0) == utc(2024, 4, 6, 15, 30)  # once, +10:30
    assert on(tz, day, 1, 29) == utc(2024, 4, 6, 14, 29)
    got = occurrences_between(rule(tz, 1, 45), utc(2024, 4, 5), utc(2024, 4, 8))
    assert got == [
        (utc(2024, 4, 5, 14, 45), date(2024, 4, 6)),
        (utc(2024, 4, 6, 14, 45), date(2024, 4, 7)),
        (utc(2024, 4, 7, 15, 15), date(2024, 4, 8)),
    ]


# --- Whole days skipped by a zone ---------------------------------------------


def test_apia_skipped_friday_has_no_occurrence() -> None:
    # Samoa went from 2011-12-29 23:59 -10:00 straight to 2011-12-31 00:00 +14:00.
    # Shifting 12-30 09:00 forward by the 24-hour gap would be 12-31 09:00, the
    # next day's occurrence: a duplicate. So the skipped date fires nothing.
    r = rule("Pacific/Apia", 9)
    assert occurrence_on(r, date(2011, 12, 29)) == utc(2011, 12, 29, 19, 0)
    assert occurrence_on(r, date(2011, 12, 30)) is None
    assert occurrence_on(r, date(2011, 12, 31)) == utc(2011, 12, 30, 19, 0)
    assert occurrences_between(r, utc(2011, 12, 29), utc(2012, 1, 1)) == [
        (utc(2011, 12, 29, 19, 0), date(2011, 12, 29)),
        (utc(2011, 12, 30, 19, 0), date(2011, 12, 31)),
        (utc(2011, 12, 31, 19, 0), date(2012, 1, 1)),
    ]


def test_apia_friday_only_rule_steps_over_the_skipped_friday() -> None:
    # Needs more than 8 days of look-ahead: the Friday in the window is gone.
    r = rule("Pacific/Apia", 9, days=frozenset({4}))
    assert next_occurrence(r, utc(2011, 12, 24)) == (utc(2012, 1, 5, 19, 0), date(2012, 1, 6))


def test_gap_across_midnight_belongs_to_the_previous_local_date() -> None:
    # Toronto, 1919-03-30: 23:30 EST jumped to 00:30 EDT on the 31st. A 23:45
    # rule on the 30th is shifted to 00:45 on the 31st but still belongs to the
    # 30th, so the search has to start a day before the local date of `after`.
    r = rule("America/Toronto", 23, 45)
    assert occurrence_on(r, date(1919, 3, 30)) == utc(1919, 3, 31, 4, 45)
    after = utc(1919, 3, 31, 4, 40)  # 00:40 EDT on the 31st
    assert next_occurrence(r, after) == (utc(1919, 3, 31, 4, 45), date(1919, 3, 30))
    assert occurrences_between(r, after, utc(1919, 4, 1, 12)) == [
        (utc(1919, 3, 31, 4, 45), date(1919, 3, 30)),
        (utc(1919, 4, 1, 3, 45), date(1919, 3, 31)),
    ]


# --- Weekdays and boundaries --------------------------------------------------


def test_weekday_filter() -> None:
    r = rule("Europe/Berlin", 9, days=MON_FRI)
    assert occurrence_on(r, date(2024, 6, 7)) == utc(2024, 6, 7, 7, 0)  # Friday
    assert occurrence_on(r, date(2024, 6, 8)) is None  # Saturday
    assert occurrence_on(r, date(2024, 6, 9)) is None  # Sunday
    # Friday 09:00 has passed: the next one is Monday.
    assert next_occurrence(r, utc(2024, 6, 7, 7, 0, 1)) == (
        utc(2024, 6, 10, 7, 0),
        date(2024, 6, 10),
    )
    got = occurrences_between(r, utc(2024, 6, 3), utc(2024, 6, 17))
    assert [d.weekday() for _, d in got] == [0, 1, 2, 3, 4] * 2


def test_next_occurrence_is_strictly_after() -> None:
    r = rule("Europe/Berlin", 8, 30)
    at = utc(2024, 6, 3, 6, 30)
    assert next_occurrence(r, at - timedelta(microseconds=1)) == (at, date(2024, 6, 3))
    assert next_occurrence(r, at) == (utc(2024, 6, 4, 6, 30), date(2024, 6, 4))


def test_next_occurrence_accepts_any_aware_after() -> None:
    r = rule("Europe/Berlin", 8, 30)
    tokyo = datetime(2024, 6, 3, 15, 0, tzinfo=ZoneInfo("Asia/Tokyo"))  # 06:00 UTC
    assert next_occurrence(r, tokyo) == (utc(2024, 6, 3, 6, 30), date(2024, 6, 3))


def test_occurrences_between_bounds_are_exclusive_inclusive() -> None:
    r = rule("Europe/Berlin", 8, 30)
    first, second = utc(2024, 6, 3, 6, 30), utc(2024, 6, 4, 6, 30)
    assert occurrences_between(r, first, second) == [(second, date(2024, 6, 4))]
    assert occurrences_between(r, second, first) == []
    assert occurrences_between(r, first, first) == []


def test_occurrences_between_across_dst_is_one_per_local_day() -> None:
    r = rule("Europe/Berlin", 2, 30)
    got = occurrences_between(r, utc(2024, 3, 20), utc(2024, 4, 10))
    days = [d for _, d in got]
    assert days == [date(2024, 3, 20) + timedelta(days=i) for i in range(21)]
    instants = [t for t, _ in got]
    assert instants == sorted(set(instants))


def test_naive_datetimes_are_rejected() -> None:
    r = rule("Europe/Berlin", 8)
    with pytest.raises(ValueError, match="aware"):
        next_occurrence(r, datetime(2024, 6, 3))
    with pytest.raises(ValueError, match="aware"):
        occurrences_between(r, datetime(2024, 6, 3), utc(2024, 6, 4))


# --- LocalRule validation -----------------------------------------------------


@pytest.mark.parametrize("tz", ["", "Nope/Zone", "Europe", "../etc/passwd", "/etc/localtime"])
def test_rule_rejects_bad_timezones(tz: str) -> None:
    with pytest.raises(ValueError, match="timezone"):
        LocalRule(tz, time(8))


def test_rule_rejects_bad_weekdays_and_aware_times() -> None:
    with pytest.raises(ValueError, match="empty"):
        LocalRule("UTC", time(8), frozenset())
    with pytest.raises(ValueError, match="0"):
        LocalRule("UTC", time(8), frozenset({7}))
    with pytest.raises(ValueError, match="naive"):
        LocalRule("UTC", time(8, tzinfo=UTC))


def test_rule_ignores_fold_on_the_time() -> None:
    # time(fold=1) would otherwise select the second pass of an overlap.
    r = LocalRule("Europe/Berlin", time(2, 30, fold=1))
    assert r.time_of_day.fold == 0
    assert occurrence_on(r, date(2024, 10, 27)) == utc(2024, 10, 27, 0, 30)


def test_rule_is_frozen_and_hashable() -> None:
    r = LocalRule("Europe/Berlin", time(8), MON_FRI)
    assert r == LocalRule("Europe/Berlin", time(8), frozenset({0, 1, 2, 3, 4}))
    assert hash(r) == hash(LocalRule("Europe/Berlin", time(8), MON_FRI))
    with pytest.raises(AttributeError):
        r.timezone = "UTC"  # type: ignore[misc]


# --- parse_weekdays / format_weekdays ------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("daily", frozenset(range(7))),
        ("mon-fri", MON_FRI),
        ("  Mon - FRI ", MON_FRI),
        ("weekdays", MON_FRI),
        ("mon,wed,fri", frozenset({0, 2, 4})),
        ("mon , wed,  fri", frozenset({0, 2, 4})),
        ("mon wed fri", frozenset({0, 2, 4})),
        ("weekends", frozenset({5, 6})),
        ("sat-sun", frozenset({5, 6})),
        ("SAT,SUN", frozenset({5, 6})),
        ("fri-mon", frozenset({4, 5, 6, 0})),
        ("tuesday", frozenset({1})),
        ("mon-wed,sat", frozenset({0, 1, 2, 5})),
    ],
)
def test_parse_weekdays(text: str, expected: frozenset[int]) -> None:
    assert parse_weekdays(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "   ", "funday", "mon-", "-fri", "8", "0", "mon,,fri", "mon,", "mon-tue-wed", "daily-fri"],
)
def test_parse_weekdays_rejects(text: str) -> None:
    assert parse_weekdays(text) is None


@pytest.mark.parametrize(
    ("days", "text"),
    [
        (frozenset(range(7)), "daily"),
        (MON_FRI, "mon-fri"),
        (frozenset({5, 6}), "sat,sun"),
        (frozenset({0, 2, 4}), "mon,wed,fri"),
        (frozenset({0, 1}), "mon,tue"),
        (frozenset({0, 4, 5, 6}), "mon,fri-sun"),
        (frozenset({3}), "thu"),
    ],
)
def test_format_weekdays(days: frozenset[int], text: str) -> None:
    assert format_weekdays(days) == text


def test_format_then_parse_round_trips_every_weekday_set() -> None:
    for size in range(1, 8):
        for combo in combinations(range(7), size):
            days = frozenset(combo)
            assert parse_weekdays(format_weekdays(days)) == days


def test_format_weekdays_rejects_bad_sets() -> None:
    with pytest.raises(ValueError):
        format_weekdays(frozenset())
    with pytest.raises(ValueError):
        format_weekdays(frozenset({7}))


# --- Properties over real zones -----------------------------------------------

ZONES = sorted(
    name for name in zoneinfo.available_timezones() if not name.startswith(("posix/", "right/"))
)


def _offsets_near(zone: ZoneInfo, wall: datetime) -> set[timedelta]:
    """Every UTC offset the zone uses within two days of `wall` (hourly samples)."""
    centre = wall.replace(tzinfo=UTC)
    offsets: set[timedelta] = set()
    for hours in range(-48, 49):
        offset = (centre + timedelta(hours=hours)).astimezone(zone).utcoffset()
        assert offset is not None
        offsets.add(offset)
    return offsets


def _readings(zone: ZoneInfo, wall: datetime, offsets: set[timedelta]) -> list[datetime]:
    """All UTC instants whose local wall time is `wall`, found without `fold`."""
    found = set()
    for offset in offsets:
        instant = (wall - offset).replace(tzinfo=UTC)
        if instant.astimezone(zone).replace(tzinfo=None) == wall:
            found.add(instant)
    return sorted(found)


@settings(max_examples=200, deadline=None, database=None)
@given(
    tz=st.sampled_from(ZONES),
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
    start=st.dates(date(1990, 1, 1), date(2037, 12, 31)),
    n_days=st.integers(1, 60),
    weekdays=st.frozensets(st.integers(0, 6), min_size=1),
)
@example(
    tz="Pacific/Apia",
    hour=9,
    minute=0,
    start=date(2011, 12, 20),
    n_days=20,
    weekdays=frozenset(range(7)),
)
@example(
    tz="Pacific/Kiritimati",
    hour=0,
    minute=0,
    start=date(1994, 12, 20),
    n_days=20,
    weekdays=frozenset({5}),
)
@example(
    tz="Australia/Lord_Howe",
    hour=2,
    minute=10,
    start=date(2024, 9, 30),
    n_days=10,
    weekdays=frozenset(range(7)),
)
@example(
    tz="Antarctica/Casey",
    hour=23,
    minute=30,
    start=date(2010, 3, 1),
    n_days=10,
    weekdays=frozenset(range(7)),
)
@example(
    tz="Africa/Casablanca",
    hour=0,
    minute=30,
    start=date(2011, 4, 1),
    n_days=5,
    weekdays=frozenset(range(7)),
)
def test_one_instant_per_scheduled_local_day(
    tz: str, hour: int, minute: int, start: date, n_days: int, weekdays: frozenset[int]
) -> None:
    zone = ZoneInfo(tz)
    r = LocalRule(tz, time(hour, minute), weekdays)
    expected: list[tuple[datetime, date]] = []

    for i in range(n_days):
        day = start + timedelta(days=i)
        instant = occurrence_on(r, day)
        if day.weekday() not in weekdays:
            assert instant is None
            continue
        wall = datetime.combine(day, r.time_of_day)
        offsets = _offsets_near(zone, wall)
        readings = _readings(zone, wall, offsets)
        if instant is None:
            # Only a date the zone skipped (a gap of a whole day) may fire nothing.
            assert not readings
            assert max(offsets) - min(offsets) >= timedelta(days=1)
            continue
        assert instant.utcoffset() == timedelta(0)
        local = instant.astimezone(zone).replace(tzinfo=None)
        if readings:
            # The wall time exists: fire at it, and at its first pass if twice.
            assert local == wall
            assert instant == readings[0]
        else:
            # In a gap: later than the rule time by exactly the gap length,
            # i.e. by how much the offset grew across the transition.
            shift = local - wall
            assert shift > timedelta(0)
            before = (instant - shift).astimezone(zone).utcoffset()
            after = instant.astimezone(zone).utcoffset()
            assert before is not None
            assert after is not None
            assert shift == after - before
        expected.append((instant, day))

    instants = [t for t, _ in expected]
    assert all(a < b for a, b in pairwise(instants))
    if not expected:
        return

    # The range queries agree with the per-day answers.
    lo = expected[0][0] - timedelta(microseconds=1)
    assert occurrences_between(r, lo, expected[-1][0]) == expected
    cursor = lo
    for want in expected:
        got = next_occurrence(r, cursor)
        assert got == want
        cursor = got[0]
