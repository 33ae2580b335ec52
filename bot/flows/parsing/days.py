"""Days of the week as people type them: "Monday to Friday", "weekdays", "every day"."""

from __future__ import annotations

import re

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


def read_days(text: str) -> frozenset[int] | None:
    """Weekday numbers (0 is Monday), or None when the text names no days we know."""
    phrase = text.strip().casefold()
    for pattern, replacement in _PHRASES:
        phrase = pattern.sub(replacement, phrase)
    return parse_weekdays(phrase)
