"""What admins type after /reminder, read into requests or a precise, kind problem.

    /reminder add 09:00 Europe/Berlin mon-fri theme grief
    /reminder add 21:30 America/Chicago text You are not alone tonight.
    /reminder list | pause 2 | resume 2 | delete 2
    /recordatorio añadir 09:00 Europe/Madrid lun-vie tema duelo
    /recordatorio lista | pausar 2 | reanudar 2 | borrar 2

The words come in every language the bot speaks (words.py), whatever the group reads.

The words of `add` may come in any order, except that `text` takes the rest
of the line as it was typed. Discord builds the same line from its slash
command options, so both platforms share this one reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.content_pack.ids import Msg, ReminderMsg
from bot.flows.validation import parse_time_of_day, parse_timezone
from bot.reminders.words import (
    ACTION_WORDS,
    TEXT_KEYWORDS,
    THEME_KEYWORDS,
    THEME_WORDS,
    Action,
    folded,
    read_reminder_days,
)
from bot.scheduling.rules import ALL_DAYS
from bot.storage.group_reminders import ReminderSpec

__all__ = ["Action", "ActionRequest", "AddRequest", "Problem", "Request", "parse_request"]

MAX_OWN_TEXT = 500  # characters: a reminder is a line or two, and fits every platform
_TEXT_KEYWORD = re.compile(
    r"(?:^|\s)(?:" + "|".join(sorted(TEXT_KEYWORDS)) + r")(?:\s+|$)", re.IGNORECASE
)
_LOOKS_LIKE_TIME = re.compile(r"^\d{1,2}\s*[:.hH]\s*\d{1,2}$")


@dataclass(frozen=True, slots=True)
class AddRequest:
    spec: ReminderSpec


@dataclass(frozen=True, slots=True)
class ActionRequest:
    action: Action
    number: int | None = None  # None only for LIST


@dataclass(frozen=True, slots=True)
class Problem:
    """Why the line could not be used: a message and the values it names."""

    message: Msg
    values: dict[str, str] = field(default_factory=dict)


Request = AddRequest | ActionRequest | Problem


def parse_request(args: str) -> Request:
    words = args.split(maxsplit=1)
    if not words:
        return Problem(ReminderMsg.REMINDER_HELP)
    head, rest = folded(words[0]), words[1] if len(words) > 1 else ""
    action = ACTION_WORDS.get(head)
    if action is Action.ADD:
        return _parse_add(rest)
    if action is None:
        return Problem(ReminderMsg.REMINDER_HELP)
    if action is Action.LIST:
        return ActionRequest(Action.LIST)
    number = rest.strip().lstrip("#")
    if not number.isdecimal() or not 0 < int(number) < 10_000:
        return Problem(ReminderMsg.REMINDER_NEEDS_NUMBER, {"action": action.value})
    return ActionRequest(action, int(number))


@dataclass
class _Words:
    """What the words before `text` said, filled in as they are read."""

    local_time: str | None = None
    timezone: str | None = None
    weekdays: frozenset[int] | None = None
    theme: str | None = None


def _parse_add(rest: str) -> AddRequest | Problem:
    own_text: str | None = None
    found = _TEXT_KEYWORD.search(rest)
    if found is not None:
        own_text = rest[found.end() :].strip()
        rest = rest[: found.start()]
        if not own_text:
            return Problem(ReminderMsg.REMINDER_TEXT_EMPTY)
        if len(own_text) > MAX_OWN_TEXT:
            return Problem(ReminderMsg.REMINDER_TEXT_TOO_LONG, {"limit": str(MAX_OWN_TEXT)})
    words = _read_words(rest.split())
    if isinstance(words, Problem):
        return words
    if words.local_time is None:
        return Problem(ReminderMsg.REMINDER_NEEDS_TIME)
    if words.timezone is None:
        return Problem(ReminderMsg.REMINDER_NEEDS_TIMEZONE)
    if own_text is not None and words.theme is not None:
        return Problem(ReminderMsg.REMINDER_THEME_OR_TEXT)
    days = words.weekdays or ALL_DAYS
    return AddRequest(ReminderSpec(words.timezone, words.local_time, days, words.theme, own_text))


def _read_words(words: list[str]) -> _Words | Problem:
    read = _Words()
    pending = iter(words)
    for word in pending:
        if folded(word) in THEME_KEYWORDS:
            read.theme = parse_theme(next(pending, ""))
            if read.theme is None:
                return Problem(ReminderMsg.REMINDER_BAD_THEME)  # the themes are named in the reply
        elif (parsed_time := parse_time_of_day(word)) is not None:
            read.local_time = parsed_time
        elif _LOOKS_LIKE_TIME.match(word):
            return Problem(ReminderMsg.REMINDER_BAD_TIME, {"given": word})
        elif (parsed_days := read_reminder_days(word)) is not None:
            read.weekdays = parsed_days
        elif (parsed_zone := parse_timezone(word)) is not None:
            read.timezone = parsed_zone
        else:
            return Problem(ReminderMsg.REMINDER_UNKNOWN_WORD, {"given": word[:40]})
    return read


def parse_theme(word: str) -> str | None:
    """A theme by its id ("grief") or its word in any language ("duelo")."""
    return THEME_WORDS.get(folded(word))
