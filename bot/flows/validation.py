"""What users type for times and time zones, checked and shown back.

The flows read places, times, days and quiet hours with `bot.flows.parsing`;
a group reminder's compact `/reminder add 09:00 Europe/Berlin` syntax keeps
the strict forms below, where every word must be exactly one thing.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import time
from functools import cache

from babel.dates import format_time

from bot.content_pack.ids import AnswersMsg
from bot.content_pack.plurals import babel_locale
from bot.flows.context import FlowContext
from bot.flows.limits import TextLimit
from bot.flows.parsing.times import twelve_hour

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


def both_forms(ctx: FlowContext, value: str) -> str:
    """ "20:30 (8:30 pm)", "20:30 (8:30 p. m.)": a time as the user's locale shows it, both
    ways; other locales than the default write the 12-hour clock as CLDR has it."""
    if ctx.locale == ctx.services.content.default_locale:
        return ctx.text(AnswersMsg.TIME_BOTH_FORMS, time=value, time_12h=twelve_hour(value))
    twelve = format_time(time.fromisoformat(value), "h:mm a", locale=babel_locale(ctx.locale))
    return ctx.text(AnswersMsg.TIME_BOTH_FORMS, time=value, time_12h=twelve)


def too_long(limit: TextLimit, text: str) -> bool:
    return len(text.strip()) > limit.characters
