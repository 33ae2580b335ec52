"""What admins type after /reminder: every form read right, every mistake named kindly."""

from __future__ import annotations

import pytest

from bot.content_pack.ids import Msg, ReminderMsg
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
        ("add Europe/Paris", ReminderMsg.REMINDER_NEEDS_TIME),
        ("add 25:00 Europe/Paris", ReminderMsg.REMINDER_BAD_TIME),
        ("add 09:00", ReminderMsg.REMINDER_NEEDS_TIMEZONE),
        ("add 09:00 Mars/Phobos", ReminderMsg.REMINDER_UNKNOWN_WORD),
        ("add 09:00 UTC+25", ReminderMsg.REMINDER_UNKNOWN_WORD),
        ("add 09:00 UTC theme", ReminderMsg.REMINDER_BAD_THEME),
        ("add 09:00 UTC theme sunshine", ReminderMsg.REMINDER_BAD_THEME),
        ("add 09:00 UTC theme grief text hi", ReminderMsg.REMINDER_THEME_OR_TEXT),
        ("add 09:00 UTC text   ", ReminderMsg.REMINDER_TEXT_EMPTY),
        ("", ReminderMsg.REMINDER_HELP),
        ("fly 2", ReminderMsg.REMINDER_HELP),
        ("pause", ReminderMsg.REMINDER_NEEDS_NUMBER),
        ("delete two", ReminderMsg.REMINDER_NEEDS_NUMBER),
        ("resume -1", ReminderMsg.REMINDER_NEEDS_NUMBER),
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
    assert too_long.message is ReminderMsg.REMINDER_TEXT_TOO_LONG


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


# The same words in Spanish, which work in any group


def test_spanish_add_with_every_part() -> None:
    spec = added("añadir 09:00 Europe/Madrid lun-vie tema duelo").spec
    assert (spec.local_time, spec.timezone, spec.theme) == ("09:00", "Europe/Madrid", "grief")
    assert spec.weekdays == frozenset(range(5))
    assert added("AGREGAR 8:15 UTC mié,sáb tema sueño").spec.weekdays == frozenset({2, 5})
    assert added("anadir 8:15 UTC mie,sab tema sueno").spec.theme == "sleep"  # no accents


def test_spanish_day_words_read_as_one_word() -> None:
    assert added("añadir 09:00 UTC laborables").spec.weekdays == frozenset(range(5))
    assert added("añadir 09:00 UTC findes").spec.weekdays == frozenset({5, 6})
    assert added("añadir 09:00 UTC fines-de-semana").spec.weekdays == frozenset({5, 6})
    assert added("añadir 09:00 UTC diario").spec.weekdays == ALL_DAYS
    assert added("añadir 09:00 UTC lunes-miércoles").spec.weekdays == frozenset({0, 1, 2})


def test_spanish_text_keeps_the_rest_of_the_line() -> None:
    spec = added("añadir 21:30 America/Bogota texto Un momento de calma, texto incluido.").spec
    assert spec.own_text == "Un momento de calma, texto incluido."
    assert problem("añadir 09:00 UTC tema duelo texto hola").message is (
        ReminderMsg.REMINDER_THEME_OR_TEXT
    )
    assert problem("añadir 09:00 UTC tema alegría").message is ReminderMsg.REMINDER_BAD_THEME


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("lista", ActionRequest(Action.LIST)),
        ("ver", ActionRequest(Action.LIST)),
        ("pausar 2", ActionRequest(Action.PAUSE, 2)),
        ("reanudar #3", ActionRequest(Action.RESUME, 3)),
        ("borrar 1", ActionRequest(Action.DELETE, 1)),
        ("Eliminar 4", ActionRequest(Action.DELETE, 4)),
    ],
)
def test_spanish_actions(line: str, expected: ActionRequest) -> None:
    assert parse_request(line) == expected


def test_a_spanish_action_without_a_number_is_named() -> None:
    found = problem("pausar")
    assert found.message is ReminderMsg.REMINDER_NEEDS_NUMBER
    assert found.values == {"action": "pause"}  # the reply names it in the group's language
