"""Times of day as people type them: "8am", "8:30 pm", "0830", "20h", "9", "noon", "20:00",
in words ("eight pm", "half eight", "9ish": `spoken_times`), and in Spanish: "a las 8 de
la tarde", "8 y media", "mediodía", "20 hs". A part of the day alone ("evening") is not
refused: the reading names it, and the question offers its times.

A reading keeps the form the person used (am/pm or 24-hour), so a refusal can
give its example in that same form.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from bot.flows.parsing.folding import fold
from bot.flows.parsing.spoken_times import DayPart, day_part, from_english


class ClockStyle(StrEnum):
    TWELVE_HOUR = "12h"
    TWENTY_FOUR_HOUR = "24h"


class TimeProblem(StrEnum):
    """Why a text is not a time, so the reply can name the real problem."""

    TWELVE_HOUR = "12h"  # an hour past 12 with am or pm
    DAY_RANGE = "day"  # an hour past 23
    MINUTES = "minutes"  # minutes past 59
    NOT_A_TIME = "none"  # no time in it at all
    PART_OF_DAY = "part"  # "evening": times are offered to choose from


@dataclass(frozen=True, slots=True)
class TimeReading:
    """`value` is HH:MM (24-hour), or None when the text could not be a time of day;
    then `problem` says why, and `part` which part of the day was said alone."""

    value: str | None
    style: ClockStyle
    problem: TimeProblem | None = None
    part: DayPart | None = None


_NAMED = {"noon": "12:00", "midday": "12:00", "midnight": "00:00"}
# "8", "8:30", "8.30", "8h30", "20h", "0830", each with an optional am/pm ("a.m.", "PM").
_SHAPE = re.compile(
    r"^(?P<hour>\d{1,2})(?:\s*(?:[:.h]\s*(?P<minute>\d{2})?))?\s*(?P<half>[ap]\.?\s*m?\.?)?$"
    r"|^(?P<hour4>\d{2})(?P<minute4>\d{2})\s*(?P<half4>[ap]\.?\s*m?\.?)?$",
    re.IGNORECASE,
)
_HALF = re.compile(r"[ap]\.?\s*m\.?|\d\s*[ap]$", re.IGNORECASE)


# Spanish phrasings, rewritten into the forms read below. The text has been casefolded
# and stripped of accents ("mañana" is "manana") but keeps its digits and colons.
_SPANISH_LEAD = re.compile(r"^(?:a\s+)?(?:eso\s+de\s+|sobre\s+|hacia\s+)?(?:las?|la una)\s+")
_SPANISH_HOURS_WORD = re.compile(r"(\d)\s*(?:hs|hrs|horas|hora)\b\.?")
_SPANISH_MINUTES = re.compile(r"^(\d{1,2})\s+y\s+(media|cuarto)\b")
_SPANISH_PART = re.compile(r"\s*de\s+la\s+(manana|madrugada|tarde|noche)\s*$")
_SPANISH_NAMED = {"mediodia": "12:00", "medio dia": "12:00", "medianoche": "00:00"}
_SPANISH_NUMBERS = {
    word: str(number)
    for number, word in enumerate(
        ("una", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
         "once", "doce"),
        start=1,
    )
}  # fmt: skip
_SPANISH_NUMBER = re.compile(r"\b(?:" + "|".join(_SPANISH_NUMBERS) + r"|uno)\b")


def _bare(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.strip().casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _from_spanish(text: str) -> str:
    """ "a las 8 de la tarde" -> "8 pm", "las 7 y media" -> "7:30", "20 hs" -> "20h"."""
    phrase = _bare(text)
    if phrase in _SPANISH_NAMED:
        return _SPANISH_NAMED[phrase]
    phrase = "1" + phrase[len("la una") :] if phrase.startswith("la una") else phrase
    # "a las ocho y media": hours written as words are read as their numbers.
    phrase = _SPANISH_NUMBER.sub(lambda word: _SPANISH_NUMBERS.get(word.group(), "1"), phrase)
    phrase = _SPANISH_LEAD.sub("", phrase)
    phrase = _SPANISH_HOURS_WORD.sub(r"\1h", phrase)
    phrase = _SPANISH_MINUTES.sub(
        lambda match: f"{match.group(1)}:{'30' if match.group(2) == 'media' else '15'}", phrase
    )
    part = _SPANISH_PART.search(phrase)
    if part is None:
        return phrase
    clock = phrase[: part.start()].strip()
    hour = re.match(r"\d{1,2}", clock)
    if hour is None or re.search(r"[ap]\.?\s*m", clock):
        return phrase
    # The night runs past midnight: "las 12 de la noche" is midnight, "las 2 de la noche" 2 am.
    night_morning = part.group(1) == "noche" and (int(hour.group()) == 12 or int(hour.group()) < 6)
    morning = part.group(1) in {"manana", "madrugada"} or night_morning
    return f"{clock} {'am' if morning else 'pm'}"


def read_time(text: str) -> TimeReading:
    """Read one time of day; `value` None means it is not one (25pm, 2561, 12:60)."""
    part = day_part(_bare(text))
    if part is not None:
        return TimeReading(None, ClockStyle.TWENTY_FOUR_HOUR, TimeProblem.PART_OF_DAY, part)
    cleaned = from_english(_from_spanish(text))
    style = ClockStyle.TWELVE_HOUR if _HALF.search(cleaned) else ClockStyle.TWENTY_FOUR_HOUR
    named = _NAMED.get(fold(cleaned))
    if named is not None:
        return TimeReading(named, ClockStyle.TWELVE_HOUR)
    match = _SHAPE.match(cleaned)
    if match is None:  # digits that make no time ("-1:30") are out of the day's range
        digits = any(char.isdigit() for char in cleaned)
        return TimeReading(None, style, TimeProblem.DAY_RANGE if digits else TimeProblem.NOT_A_TIME)
    hour = int(match.group("hour") or match.group("hour4"))
    minute = int(match.group("minute") or match.group("minute4") or 0)
    half = (match.group("half") or match.group("half4") or "").strip()[:1].casefold()
    if half:
        if not 1 <= hour <= 12:
            return TimeReading(None, ClockStyle.TWELVE_HOUR, TimeProblem.TWELVE_HOUR)
        hour = hour % 12 + (12 if half == "p" else 0)
    if hour > 23:
        return TimeReading(None, style, TimeProblem.DAY_RANGE)
    if minute > 59:
        return TimeReading(None, style, TimeProblem.MINUTES)
    return TimeReading(f"{hour:02d}:{minute:02d}", style)


def twelve_hour(value: str) -> str:
    """ "20:30" -> "8:30 pm", "00:15" -> "12:15 am"."""
    hour, minute = (int(part) for part in value.split(":"))
    suffix = "am" if hour < 12 else "pm"
    return f"{hour % 12 or 12}:{minute:02d} {suffix}"


# "y" joins two times ("8 y 20:00") unless it says the minutes ("8 y media").
_LIST_SEPARATOR = re.compile(
    r"\s*(?:[,;&]|\band\b|\by\b(?!\s+(?:media|cuarto)\b))\s*", re.IGNORECASE
)


def read_times(text: str) -> tuple[list[TimeReading], ClockStyle]:
    """Every time in a list ("8am, 1pm and 20:00", "07:00 12:00"), each read on its own."""
    readings: list[TimeReading] = []
    for part in (piece for piece in _LIST_SEPARATOR.split(text.strip()) if piece):
        whole = read_time(part)
        words = part.split()
        if whole.value is None and len(words) > 1:
            # "07:00 12:00" is two times; "8 am" was one and is read whole above.
            readings.extend(read_time(word) for word in words)
        else:
            readings.append(whole)
    twelve = any(reading.style is ClockStyle.TWELVE_HOUR for reading in readings)
    return readings, ClockStyle.TWELVE_HOUR if twelve else ClockStyle.TWENTY_FOUR_HOUR


@dataclass(frozen=True, slots=True)
class SpanReading:
    """Quiet hours as (start, end) HH:MM, or None when they could not be read."""

    value: tuple[str, str] | None
    style: ClockStyle


_SPAN = re.compile(
    r"^\s*(?:from\s+|de\s+|desde\s+|entre\s+)?(?P<start>.+?)\s*"
    r"(?:-|\u2013|\u2014|\bto\b|\buntil\b|\btill\b|\bthrough\b|\ba\b|\bhasta\b"
    r"|\by\b(?!\s+(?:media|cuarto)\b))"
    r"\s*(?P<end>.+?)\s*$",
    re.IGNORECASE,
)


def read_span(text: str) -> SpanReading:
    """ "22-7", "22:00 - 07:00", "10pm to 7am": a start and an end, which must differ.

    A start equal to the end would mean "quiet all day" or "never": refused.
    """
    match = _SPAN.match(text)
    style = ClockStyle.TWELVE_HOUR if _HALF.search(text) else ClockStyle.TWENTY_FOUR_HOUR
    if match is None:
        return SpanReading(None, style)
    start, end = read_time(match.group("start")), read_time(match.group("end"))
    if start.value is None or end.value is None or start.value == end.value:
        return SpanReading(None, style)
    return SpanReading((start.value, end.value), style)
