"""What an incoming event means before it is handled: a command typed by a localised
name or reached by a deep link, and the words the safety screen reads (a long text read
off the event loop)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from bot.content_pack.commands import Command
from bot.content_pack.pack import ContentPack
from bot.core.events import CommandIssued, Event, TextMessage
from bot.safety.rules import PIECE

COMMAND_NAMES = frozenset(command.value for command in Command)


def own_command_name(event: Event, content: ContentPack) -> Event:
    """A command typed by its name in a locale (/ajustes) as the command itself."""
    if isinstance(event, CommandIssued) and event.name not in COMMAND_NAMES:
        command = content.command_named(event.name)
        if command is not None:
            return replace(event, name=command.value)
    return event


def deep_linked(event: Event) -> Event:
    """A Telegram link `t.me/<bot>?start=<payload>` arrives as "/start <payload>". Every
    payload Steady puts in a link is a command's name (a group pointing to the private
    chat), so the link runs that command: "/start sos" is /sos, at once."""
    if (
        isinstance(event, CommandIssued)
        and event.name == Command.START.value
        and event.args in COMMAND_NAMES
    ):
        return replace(event, name=event.args, args="")
    return event


def screened_text(event: Event) -> str | None:
    """The words the safety screen reads. Words typed after a command ("/pause i want to
    die") are screened like any text."""
    if isinstance(event, TextMessage):
        return event.text
    if isinstance(event, CommandIssued) and event.args:
        return event.args
    return None


T = TypeVar("T")


async def off_the_loop_if_long(text: str, screen: Callable[..., T], *args: object) -> T:
    """Screen a long text in a worker thread: it is read in bounded pieces, each a run of
    short pattern calls, so the event loop gets its turn between them and no message,
    however long, holds up everyone else's. A short text is quicker screened in place."""
    if len(text) <= PIECE:
        return screen(*args)
    return await asyncio.to_thread(screen, *args)
