"""Dates as people type them, in English and in the user's own language."""

from __future__ import annotations

from datetime import date

import pytest

from bot.flows.parsing.dates import read_date, show_date
from bot.scheduling.hard_date_plan import DateRule


@pytest.mark.parametrize(
    ("typed", "month", "day", "year"),
    [
        ("14 February", 2, 14, None),
        ("February 14", 2, 14, None),
        ("14th of February", 2, 14, None),
        ("the 14th of feb", 2, 14, None),
        ("Feb 14, 2027", 2, 14, 2027),
        ("14 FEBRUARY 2027", 2, 14, 2027),
        ("sept 3", 9, 3, None),
        ("2027-03-02", 3, 2, 2027),
        ("2027/3/2", 3, 2, 2027),
        ("14.2.", 2, 14, None),
        ("1.3.2027", 3, 1, 2027),  # a dot: day first
        ("13/2", 2, 13, None),  # 13 can only be a day
        ("2/14/27", 2, 14, 2027),
        ("29 February", 2, 29, None),  # a date every year may be the 29th
        ("4/4", 4, 4, None),  # both readings agree
    ],
)
def test_one_reading(typed: str, month: int, day: int, year: int | None) -> None:
    assert read_date(typed, "en").readings == (DateRule(month, day, year),)


@pytest.mark.parametrize(
    "typed",
    ["", "soon", "31 April", "29 February 2027", "14/14", "February", "14", "2027-13-01",
     "14 February 15 March", "1 Smarch"],
)  # fmt: skip
def test_not_a_date(typed: str) -> None:
    assert read_date(typed, "en").readings == ()


def test_a_month_first_language_asks_and_a_day_first_one_reads_the_day_first() -> None:
    assert read_date("3/2", "en").readings == (DateRule(3, 2), DateRule(2, 3))  # both, asked
    assert read_date("3/12", "es").readings == (DateRule(12, 3),)  # 3 December, not asked
    assert read_date("3/12/2027", "es").readings == (DateRule(12, 3, 2027),)
    assert read_date("12/25", "es").readings == (DateRule(12, 25),)  # 25 is no month
    assert read_date("4/4", "en").readings == (DateRule(4, 4),)


MONDAY = date(2026, 3, 2)


@pytest.mark.parametrize(
    ("typed", "locale", "on"),
    [
        ("today", "en", date(2026, 3, 2)),
        ("Tomorrow", "en", date(2026, 3, 3)),
        ("the day after tomorrow", "en", date(2026, 3, 4)),
        ("hoy", "es", date(2026, 3, 2)),
        ("mañana", "es", date(2026, 3, 3)),  # at a date question: tomorrow, not the morning
        ("Manana", "es", date(2026, 3, 3)),
        ("pasado mañana", "es", date(2026, 3, 4)),
        ("next Friday", "en", date(2026, 3, 6)),
        ("monday", "en", date(2026, 3, 9)),  # the coming one, never today
        ("el próximo viernes", "es", date(2026, 3, 6)),
        ("el viernes", "es", date(2026, 3, 6)),
        ("el viernes que viene", "es", date(2026, 3, 6)),
    ],
)
def test_days_said_from_today(typed: str, locale: str, on: date) -> None:
    assert read_date(typed, locale, MONDAY).readings == (DateRule(on.month, on.day, on.year),)


def test_days_said_from_today_need_a_today() -> None:
    assert read_date("tomorrow", "en").readings == ()


@pytest.mark.parametrize(
    ("typed", "locale", "month", "day", "year"),
    [
        ("31/02", "en", 2, 31, None),
        ("31/02", "es", 2, 31, None),
        ("02/31", "en", 2, 31, None),
        ("31 April", "en", 4, 31, None),
        ("30 de febrero", "es", 2, 30, None),
        ("29 February 2027", "en", 2, 29, 2027),
        ("2027-02-29", "en", 2, 29, 2027),
    ],
)
def test_a_day_the_month_has_not_is_told_apart(
    typed: str, locale: str, month: int, day: int, year: int | None
) -> None:
    reading = read_date(typed, locale)
    assert reading.readings == ()
    assert reading.no_such_day == DateRule(month, day, year)


@pytest.mark.parametrize("typed", ["14/14", "soon", "32/01", "1 Smarch"])
def test_not_a_date_is_no_such_day_either(typed: str) -> None:
    assert read_date(typed, "en").no_such_day is None


def test_month_names_in_the_users_language_and_shown_back_in_it() -> None:
    [rule] = read_date("14 de febrero de 2027", "es").readings
    assert rule == DateRule(2, 14, 2027)
    assert read_date("3 de Septiembre", "es").readings == (DateRule(9, 3),)
    assert show_date(rule, "es") == "14 de febrero de 2027"
    assert show_date(DateRule(2, 29), "en") == "February 29"
    assert show_date(DateRule(2, 29, 2028), "en") == "February 29, 2028"
