"""Discord's gateway events as core events: addresses, DM text, command options."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.content_pack.commands import Command
from bot.core.events import Address, CommandIssued, Event, TextMessage

PLATFORM = "discord"
_COMMANDS = frozenset(command.value for command in Command)


def private_address(user_id: int | str) -> Address:
    """A user's own conversation with Steady (their DMs). Personal things always go here:
    the users table keeps the chat id of a user's first event, which may be a guild's."""
    return Address(PLATFORM, str(user_id), str(user_id), is_group=False)


def channel_address(channel_id: int | str, user_id: int | str) -> Address:
    return Address(PLATFORM, str(channel_id), str(user_id), is_group=True)


def dm_event(user_id: int | str, text: str) -> Event:
    """A DM. "/checkin" typed as plain text (not picked from the command menu) is still
    the command, as it is on the other platforms."""
    address = private_address(user_id)
    if text.startswith("/"):
        head, _, rest = text[1:].partition(" ")
        name = head.casefold()
        if name in _COMMANDS:
            return CommandIssued(address, name, rest.strip())
    return TextMessage(address, text)


def dm_edit_event(user_id: int | str, text: str) -> Event:
    """A DM the user changed: its new words, screened, never read as a command or answer."""
    return TextMessage(private_address(user_id), text, edited=True)


def options_of(data: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    options = (data or {}).get("options") or []
    return [option for option in options if isinstance(option, Mapping)]


def values_of(options: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Option name -> its value as text (integers as digits)."""
    return {
        str(option.get("name")): str(option.get("value")).strip()
        for option in options
        if option.get("value") is not None
    }
