"""Asking for the user's country, to show the right helplines: for onboarding and settings."""

from __future__ import annotations

from bot.content_pack.countries import country_for_timezone
from bot.content_pack.ids import Msg
from bot.core.replies import Reply
from bot.flows.base import Flow
from bot.flows.context import Choice, FlowContext
from bot.flows.parsing.countries import parse_country
from bot.safety.normalise import normalise
from bot.storage import users


def _named_in_pack(ctx: FlowContext, answer: str) -> str | None:
    """The country whose name, in any language of the pack, is what was typed ("España",
    "los Países Bajos")."""
    typed = normalise(answer).strip(" .")
    for content in ctx.services.content.locales.values():
        for code, country in content.countries.items():
            if typed in {normalise(country.name), normalise(country.sentence_name)}:
                return code
    return None


def display_name(ctx: FlowContext, code: str) -> str:
    """The pack's name for a country ("United Kingdom"), as on a button."""
    return ctx.services.content.country_label(ctx.locale, code)


def in_sentence(ctx: FlowContext, code: str) -> str:
    """The country as it reads inside a sentence ("the United Kingdom")."""
    return ctx.services.content.country_in_sentence(ctx.locale, code)


async def ask_country(flow: Flow, ctx: FlowContext, step: str) -> Reply:
    """Suggest the country of the user's time zone; another one can be typed, or skipped."""
    user = await ctx.ensure_user()
    suggested = user.country or country_for_timezone(user.timezone)
    rows: list[list[Choice]] = []
    if suggested is not None:
        rows.append([Choice(suggested, display_name(ctx, suggested))])
        message = Msg.ASK_COUNTRY_SUGGESTED
    else:
        message = Msg.ASK_COUNTRY
    rows.append([Choice("other", Msg.COUNTRY_OTHER), Choice("skip", Msg.COUNTRY_SKIP)])
    reply = await flow.ask(ctx, step, message, rows)
    if suggested is None:
        return reply
    text = ctx.text(Msg.ASK_COUNTRY_SUGGESTED, country=in_sentence(ctx, suggested))
    return Reply(text, buttons=reply.buttons)


async def answer_country(ctx: FlowContext, answer: str) -> tuple[str | None, list[Reply]]:
    """Save a typed or tapped country. Returns (saved code or None, replies).

    "other" asks for the name; "skip" saves nothing; an unknown name asks again.
    """
    if answer == "other":
        return None, [ctx.reply(Msg.ASK_COUNTRY)]
    if answer == "skip":
        return None, [ctx.reply(Msg.COUNTRY_SKIPPED)]
    code = _named_in_pack(ctx, answer) or parse_country(answer)
    if code is None:
        return None, [ctx.reply(Msg.BAD_COUNTRY)]
    user = await ctx.ensure_user()
    async with ctx.db.transaction() as tx:
        await users.set_country(tx, user.id, code)
    return code, [ctx.reply(Msg.COUNTRY_SAVED, country=in_sentence(ctx, code))]
