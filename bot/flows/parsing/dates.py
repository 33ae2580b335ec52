"""Dates as people type them: "14 February", "Feb 14th", "14 de febrero", "2027-03-02",
"14.2.", "3/2/2027", "tomorrow", "pasado mañana", "next Friday".

Month and weekday names come from Babel for the user's language, with English names
always understood too. A year is optional. A locale that writes the day first (its
short date pattern starts with the day, as Spanish does) reads "3/12" as 3 December
without asking. In one that writes the month first (English) "3/2" may be 3 February
or 2 March: both readings are returned, the month-first one leading, so the flow can
ask instead of guessing. A dot ("14.2.") is read day first, as everywhere it is
written so. Words for a day relative to today ("today", "mañana": at a date
question it is tomorrow, not the morning) need the user's today to be given.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from babel.core import Locale, UnknownLocaleError
from babel.dates import (
    format_date,
    format_skeleton,
    get_date_format,
    get_day_names,
    get_month_names,
)

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
# Days counted from today, as typed (folded: no accents, any case).
_RELATIVE = {
    "today": 0,
    "hoy": 0,
    "tomorrow": 1,
    "manana": 1,
    "day after tomorrow": 2,
    "the day after tomorrow": 2,
    "pasado manana": 2,
}
# Little words before a weekday: "next Friday", "el próximo viernes", "this Friday".
_BEFORE_WEEKDAY = frozenset({"next", "this", "on", "coming", "el", "este", "proximo"})
_AFTER_WEEKDAY = " que viene"  # "el viernes que viene"


@dataclass(frozen=True, slots=True)
class DateReading:
    """What a text may mean: no readings (not a date), one, or two ("3/2")."""

    readings: tuple[DateRule, ...]
    # Not a date, but it would be one with a smaller day: "31/02", "31 April".
    no_such_day: DateRule | None = None

    @property
    def settled(self) -> DateRule | None:
        return self.readings[0] if len(self.readings) == 1 else None


def read_date(text: str, locale: str, today: date | None = None) -> DateReading:
    """What `text` may mean as a date; with `today` (the user's), "tomorrow" too."""
    cleaned = text.strip()
    if not cleaned or len(cleaned) > _LONGEST_INPUT:
        return DateReading(())
    if today is not None:
        relative = _relative(fold(cleaned), locale, today)
        if relative is not None:
            return DateReading((DateRule(relative.month, relative.day, relative.year),))
    iso = _ISO.match(cleaned)
    if iso is not None:
        year, month, day = (int(part) for part in iso.groups())
        return _reading(((month, day, year),))
    numeric = _NUMERIC.match(cleaned)
    if numeric is not None:
        return _numeric(numeric, locale)
    return _reading(_named(cleaned, locale))


def _reading(candidates: tuple[tuple[int, int, int | None], ...]) -> DateReading:
    """The candidates that are dates; else one that only has too big a day, if any."""
    readings = tuple(rule for parts in candidates for rule in _valid(parts))
    if readings:
        return DateReading(readings)
    impossible = [DateRule(*parts) for parts in candidates if _day_too_big(parts)]
    return DateReading((), impossible[0] if impossible else None)


def _relative(typed: str, locale: str, today: date) -> date | None:
    """ "today", "mañana", "pasado mañana", "next Friday", "el viernes": from `today`."""
    if typed in _RELATIVE:
        return today + timedelta(days=_RELATIVE[typed])
    words = typed.removesuffix(_AFTER_WEEKDAY).split()
    if not words or any(word not in _BEFORE_WEEKDAY for word in words[:-1]):
        return None
    weekday = _weekday_names(locale).get(words[-1])
    if weekday is None:
        return None
    ahead = (weekday - today.weekday()) % 7 or 7  # a weekday is the coming one, not today
    return today + timedelta(days=ahead)


def _numeric(match: re.Match[str], locale: str) -> DateReading:
    first, second = int(match.group(1)), int(match.group(3))
    year = _year(match.group(4))
    day_first_parts, month_first_parts = (second, first, year), (first, second, year)
    if match.group("sep") == ".":
        return _reading((day_first_parts,))
    day_first = _valid(day_first_parts)
    month_first = _valid(month_first_parts)
    if _writes_day_first(locale):
        # A day-first writer means the day first: "3/12" is 3 December, never asked.
        return (
            _reading((day_first_parts,))
            if day_first or not month_first
            else _reading((month_first_parts,))
        )
    if day_first and day_first == month_first:  # "4/4"
        return _reading((month_first_parts,))
    if not day_first or not month_first:
        return _reading((month_first_parts, day_first_parts))
    return DateReading(month_first + day_first)


def _named(text: str, locale: str) -> tuple[tuple[int, int, int | None], ...]:
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
    return ((month, day, year),)


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


@cache
def _weekday_names(locale: str) -> dict[str, int]:
    """Weekday names, folded, to Monday 0 to Sunday 6 (Babel numbers them so)."""
    names: dict[str, int] = {}
    for language in dict.fromkeys(("en", locale)):
        try:
            known = Locale.parse(language)
        except (UnknownLocaleError, ValueError):
            continue
        for width in ("wide", "abbreviated"):
            for context in ("format", "stand-alone"):
                for number, name in get_day_names(width, context, known).items():
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


def _day_too_big(parts: tuple[int, int, int | None]) -> bool:
    """A real month and a day of the month's kind (1 to 31) that it does not have."""
    month, day, year = parts
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return False
    if year is not None and not 1900 <= year <= 2999:
        return False
    return not _valid(parts)


def last_day(rule: DateRule) -> int:
    """The days of the month: of the year given, or at most (29 for February)."""
    return calendar.monthrange(rule.year or _LEAP_YEAR, rule.month)[1]


def month_name(month: int, locale: str) -> str:
    """The month's name on its own, as the user's language writes it ("February", "febrero")."""
    return str(get_month_names("wide", "stand-alone", _babel_locale(locale))[month])


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
