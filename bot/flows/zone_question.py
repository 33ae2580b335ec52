"""Asking for a time zone, for onboarding and settings: a place, confirmed by its time now.

    (typed) ──one zone──────────────────────────▶ confirm ──[Yes]──▶ the flow saves it
       │                                             └──[No, try another]──▶ asked again
       └──several zones, an offset or an abbreviation──▶ pick ──[a place]──▶ confirm

Nothing is stored until the user says yes to a place and its local time: an
offset or abbreviation ("GMT+2", "EST") is never stored at all, the places it
usually means are offered instead.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from babel.dates import get_timezone_location

from bot.content_pack.countries import country_for_timezone
from bot.content_pack.ids import AnswersMsg, OnboardingMsg
from bot.content_pack.plurals import babel_locale
from bot.core.replies import Reply
from bot.flows.base import Flow
from bot.flows.context import Choice, FlowContext, Next
from bot.flows.parsing.answers import is_yes_or_no, without_place_lead
from bot.flows.parsing.places import place_index, places_ready
from bot.flows.parsing.zones import (
    ZoneGuess,
    country_zones,
    distinct,
    is_zone,
    local_time,
    place_name,
    read_zone,
)
from bot.storage.flow_positions import FlowData, FlowPosition

YES, AGAIN = "yes", "again"
_NAMED = "named"  # the pick step's places by zone, when they were found by name
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
        return [ctx.reply(AnswersMsg.NOT_A_PLACE)]
    guess = await read_place(ctx, text)
    if guess is None:
        return [ctx.reply(OnboardingMsg.BAD_TIMEZONE)]
    if guess.settled is not None:
        named = guess.places[0][1:] if guess.places else None
        return [await confirm_zone(flow, ctx, steps, guess.settled, named, guess.close)]
    return [await _offer(flow, ctx, steps, guess)]


async def read_place(ctx: FlowContext, text: str, towns: bool = True) -> ZoneGuess | None:
    """`text` read as a place ("I live in Leeds" as "Leeds"). The list of the world's
    towns is read on first use, in a thread, so nobody else's reply waits on it.
    `towns` False: only zones, their cities and countries (for text that was not asked
    for as a place, where a greeting must not become a town)."""
    if towns and not places_ready():
        await asyncio.to_thread(place_index)
    now = ctx.now()
    rest = without_place_lead(ctx.services.content, text)
    found = None if rest is None else read_zone(rest, now, towns)
    return found or read_zone(text, now, towns)


async def confirm_zone(
    flow: Flow,
    ctx: FlowContext,
    steps: ZoneSteps,
    zone: str,
    named: tuple[str, str] | None = None,
    close: bool = False,
) -> Reply:
    """ "It's 09:00 in Leeds, United Kingdom (Europe/London) now. Is that right?", or
    "Did you mean ...?" for a near spelling. `named`: the place's (name, country)."""
    local = local_time(zone, ctx.now())
    rows = (
        (
            Choice(YES, OnboardingMsg.TIMEZONE_YES),
            Choice(AGAIN, OnboardingMsg.TIMEZONE_AGAIN, means="no"),
        ),
    )
    place = _place_and_zone(ctx, zone, named)
    message = AnswersMsg.PLACE_DID_YOU_MEAN if close else OnboardingMsg.TIMEZONE_CONFIRM
    text = ctx.text(message, place=place, time=f"{local:%H:%M}")
    return Reply(text, buttons=await flow.show(ctx, steps.confirm, rows, {"zone": zone}))


async def picked_zone(
    flow: Flow, ctx: FlowContext, steps: ZoneSteps, value: str, position: FlowPosition
) -> list[Reply] | None:
    """A tap at the pick step on a place to confirm; NOT_A_CHOICE for anything else."""
    if not is_zone(value):
        return None
    named = position.data.get(_NAMED)
    places = json.loads(named) if isinstance(named, str) else {}
    place = places.get(value) if isinstance(places, dict) else None
    pair = (str(place[0]), str(place[1])) if isinstance(place, list) and len(place) == 2 else None
    return [await confirm_zone(flow, ctx, steps, value, pair)]


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
    return Next(steps.ask, question=OnboardingMsg.TIMEZONE_ASK_AGAIN)


async def _offer(flow: Flow, ctx: FlowContext, steps: ZoneSteps, guess: ZoneGuess) -> Reply:
    now = ctx.now()
    named = {zone: (name, country) for zone, name, country in guess.places}

    def label(zone: str) -> str:
        if zone in named:  # "Córdoba, Spain": places of one name in several countries
            name, country = named[zone]
            return f"{name}, {ctx.services.content.country_label(ctx.locale, country)}"
        return local_place_name(ctx, zone)

    choices = [
        Choice(zone, ctx.text(OnboardingMsg.TIMEZONE_CHOICE, place=label(zone),
                              time=f"{local_time(zone, now):%H:%M}"))
        for zone in guess.zones
    ]  # fmt: skip
    rows = [choices[i : i + _PER_ROW] for i in range(0, len(choices), _PER_ROW)]
    rows.append([Choice(AGAIN, OnboardingMsg.TIMEZONE_NONE_OF_THESE)])
    message = OnboardingMsg.TIMEZONE_PICK if guess.certain else OnboardingMsg.TIMEZONE_PICK_FIXED
    data: FlowData = {_NAMED: json.dumps(named, ensure_ascii=False)} if named else {}
    return Reply(ctx.text(message), buttons=await flow.show(ctx, steps.pick, rows, data))


def _place_and_zone(ctx: FlowContext, zone: str, named: tuple[str, str] | None = None) -> str:
    """ "Leeds, United Kingdom (Europe/London)": the place, its country, the zone."""
    place, code = named if named is not None else (local_place_name(ctx, zone), None)
    code = code or country_for_timezone(zone)
    if code is not None:
        country = ctx.services.content.country_label(ctx.locale, code)
        if country not in place:
            place = f"{place}, {country}"
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
