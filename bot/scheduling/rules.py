"""Turn a local schedule rule ("08:30 in Europe/Berlin, Mon-Fri") into UTC instants.

Pure functions only: no clock, no I/O. The dispatcher stores the UTC instant as
`next_due_at` and keeps the local date next to it, so "never twice for the same
(schedule, local date)" can be enforced by the database, not by hope.

DST policy, chosen so a person gets exactly one check-in per scheduled day:

* Gap (spring forward, the wall time does not exist): fire once, shifted
  forward by the length of the gap (02:30 in Berlin becomes 03:30 CEST).
* Overlap (fall back, the wall time happens twice): fire once, at the first
  occurrence.
* A local date the zone skipped outright (Pacific/Apia jumped from
  2011-12-29 to 2011-12-31) has no occurrence; shifting it forward by the 24-hour
  gap would land exactly on the next day's occurrence and fire twice there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = [
    "ALL_DAYS",
    "LocalRule",
    "format_weekdays",
    "next_occurrence",
    "occurrence_on",
    "occurrences_between",
    "parse_weekdays",
    "zone",
]

ALL_DAYS: frozenset[int] = frozenset(range(7))

_DAY = timedelta(days=1)

# One day before the local date of `after` (an occurrence shifted forward out
# of a gap that straddles midnight belongs to the previous date), then a week
# to find any scheduled weekday, then one more week: a rule whose only weekday
# falls on a date the zone skipped (Apia's Friday 2011-12-30) fires a week later.
_SEARCH_BACK_DAYS = 1
_SEARCH_AHEAD_DAYS = 14


@dataclass(frozen=True, slots=True)
class LocalRule:
    """Fire at `time_of_day` local wall-clock time in `timezone` on `weekdays`."""

    timezone: str
    time_of_day: time
    weekdays: frozenset[int] = field(default=ALL_DAYS)

    def __post_init__(self) -> None:
        try:
            zone(self.timezone)
        # ZoneInfo raises ZoneInfoNotFoundError (a KeyError) for unknown keys,
        # ValueError for malformed ones ("", "../x", non-TZif files such as
        # "zone.tab") and IsADirectoryError for area names such as "Europe".
        except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
            raise ValueError(f"unknown timezone: {self.timezone!r}") from exc
        if self.time_of_day.tzinfo is not None:
            raise ValueError("time_of_day must be a naive local time")
        days = frozenset(self.weekdays)
        if not days:
            raise ValueError("weekdays must not be empty")
        if not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= 6 for d in days):
            raise ValueError("weekdays must be integers 0 (Monday) to 6 (Sunday)")
        # `datetime.combine` copies `fold` from the time; fold=1 would pick the
        # second occurrence in an overlap (and the post-transition offset in a
        # gap). The policy is fold=0, so normalise it away. `fold` does not take
        # part in equality, so this does not change what the rule compares as.
        object.__setattr__(self, "time_of_day", self.time_of_day.replace(fold=0))
        # A plain set or other iterable passed by a caller becomes hashable.
        object.__setattr__(self, "weekdays", days)

    @property
    def zone(self) -> ZoneInfo:
        return zone(self.timezone)


@cache
def zone(name: str) -> ZoneInfo:
    """The zone called `name`, loaded once per process.

    ZoneInfo's own cache keeps only the 8 most recently used zones that
    nothing else holds on to; with users in more zones than that, every
    lookup read and parsed the zone file again (the dispatch benchmark spent a
    third of its time there). There are only a few hundred zone names, so
    keeping them all is cheap. Unknown names raise and are not cached.
    """
    return ZoneInfo(name)


def _fold0_instant(zone: ZoneInfo, local_date: date, wall: time) -> datetime:
    """UTC instant of a wall time read with fold=0.

    For a time that exists once this is the obvious instant; in an overlap it
    is the first occurrence; in a gap zoneinfo uses the offset from *before*
    the transition, which lands exactly gap-length after the missing time once
    it is read back on the new offset (02:30 CET = 01:30 UTC = 03:30 CEST).
    """
    return datetime.combine(local_date, wall, tzinfo=zone).astimezone(UTC)


def occurrence_on(rule: LocalRule, local_date: date) -> datetime | None:
    """The aware UTC instant when `rule` fires on `local_date`, or None.

    None when that weekday is not scheduled, or when the zone skipped the
    wall time by a whole day or more (see the module docstring).
    """
    if local_date.weekday() not in rule.weekdays:
        return None
    zone = rule.zone
    instant = _fold0_instant(zone, local_date, rule.time_of_day)
    # Only a gap of 24 hours or more can push an occurrence onto or past the
    # next day's; then this date has no wall time of its own to fire at.
    if local_date < date.max and instant >= _fold0_instant(
        zone, local_date + _DAY, rule.time_of_day
    ):
        return None
    return instant


def _require_aware(name: str, value: datetime) -> None:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be a timezone-aware datetime")


def next_occurrence(rule: LocalRule, after: datetime) -> tuple[datetime, date]:
    """The first UTC instant strictly after `after` (aware) at which the rule fires.

    Returned with the local date the occurrence belongs to, which is what the
    "once per local date" guarantee is keyed on.
    """
    _require_aware("after", after)
    start = after.astimezone(rule.zone).date()
    # Bounded on purpose: a fixed window instead of `while True`, so a bug in
    # the DST handling shows up as an error rather than a hung dispatcher.
    for offset in range(-_SEARCH_BACK_DAYS, _SEARCH_AHEAD_DAYS + 1):
        local_date = start + timedelta(days=offset)
        instant = occurrence_on(rule, local_date)
        # Occurrences increase with the local date, so the first one past
        # `after` is the earliest.
        if instant is not None and instant > after:
            return instant, local_date
    raise RuntimeError(  # pragma: no cover - unreachable with a non-empty weekday set
        f"no occurrence of {rule!r} within {_SEARCH_AHEAD_DAYS} days of {after.isoformat()}"
    )


def occurrences_between(
    rule: LocalRule, start: datetime, end: datetime
) -> list[tuple[datetime, date]]:
    """Every occurrence with `start < instant <= end`, ascending, with its local date."""
    _require_aware("start", start)
    _require_aware("end", end)
    if end <= start:
        return []
    zone = rule.zone
    # One day of slack each side covers occurrences shifted across midnight.
    local_date = start.astimezone(zone).date() - _DAY
    last = end.astimezone(zone).date() + _DAY
    found: list[tuple[datetime, date]] = []
    while local_date <= last:
        instant = occurrence_on(rule, local_date)
        if instant is not None and start < instant <= end:
            found.append((instant, local_date))
        local_date += _DAY
    return found


_DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_FULL_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NAME_TO_DAY: dict[str, int] = {
    **{name: i for i, name in enumerate(_DAY_NAMES)},
    **{name: i for i, name in enumerate(_FULL_NAMES)},
    "tues": 1,
    "thur": 3,
    "thurs": 3,
}
_KEYWORDS: dict[str, frozenset[int]] = {
    "daily": ALL_DAYS,
    "everyday": ALL_DAYS,
    "weekdays": frozenset(range(5)),
    "weekends": frozenset({5, 6}),
    "weekend": frozenset({5, 6}),
}
# Allow "mon - fri" as well as "mon-fri".
_SPACED_DASH = re.compile(r"\s*-\s*")
# Items are separated by a comma (with optional spaces) or by spaces alone.
_SEPARATOR = re.compile(r"\s*,\s*|\s+")


def _parse_item(item: str) -> frozenset[int] | None:
    if item in _KEYWORDS:
        return _KEYWORDS[item]
    if item in _NAME_TO_DAY:
        return frozenset({_NAME_TO_DAY[item]})
    first, dash, last = item.partition("-")
    if not dash or first not in _NAME_TO_DAY or last not in _NAME_TO_DAY:
        return None
    lo, hi = _NAME_TO_DAY[first], _NAME_TO_DAY[last]
    # A range may wrap past Sunday: "fri-mon" is Friday to Monday.
    span = (hi - lo) % 7
    return frozenset((lo + i) % 7 for i in range(span + 1))


def parse_weekdays(text: str) -> frozenset[int] | None:
    """Parse "mon-fri", "mon,wed,fri", "daily", "weekends", ... or return None."""
    normalised = _SPACED_DASH.sub("-", text.strip().lower())
    if not normalised:
        return None
    days: set[int] = set()
    for item in _SEPARATOR.split(normalised):
        parsed = _parse_item(item)
        if parsed is None:  # includes "" from a stray comma such as "mon,,fri"
            return None
        days |= parsed
    return frozenset(days)


def format_weekdays(days: frozenset[int]) -> str:
    """Canonical short form: "daily", "mon-fri", "sat,sun", "mon,wed,fri".

    Runs of three or more days become a range; shorter runs are listed, so
    the output always parses back to the same set.
    """
    if not days:
        raise ValueError("weekdays must not be empty")
    if not days <= ALL_DAYS:
        raise ValueError("weekdays must be integers 0 (Monday) to 6 (Sunday)")
    if days == ALL_DAYS:
        return "daily"
    parts: list[str] = []
    ordered = sorted(days)
    run_start = prev = ordered[0]
    for day in [*ordered[1:], None]:
        if day is not None and day == prev + 1:
            prev = day
            continue
        if prev - run_start >= 2:
            parts.append(f"{_DAY_NAMES[run_start]}-{_DAY_NAMES[prev]}")
        else:
            parts.extend(_DAY_NAMES[d] for d in range(run_start, prev + 1))
        if day is not None:
            run_start = prev = day
    return ",".join(parts)
