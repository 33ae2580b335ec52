"""Dates as people type them, in English and in the user's own language."""

from __future__ import annotations

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


def test_two_readings_lead_with_the_order_the_language_writes() -> None:
    american = read_date("3/2", "en").readings
    spanish = read_date("3/2", "es").readings
    assert american == (DateRule(3, 2), DateRule(2, 3))  # month first
    assert spanish == (DateRule(2, 3), DateRule(3, 2))  # day first


def test_month_names_in_the_users_language_and_shown_back_in_it() -> None:
    [rule] = read_date("14 de febrero de 2027", "es").readings
    assert rule == DateRule(2, 14, 2027)
    assert read_date("3 de Septiembre", "es").readings == (DateRule(9, 3),)
    assert show_date(rule, "es") == "14 de febrero de 2027"
    assert show_date(DateRule(2, 29), "en") == "February 29"
    assert show_date(DateRule(2, 29, 2028), "en") == "February 29, 2028"
