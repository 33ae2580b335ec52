"""/help and /about: fixed texts from the pack."""

from __future__ import annotations

from bot.content_pack.ids import GeneralMsg
from bot.core.replies import Reply
from bot.flows.context import FlowContext


def help_text(ctx: FlowContext) -> list[Reply]:
    # In a group, everyone reads the list: the neutral descriptions, as in the menu.
    descriptions = ctx.services.content.command_descriptions(
        ctx.locale, discreet=ctx.address.is_group
    )
    name = ctx.services.content.command_name
    lines = [f"/{name(ctx.locale, command)} - {text}" for command, text in descriptions.items()]
    body = "\n".join(
        [ctx.text(GeneralMsg.HELP_INTRO), "", *lines, "", ctx.text(GeneralMsg.HELP_FOOTER)]
    )
    return [Reply(body)]


def about_text(ctx: FlowContext) -> list[Reply]:
    return [ctx.reply(GeneralMsg.ABOUT)]
