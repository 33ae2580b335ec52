"""discord.py's client for the adapter: its events handed over, and the intents it asks
for."""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

import discord

from bot.logs import get_logger, log_event

if TYPE_CHECKING:  # the adapter makes the client; the client only calls back into it
    from bot.adapters.discord.adapter import DiscordAdapter

log = get_logger("discord")


class SteadyClient(discord.Client):
    """discord.py's client with its events handed to the adapter."""

    def __init__(self, adapter: DiscordAdapter, **options: Any) -> None:
        super().__init__(**options)
        self._adapter = adapter

    async def on_message(self, message: discord.Message) -> None:
        try:
            await self._adapter.on_message(message)
        finally:
            if not message.author.bot:
                self._adapter.events_handled += 1

    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        # The raw event, since no message is kept in memory (max_messages=None) for the
        # plain one to compare with.
        try:
            await self._adapter.on_message_edit(payload.message)
        finally:
            if not payload.message.author.bot:
                self._adapter.events_handled += 1

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        try:
            await self._adapter.interactions.on_interaction(interaction)
        finally:
            self._adapter.events_handled += 1

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        # discord.py would print the traceback with the event's arguments: ids and kinds only.
        error = sys.exc_info()[1]
        log_event(log, "discord.event_failed", logging.ERROR, exc_info=error, handler=event_method)


def intents() -> discord.Intents:
    """Guilds (to know the channels commands come from) and DMs. DM content arrives without
    the privileged message-content intent, and nothing here needs members or presences."""
    chosen = discord.Intents.none()
    chosen.guilds = True
    chosen.dm_messages = True
    return chosen
