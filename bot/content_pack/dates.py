"""Dates and times written the way the reader's language writes them (CLDR, through Babel)."""

from __future__ import annotations

from datetime import date, datetime

from babel.dates import format_datetime, format_skeleton


def day_and_time(moment: datetime, locale: str) -> str:
    """ "Mon 2 Mar, 09:05" in English, "lun 2 mar, 09:05" in Spanish: short, unambiguous."""
    return format_datetime(moment, "EEE d MMM, HH:mm", tzinfo=moment.tzinfo, locale=locale)


def day_of_year(day: date, locale: str) -> str:
    """ "March 2" in English, "2 de marzo" in Spanish: a date without its year."""
    return format_skeleton("MMMMd", day, locale=locale)
