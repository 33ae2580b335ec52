"""Slash commands and button presses: acknowledged within Discord's 3 seconds, answered
through the interaction, with everything personal sent to the user's DMs.

In a guild everything Steady says in answer to an interaction is ephemeral (only the
person who asked sees it); personal commands are handled as if asked in DMs, their
replies go there, and the guild only hears "sent to your DMs". When DMs are closed, the
replies are shown ephemerally instead, so nothing is lost, crisis replies least of all.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot.adapters.discord.commands import command_args
from bot.adapters.discord.inbound import PLATFORM, channel_address, private_address
from bot.adapters.discord.outbound import poster
from bot.adapters.discord.render import NO_MENTIONS, opened_command, text_pieces
from bot.adapters.sending import note_dropped
from bot.content_pack.commands import Command
from bot.content_pack.ids import GeneralMsg, Msg
from bot.core.events import Address, ButtonPressed, CommandIssued
from bot.core.platform import DeliveryError, RecipientUnreachable
from bot.core.replies import Reply
from bot.engine.user_lookup import USER_LOOKUP_SECONDS
from bot.logs import get_logger, log_event
from bot.storage.users import User, find_user, mark_unreachable

if TYPE_CHECKING:
    from bot.adapters.discord.adapter import DiscordAdapter

log = get_logger("discord")

# A press is answered in place (an ephemeral notice) when the router is this quick, else
# acknowledged first: Discord forgets an interaction not answered within 3 seconds.
ACK_WITHIN_SECONDS = 1.5
# Answered in the guild itself (ephemerally): nothing personal is stored or shown by these,
# and /sos must not wait on a DM that may never arrive.
IN_PLACE = frozenset({Command.SOS.value, Command.HELP.value, Command.ABOUT.value})
PERSONAL = frozenset(c.value for c in Command) - IN_PLACE - {Command.REMINDER.value}


class Interactions:
    def __init__(self, adapter: DiscordAdapter) -> None:
        self._adapter = adapter

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        try:
            if interaction.type is discord.InteractionType.application_command:
                await self._on_command(interaction)
            elif interaction.type is discord.InteractionType.component:
                await self._on_press(interaction)
        except Exception as error:  # one failed interaction must not stop the next
            log_event(log, "discord.interaction_failed", logging.ERROR, exc_info=error)

    # Commands ---------------------------------------------------------------------------

    async def _on_command(self, interaction: discord.Interaction) -> None:
        data: Any = interaction.data or {}
        name = str(data.get("name", ""))
        await self._run(interaction, name, command_args(name, data))

    async def _run(self, interaction: discord.Interaction, name: str, args: str) -> None:
        """One command from a slash command or an "open privately" button."""
        in_guild = interaction.guild_id is not None
        await _defer(interaction, ephemeral=in_guild)
        user_id = interaction.user.id
        language = str(interaction.locale)
        if not in_guild:
            self._adapter.remember_dm(user_id, interaction.channel_id)
            event = CommandIssued(private_address(user_id), name, args, language)
            await self._followups(interaction, await self._adapter.router.handle(event), False)
            return
        if name == Command.REMINDER.value:
            # A channel's own settings: the core checks `admin` again before changing them.
            where = channel_address(interaction.channel_id or 0, user_id)
            admin = interaction.permissions.manage_channels
            event = CommandIssued(where, name, args, language, admin=admin)
        else:
            event = CommandIssued(private_address(user_id), name, args, language)
        # Asked before the router runs, since the router marks a user reachable once they
        # use any command: the first command after their DMs failed tells them so, once.
        was_unreachable = await self._unreachable(user_id)
        replies = await self._adapter.router.handle(event)
        await self._answer_in_guild(
            interaction, replies, privately=name in PERSONAL, was_unreachable=was_unreachable
        )

    async def _unreachable(self, user_id: int) -> bool:
        user = await self._user(user_id)
        return user is not None and user.unreachable_since is not None

    async def _user(self, user_id: int) -> User | None:
        """The user's row for a note about their DMs. Bounded like the router's own lookup:
        a stalled read must not hold back the replies (a crisis reply among them) it
        stands in front of. Unknown, the notes fall back to the default language."""
        try:
            return await asyncio.wait_for(
                find_user(self._adapter.db, PLATFORM, str(user_id)), USER_LOOKUP_SECONDS
            )
        except Exception as error:  # a time-out included
            log_event(log, "discord.user_lookup_failed", logging.WARNING, exc_info=error)
            return None

    async def _answer_in_guild(
        self,
        interaction: discord.Interaction,
        replies: Sequence[Reply],
        *,
        privately: bool,
        was_unreachable: bool = False,
    ) -> None:
        """Personal (or `private`) replies to DMs; everything else, and anything DMs
        refused, ephemerally here, followed by what happened to the DMs."""
        user_id = interaction.user.id
        private = private_address(user_id)
        shown: list[Reply] = []
        sent_privately = closed = False
        for reply in replies:
            if not (privately or reply.private):
                shown.append(reply)
                continue
            plain = replace(reply, private=False, group_notice=None, group_fallback=None)
            try:
                await self._adapter.deliver(private, plain)
                sent_privately = True
                continue
            except RecipientUnreachable:
                closed = True
            except DeliveryError as error:
                log_event(log, "discord.private_failed", logging.WARNING, exc_info=error)
            shown.append(replace(plain, ephemeral=True))
        notice = None
        if closed or (was_unreachable and not sent_privately):
            notice = GeneralMsg.DISCORD_DMS_CLOSED
        elif sent_privately:
            notice = GeneralMsg.DISCORD_SENT_TO_DMS
        if notice is not None:
            # After the replies themselves: nothing urgent waits behind a how-to.
            shown.append(Reply(await self._text(user_id, notice)))
        await self._followups(interaction, shown, ephemeral=True)
        if closed:  # after the replies: a busy database must not keep them back
            await self._mark_unreachable(private)

    async def _mark_unreachable(self, address: Address) -> None:
        services = self._adapter.router.services
        try:
            async with services.db.transaction() as tx:
                await mark_unreachable(tx, address, services.clock.now())
        except Exception as error:  # noted next time their DMs fail instead
            log_event(log, "discord.unreachable_not_saved", logging.WARNING, exc_info=error)
            return
        log_event(log, "discord.dms_closed")

    async def _text(self, user_id: int, message: Msg) -> str:
        content = self._adapter.content
        user = await self._user(user_id)
        return content.text(user.locale if user else content.default_locale, message)

    async def _followups(
        self, interaction: discord.Interaction, replies: Sequence[Reply], ephemeral: bool
    ) -> None:
        """Replies as followups; the first fills in the deferred "thinking" message.

        With nothing to say, that placeholder is removed, but only if it is ours: after a
        button press, the original response is the notice already shown, or the message
        the button sits on, and neither may be deleted.
        """
        if not replies:
            if _thinking(interaction):
                await _quietly(interaction.delete_original_response())
            return
        for reply in replies:
            post = poster(
                interaction.followup.send,
                ephemeral=ephemeral or reply.ephemeral,
                silent=reply.silent,
                wait=True,
            )
            try:
                await self._adapter.post(post, reply, self._adapter.patient)
            except DeliveryError as error:
                dropped = self._adapter.urgent_dropped
                note_dropped(reply, error, PLATFORM, log, "discord.followup_dropped", dropped)

    # Buttons ----------------------------------------------------------------------------

    async def _on_press(self, interaction: discord.Interaction) -> None:
        data: Any = interaction.data or {}
        custom_id = str(data.get("custom_id", ""))
        command = opened_command(custom_id)
        if command is not None:
            await self._run(interaction, command, "")
            return
        user_id = interaction.user.id
        in_guild = interaction.guild_id is not None
        on_ephemeral = interaction.message is not None and interaction.message.flags.ephemeral
        if in_guild and not on_ephemeral:
            address = channel_address(interaction.channel_id or 0, user_id)
        else:
            address = private_address(user_id)
        if not in_guild:
            self._adapter.remember_dm(user_id, interaction.channel_id)
        replies = await self._acknowledged(
            interaction, ButtonPressed(address, custom_id, str(interaction.locale))
        )
        if in_guild:
            await self._answer_in_guild(interaction, replies, privately=False)
            return
        for reply in replies:
            if reply.ephemeral:
                await self._followups(interaction, [reply], ephemeral=True)
            else:
                await self._adapter.reply_all(address, [reply])

    async def _acknowledged(
        self, interaction: discord.Interaction, event: ButtonPressed
    ) -> list[Reply]:
        """The router's replies to a press, the press answered within Discord's window:
        a quick ephemeral notice (an expired or someone else's button) answers it directly,
        anything else is acknowledged first and sent after."""
        handling = asyncio.ensure_future(self._adapter.router.handle(event))
        try:
            replies = await asyncio.wait_for(asyncio.shield(handling), ACK_WITHIN_SECONDS)
        except TimeoutError:
            await _quietly(interaction.response.defer())
            return await handling
        if replies and replies[0].ephemeral:
            notice = text_pieces(replies[0].text)[0]
            await _quietly(
                interaction.response.send_message(
                    notice, ephemeral=True, allowed_mentions=NO_MENTIONS
                )
            )
            return replies[1:]
        await _quietly(interaction.response.defer())
        return replies


def _thinking(interaction: discord.Interaction) -> bool:
    """Did we answer with a "thinking" placeholder (deferred a command)?"""
    return interaction.response.type is discord.InteractionResponseType.deferred_channel_message


async def _defer(interaction: discord.Interaction, *, ephemeral: bool) -> None:
    """Acknowledge at once with a "thinking" message; the first followup replaces it."""
    await _quietly(interaction.response.defer(ephemeral=ephemeral, thinking=True))


async def _quietly(request: Any) -> None:
    """An interaction answer that may fail (answered too late: Discord forgot it). The
    followups after it are still tried; ids and kinds only are logged."""
    try:
        await request
    except (discord.HTTPException, discord.InteractionResponded) as error:
        log_event(log, "discord.ack_failed", logging.WARNING, exc_info=error)
