"""Dates and times written the way the reader's language writes them (CLDR, through Babel)."""

from __future__ import annotations

from datetime import datetime

from babel.dates import format_datetime


def day_and_time(moment: datetime, locale: str) -> str:
    """ "Mon 2 Mar, 09:05" in English, "lun 2 mar, 09:05" in Spanish: short, unambiguous."""
    return format_datetime(moment, "EEE d MMM, HH:mm", tzinfo=moment.tzinfo, locale=locale)


def day_and_date(moment: datetime, locale: str) -> str:
    """ "Mon 2 Mar" in English, "lun 2 mar" in Spanish: a day of the coming weeks."""
    return format_datetime(moment, "EEE d MMM", tzinfo=moment.tzinfo, locale=locale)
