"""Asking for a time zone, for onboarding and settings: a place, confirmed by its time now.

    (typed) ──one zone──────────────────────────▶ confirm ──[Yes]──▶ the flow saves it
       │                                             └──[No, try another]──▶ asked again
       └──several zones, an offset or an abbreviation──▶ pick ──[a place]──▶ confirm

Nothing is stored until the user says yes to a place and its local time: an
offset or abbreviation ("GMT+2", "EST") is never stored at all, the places it
usually means are offered instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from babel.dates import get_timezone_location

from bot.content_pack.ids import Msg
from bot.content_pack.plurals import babel_locale
from bot.core.replies import Reply
from bot.flows.base import Flow
from bot.flows.context import Choice, FlowContext, Next
from bot.flows.parsing.answers import is_yes_or_no
from bot.flows.parsing.zones import (
    ZoneGuess,
    country_zones,
    distinct,
    is_zone,
    local_time,
    place_name,
    read_zone,
)
from bot.storage.flow_positions import FlowPosition

YES, AGAIN = "yes", "again"
_PER_ROW = 2


@dataclass(frozen=True, slots=True)
class ZoneSteps:
    """The step names a flow gives the three parts of the question."""

    ask: str
    pick: str
    confirm: str


async def answer_zone(flow: Flow, ctx: FlowContext, steps: ZoneSteps, text: str) -> list[Reply]:
    """Typed text at any of the three steps: read it as a place, a zone, or an offset.
    A yes or a no is none of them ("sí" is not Slovenia's code)."""
    if is_yes_or_no(ctx.services.content, text):
        return [ctx.reply(Msg.NOT_A_PLACE)]
    guess = read_zone(text, ctx.now())
    if guess is None:
        return [ctx.reply(Msg.BAD_TIMEZONE)]
    if guess.settled is not None:
        return [await confirm_zone(flow, ctx, steps, guess.settled)]
    return [await _offer(flow, ctx, steps, guess)]


async def confirm_zone(flow: Flow, ctx: FlowContext, steps: ZoneSteps, zone: str) -> Reply:
    local = local_time(zone, ctx.now())
    rows = ((Choice(YES, Msg.TIMEZONE_YES), Choice(AGAIN, Msg.TIMEZONE_AGAIN, means="no")),)
    place = _place_and_zone(ctx, zone)
    text = ctx.text(Msg.TIMEZONE_CONFIRM, place=place, time=f"{local:%H:%M}")
    return Reply(text, buttons=await flow.show(ctx, steps.confirm, rows, {"zone": zone}))


async def picked_zone(
    flow: Flow, ctx: FlowContext, steps: ZoneSteps, value: str
) -> list[Reply] | None:
    """A tap at the pick step on a place to confirm; NOT_A_CHOICE for anything else."""
    if is_zone(value):
        return [await confirm_zone(flow, ctx, steps, value)]
    return None


async def ask_zone_in_country(flow: Flow, ctx: FlowContext, steps: ZoneSteps, code: str) -> Reply:
    """The zone question for a country already named: its one zone to confirm, or its
    zones to choose from."""
    zones = distinct(country_zones(code), ctx.now())
    if len(zones) == 1:
        return await confirm_zone(flow, ctx, steps, zones[0])
    return await _offer(flow, ctx, steps, ZoneGuess(zones, certain=True))


def confirmed_zone(position: FlowPosition, value: str) -> str | None:
    """The zone the user just said yes to, if this was a yes to a zone we offered."""
    zone = position.data.get("zone")
    return zone if value == YES and isinstance(zone, str) and is_zone(zone) else None


def again(steps: ZoneSteps) -> Next:
    """Back to the first question, asked in other words."""
    return Next(steps.ask, question=Msg.TIMEZONE_ASK_AGAIN)


async def _offer(flow: Flow, ctx: FlowContext, steps: ZoneSteps, guess: ZoneGuess) -> Reply:
    now = ctx.now()
    choices = [
        Choice(zone, ctx.text(Msg.TIMEZONE_CHOICE, place=local_place_name(ctx, zone),
                              time=f"{local_time(zone, now):%H:%M}"))
        for zone in guess.zones
    ]  # fmt: skip
    rows = [choices[i : i + _PER_ROW] for i in range(0, len(choices), _PER_ROW)]
    rows.append([Choice(AGAIN, Msg.TIMEZONE_NONE_OF_THESE)])
    message = Msg.TIMEZONE_PICK if guess.certain else Msg.TIMEZONE_PICK_FIXED
    return Reply(ctx.text(message), buttons=await flow.show(ctx, steps.pick, rows))


def _place_and_zone(ctx: FlowContext, zone: str) -> str:
    place = local_place_name(ctx, zone)
    return zone if place == zone else f"{place} ({zone})"


def local_place_name(ctx: FlowContext, zone: str) -> str:
    """The zone's city as the user's language names it ("Ciudad de México"), from CLDR;
    in the default locale, and where CLDR has no name, as the zone spells it."""
    if ctx.locale == ctx.services.content.default_locale or "/" not in zone:
        return place_name(zone)
    try:
        city = get_timezone_location(zone, locale=babel_locale(ctx.locale), return_city=True)
    except (LookupError, ValueError):
        return place_name(zone)
    return city or place_name(zone)
