"""Replies the engine builds itself (a notice about a tap, a pointer to the private chat,
the welcome before /start, the answer to unrecognised text), and the lane and discretion
every reply goes out with."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime

from bot.content_pack.commands import Command
from bot.content_pack.ids import AnswersMsg, GeneralMsg, Msg
from bot.core.replies import Button, Reply
from bot.flows.caring import command_button
from bot.flows.context import FlowContext
from bot.safety.buttons import SOS_SHOW
from bot.scheduling.planner import in_quiet_hours
from bot.storage.users import User

CommandHandler = Callable[[FlowContext], Awaitable[list[Reply]]]

# Static button data of the reply to unrecognised text: start a pause. (Its other button is
# the safety screen's SOS_SHOW.) These presses change nothing before they act: no token.
PAUSE_NOW = "go:pause"

# What may be answered in a group in front of everyone; everything else is personal.
GROUP_COMMANDS = frozenset({Command.HELP, Command.ABOUT})


def sync(handler: Callable[[FlowContext], list[Reply]]) -> CommandHandler:
    async def run(ctx: FlowContext) -> list[Reply]:
        return handler(ctx)

    return run


def notice(ctx: FlowContext, message: Msg) -> Reply:
    """A short notice about a tap itself; platforms that can show it privately to the
    tapper (a Telegram toast, a Discord ephemeral reply) do."""
    return replace(ctx.reply(message), ephemeral=True)


def before_start(ctx: FlowContext) -> Reply:
    """Anything written before /start: a short welcome that says how to begin, a button
    that begins, and where help is if it is needed now."""
    begin = command_button(ctx.text(AnswersMsg.BEFORE_START_BUTTON), Command.START.value)
    buttons = (
        (begin,),
        (Button(ctx.text(GeneralMsg.UNEXPECTED_PAUSE_BUTTON), PAUSE_NOW),),
        (Button(ctx.text(GeneralMsg.UNEXPECTED_SOS_BUTTON), SOS_SHOW),),
    )
    return Reply(ctx.text(AnswersMsg.BEFORE_START), buttons=buttons)


def unrecognised(ctx: FlowContext) -> Reply:
    """Acknowledge, be honest about what the bot can do, and offer the two things
    that help most in a hard moment as buttons (never a list of commands)."""
    buttons = (
        (Button(ctx.text(GeneralMsg.UNEXPECTED_PAUSE_BUTTON), PAUSE_NOW),),
        (Button(ctx.text(GeneralMsg.UNEXPECTED_SOS_BUTTON), SOS_SHOW),),
    )
    return Reply(ctx.text(GeneralMsg.UNEXPECTED_TEXT), buttons=buttons)


def go_private(ctx: FlowContext, command: Command) -> Reply:
    """Personal things never happen in a group: point to the private chat instead."""
    button = Button(ctx.text(GeneralMsg.GROUP_OPEN_PRIVATE), "", open_private=command.value)
    return Reply(ctx.text(GeneralMsg.GROUP_GO_PRIVATE), buttons=((button,),))


def sent_first(replies: list[Reply] | None) -> list[Reply] | None:
    """Safety replies go out in the urgent lane: before every other send waiting."""
    return None if replies is None else [replace(reply, urgent=True) for reply in replies]


def discreetly(user: User | None, replies: list[Reply], now: datetime) -> list[Reply]:
    """Discreet mode (the default): silent in quiet hours, the user's own words protected
    from forwarding. With it off, only quiet hours still silence replies."""
    if user is None:
        return replies
    quiet = in_quiet_hours(user, now)
    return [
        replace(reply, silent=reply.silent or quiet, protect=reply.protect and user.discreet)
        for reply in replies
    ]
