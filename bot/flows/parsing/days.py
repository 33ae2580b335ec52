"""Days of the week as people type them: "Monday to Friday", "weekdays", "de lunes a viernes".

Every language the bot speaks is read whatever the user's locale, as the safety screen
does: someone may answer in the language they think in.
"""

from __future__ import annotations

import re

from bot.flows.parsing.folding import fold
from bot.scheduling.rules import parse_weekdays

# Spanish day names and phrasings (folded: no accents), rewritten into English words that
# the phrasings below then read. Longer phrases first: "fin de semana" before "semana".
_SPANISH = (
    (re.compile(r"\b(?:todos los dias|cada dia|a diario|diariamente|toda la semana)\b"), "daily"),
    (re.compile(r"\b(?:entre semana|dias laborables|dias habiles|dias de semana)\b"), "weekdays"),
    (re.compile(r"\b(?:los\s+)?fines? de semana\b"), "weekends"),
    (re.compile(r"\blunes\b"), "monday"),
    (re.compile(r"\bmartes\b"), "tuesday"),
    (re.compile(r"\bmiercoles\b"), "wednesday"),
    (re.compile(r"\bjueves\b"), "thursday"),
    (re.compile(r"\bviernes\b"), "friday"),
    (re.compile(r"\bsabados?\b"), "saturday"),
    (re.compile(r"\bdomingos?\b"), "sunday"),
    (re.compile(r"\b(?:de|desde|los|el|solo|solamente)\s+"), ""),
    (re.compile(r"\s+(?:a|hasta)\s+"), " to "),
    (re.compile(r"\s+[ye]\s+"), " and "),
)
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


def read_days(text: str) -> frozenset[int] | None:
    """Weekday numbers (0 is Monday), or None when the text names no days we know."""
    phrase = text.strip().casefold()
    found = parse_weekdays(_rewrite(phrase, _PHRASES))
    if found is not None:
        return found
    # Folding turns "-" and "," into spaces, so the Spanish reading is tried second.
    spanish = _rewrite(fold(phrase.replace(",", " and ").replace("-", " to ")), _SPANISH)
    return parse_weekdays(_rewrite(spanish, _PHRASES))


def _rewrite(phrase: str, rules: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    for pattern, replacement in rules:
        phrase = pattern.sub(replacement, phrase)
    return phrase
