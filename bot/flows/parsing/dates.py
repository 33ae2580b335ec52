"""Dates as people type them: "14 February", "Feb 14th", "14 de febrero", "2027-03-02",
"14.2.", "3/2/2027".

Month names come from Babel for the user's language, with English names always
understood too. A year is optional. "3/2" may be 3 February or 2 March: both readings
are returned, the one the user's locale writes first (day first or month first)
leading, so the flow can ask instead of guessing. A dot ("14.2.") is read day first,
as everywhere it is written so.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date
from functools import cache

from babel.core import Locale, UnknownLocaleError
from babel.dates import format_date, format_skeleton, get_date_format, get_month_names

from bot.flows.parsing.folding import fold
from bot.scheduling.hard_date_plan import DateRule

_LONGEST_INPUT = 40
_ISO = re.compile(r"^(\d{4})\s*[-/.]\s*(\d{1,2})\s*[-/.]\s*(\d{1,2})$")
_NUMERIC = re.compile(
    r"^(\d{1,2})\s*(?P<sep>[./-])\s*(\d{1,2})(?:\s*(?P=sep)\s*(\d{4}|\d{2})?)?\.?$"
)
_ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th|o|a|er|e)$")
# Little words around a date: "the 14th of February", "14 de febrero de 2027".
_FILLER = frozenset({"of", "the", "on", "de", "del", "el"})
_SHORTEST_MONTH_PREFIX = 3
_LEAP_YEAR = 2000  # a year with every day of every month, 29 February included


@dataclass(frozen=True, slots=True)
class DateReading:
    """What a text may mean: no readings (not a date), one, or two ("3/2")."""

    readings: tuple[DateRule, ...]

    @property
    def settled(self) -> DateRule | None:
        return self.readings[0] if len(self.readings) == 1 else None


def read_date(text: str, locale: str) -> DateReading:
    cleaned = text.strip()
    if not cleaned or len(cleaned) > _LONGEST_INPUT:
        return DateReading(())
    iso = _ISO.match(cleaned)
    if iso is not None:
        year, month, day = (int(part) for part in iso.groups())
        return DateReading(_valid((month, day, year)))
    numeric = _NUMERIC.match(cleaned)
    if numeric is not None:
        return _numeric(numeric, locale)
    return DateReading(_named(cleaned, locale))


def _numeric(match: re.Match[str], locale: str) -> DateReading:
    first, second = int(match.group(1)), int(match.group(3))
    year = _year(match.group(4))
    if match.group("sep") == ".":
        return DateReading(_valid((second, first, year)))
    day_first = _valid((second, first, year))
    month_first = _valid((first, second, year))
    if not day_first or not month_first or day_first == month_first:
        return DateReading(day_first or month_first)
    ordered = day_first + month_first if _writes_day_first(locale) else month_first + day_first
    return DateReading(ordered)


def _named(text: str, locale: str) -> tuple[DateRule, ...]:
    """A month by name, a day and perhaps a year, in any order, with little words around."""
    months = _month_names(locale)
    month = day = year = None
    for typed in fold(text).split():
        if typed in _FILLER:
            continue
        ordinal = _ORDINAL.match(typed)
        word = typed if ordinal is None else ordinal.group(1)
        if word.isdigit() and len(word) == 4 and year is None:
            year = int(word)
        elif word.isdigit() and len(word) <= 2 and day is None:
            day = int(word)
        elif len(word) >= _SHORTEST_MONTH_PREFIX and month is None and _month(word, months):
            month = _month(word, months)
        else:
            return ()
    if month is None or day is None:
        return ()
    return _valid((month, day, year))


def _month(word: str, months: dict[str, int]) -> int | None:
    """The month a word names: in full, or by the start of one name only ("feb", "sept")."""
    if word in months:
        return months[word]
    found = {number for name, number in months.items() if name.startswith(word)}
    return found.pop() if len(found) == 1 else None


@cache
def _month_names(locale: str) -> dict[str, int]:
    names: dict[str, int] = {}
    for language in dict.fromkeys(("en", locale)):
        try:
            known = Locale.parse(language)
        except (UnknownLocaleError, ValueError):
            continue
        for width in ("wide", "abbreviated"):
            for context in ("format", "stand-alone"):
                for number, name in get_month_names(width, context, known).items():
                    names[fold(name)] = int(number)
    return names


def _year(text: str | None) -> int | None:
    if text is None:
        return None
    year = int(text)
    return 2000 + year if len(text) == 2 else year


def _valid(parts: tuple[int, int, int | None]) -> tuple[DateRule, ...]:
    month, day, year = parts
    if not 1 <= month <= 12 or day < 1 or (year is not None and not 1900 <= year <= 2999):
        return ()
    if day > calendar.monthrange(year or _LEAP_YEAR, month)[1]:
        return ()
    return (DateRule(month, day, year),)


def _writes_day_first(locale: str) -> bool:
    pattern = get_date_format("short", locale=_babel_locale(locale)).pattern
    return pattern.find("d") < pattern.find("M")


def _babel_locale(locale: str) -> Locale:
    try:
        return Locale.parse(locale)
    except (UnknownLocaleError, ValueError):
        return Locale.parse("en")


def show_date(rule: DateRule, locale: str) -> str:
    """ "February 14" for a date every year, "February 14, 2027" for a one-off, as the
    user's language writes them."""
    known = _babel_locale(locale)
    if rule.year is None:
        return format_skeleton("MMMMd", date(_LEAP_YEAR, rule.month, rule.day), locale=known)
    return format_date(rule.on(rule.year), "long", locale=known)
