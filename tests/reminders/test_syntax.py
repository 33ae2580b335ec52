"""What admins type after /reminder: every form read right, every mistake named kindly."""

from __future__ import annotations

import pytest

from bot.content_pack.ids import Msg
from bot.reminders.syntax import (
    MAX_OWN_TEXT,
    Action,
    ActionRequest,
    AddRequest,
    Problem,
    parse_request,
)
from bot.scheduling.rules import ALL_DAYS


def added(line: str) -> AddRequest:
    request = parse_request(line)
    assert isinstance(request, AddRequest), request
    return request


def problem(line: str) -> Problem:
    request = parse_request(line)
    assert isinstance(request, Problem), request
    return request


def test_add_with_every_part_in_any_order() -> None:
    spec = added("add mon-fri theme grief europe/berlin 9.05").spec
    assert (spec.local_time, spec.timezone) == ("09:05", "Europe/Berlin")
    assert spec.weekdays == frozenset(range(5))
    assert (spec.theme, spec.own_text) == ("grief", None)


def test_add_defaults_to_every_day_and_every_theme() -> None:
    spec = added("ADD 21:30 UTC").spec
    assert spec.weekdays == ALL_DAYS
    assert spec.theme is None
    assert spec.own_text is None


def test_text_keeps_the_rest_of_the_line_as_typed() -> None:
    spec = added("add 07:00 Asia/Kolkata weekends text  Breathe. <b>You</b> matter & 09:00").spec
    assert spec.own_text == "Breathe. <b>You</b> matter & 09:00"
    assert spec.weekdays == frozenset({5, 6})


def test_theme_names_accept_dashes() -> None:
    assert added("add 08:00 UTC theme bond-forming").spec.theme == "bond_forming"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("add Europe/Paris", Msg.REMINDER_NEEDS_TIME),
        ("add 25:00 Europe/Paris", Msg.REMINDER_BAD_TIME),
        ("add 09:00", Msg.REMINDER_NEEDS_TIMEZONE),
        ("add 09:00 Mars/Phobos", Msg.REMINDER_UNKNOWN_WORD),
        ("add 09:00 UTC+25", Msg.REMINDER_UNKNOWN_WORD),
        ("add 09:00 UTC theme", Msg.REMINDER_BAD_THEME),
        ("add 09:00 UTC theme sunshine", Msg.REMINDER_BAD_THEME),
        ("add 09:00 UTC theme grief text hi", Msg.REMINDER_THEME_OR_TEXT),
        ("add 09:00 UTC text   ", Msg.REMINDER_TEXT_EMPTY),
        ("", Msg.REMINDER_HELP),
        ("fly 2", Msg.REMINDER_HELP),
        ("pause", Msg.REMINDER_NEEDS_NUMBER),
        ("delete two", Msg.REMINDER_NEEDS_NUMBER),
        ("resume -1", Msg.REMINDER_NEEDS_NUMBER),
    ],
)
def test_mistakes_are_named(line: str, message: Msg) -> None:
    assert problem(line).message is message


def test_unknown_word_is_quoted_back_short() -> None:
    found = problem("add 09:00 UTC " + "x" * 300)
    assert found.values == {"given": "x" * 40}


def test_own_text_has_a_limit() -> None:
    assert added(f"add 09:00 UTC text {'a' * MAX_OWN_TEXT}").spec.own_text == "a" * MAX_OWN_TEXT
    too_long = problem(f"add 09:00 UTC text {'a' * (MAX_OWN_TEXT + 1)}")
    assert too_long.message is Msg.REMINDER_TEXT_TOO_LONG


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("list", ActionRequest(Action.LIST)),
        ("pause 2", ActionRequest(Action.PAUSE, 2)),
        ("resume #3", ActionRequest(Action.RESUME, 3)),
        ("remove 1", ActionRequest(Action.DELETE, 1)),
    ],
)
def test_actions(line: str, expected: ActionRequest) -> None:
    assert parse_request(line) == expected
