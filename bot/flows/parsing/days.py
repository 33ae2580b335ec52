"""Days of the week as people type them: "Monday to Friday", "weekdays", "every day",
"de lunes a viernes", "todos los días"."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from bot.scheduling.rules import parse_weekdays

# Everyday phrasings, rewritten into the short forms the schedule rules read.
_PHRASES = (
    (re.compile(r"\b(?:every|each|any)\s*day\b|\ball\s+(?:week|days)\b|\b7 days\b"), "daily"),
    (re.compile(r"\b(?:work|working|week)\s*days?\b"), "weekdays"),
    (re.compile(r"\s*(?:\bto\b|\bthrough\b|\bthru\b|\buntil\b|\btill\b|\u2013|\u2014)\s*"), "-"),
    (re.compile(r"\s*(?:\band\b|&|\+|/)\s*"), ","),
    (re.compile(r"\b(mon|tues|wednes|thurs|fri|satur|sun)days\b"), r"\1day"),  # "mondays"
    (re.compile(r"\bweekend\b"), "weekends"),
    (re.compile(r"\bon\s+|[.!]+$"), ""),
)


# Spanish, accents dropped first: "de lunes a viernes", "todos los días", "sáb y dom",
# and the short names the settings menu shows ("lun-vie").
_SPANISH_DAYS = {
    "lunes": "mon", "lun": "mon", "martes": "tue", "mar": "tue", "miercoles": "wed",
    "mie": "wed", "jueves": "thu", "jue": "thu", "viernes": "fri", "vie": "fri",
    "sabado": "sat", "sabados": "sat", "sab": "sat", "domingo": "sun", "domingos": "sun",
    "dom": "sun",
}  # fmt: skip
_SPANISH = (
    (re.compile(r"\b(?:todos los dias|cada dia|a diario|diario|toda la semana)\b"), "daily"),
    (re.compile(r"\b(?:entre semana|dias (?:laborables|habiles|de semana))\b"), "weekdays"),
    (re.compile(r"\b(?:los )?fines? de semana\b"), "weekends"),
    (re.compile(r"\b(?:de|del|los|las|el)\s+"), ""),
    (re.compile(r"\s+(?:a|al|hasta)\s+"), "-"),
    (re.compile(r"\s+(?:y|e)\s+"), ","),
    (re.compile(r"\b(" + "|".join(_SPANISH_DAYS) + r")\b"), lambda m: _SPANISH_DAYS[m[1]]),
)


def _without_accents(text: str) -> str:
    return "".join(
        char for char in unicodedata.normalize("NFKD", text) if not unicodedata.combining(char)
    )


def read_days(text: str) -> frozenset[int] | None:
    """Weekday numbers (0 is Monday), or None when the text names no days we know."""
    phrase = text.strip().casefold()
    english = parse_weekdays(_apply(_PHRASES, phrase))
    if english is not None:
        return english
    return parse_weekdays(_apply(_PHRASES, _apply(_SPANISH, _without_accents(phrase))))


def _apply(phrases: tuple[tuple[re.Pattern[str], Any], ...], phrase: str) -> str:
    for pattern, replacement in phrases:
        phrase = pattern.sub(replacement, phrase)
    return phrase
