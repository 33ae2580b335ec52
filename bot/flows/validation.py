"""Parsing what users type for time zones and times of day."""

from __future__ import annotations

import re
import zoneinfo
from functools import cache

_TIME = re.compile(r"^([01]?\d|2[0-3])\s*[:.hH]\s*([0-5]\d)$")
_LEGACY_PREFIXES = ("posix/", "right/", "SystemV/")


@cache
def _zones_by_folded_name() -> dict[str, str]:
    zones = {
        name.casefold(): name
        for name in zoneinfo.available_timezones()
        if not name.startswith(_LEGACY_PREFIXES) and name not in {"localtime", "Factory"}
    }
    zones.setdefault("utc", "UTC")
    return zones


def parse_timezone(text: str) -> str | None:
    """The canonical IANA name for `text` (any case, spaces for underscores), or None."""
    cleaned = text.strip().replace(" ", "_")
    if not cleaned or len(cleaned) > 64:
        return None
    return _zones_by_folded_name().get(cleaned.casefold())


def parse_time_of_day(text: str) -> str | None:
    """`HH:MM` (24-hour) for inputs like `8:30`, `08.30` or `21h00`, else None."""
    match = _TIME.match(text.strip())
    if match is None:
        return None
    return f"{int(match.group(1)):02d}:{match.group(2)}"


def parse_times_of_day(text: str, limit: int) -> list[str] | None:
    """One to `limit` distinct `HH:MM` times separated by commas or spaces, sorted; else None."""
    parts = [part for part in re.split(r"[,;\s]+", text.strip()) if part]
    times = [parse_time_of_day(part) for part in parts]
    if not times or len(times) > limit or None in times:
        return None
    valid = sorted({time for time in times if time is not None})
    return valid if len(valid) == len(times) else None


def parse_quiet_hours(text: str) -> tuple[str, str] | None:
    """`(start, end)` as HH:MM for `22:00-07:00` (also `22:00 to 07:00`); None if invalid.

    A start equal to the end would mean "quiet all day" or "never": refused.
    """
    match = re.fullmatch(r"\s*(\S+?)\s*(?:-|–|to)\s*(\S+)\s*", text, flags=re.IGNORECASE)
    if match is None:
        return None
    start, end = parse_time_of_day(match.group(1)), parse_time_of_day(match.group(2))
    if start is None or end is None or start == end:
        return None
    return start, end
