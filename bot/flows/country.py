"""Asking for the user's country, to show the right helplines: for onboarding and settings.

    ask ──[suggested | typed name]──▶ saved ──(the zone is in another country)──▶ mismatch
     │  └──(a two-letter code typed)──▶ "Norway?" ──[yes]──▶ saved        [this country]
     └──[Another country]──▶ (its name, typed)  [Skip]                      ──▶ its zone asked
                                                                           [the zone's one]
                                                                           [both are right]

A yes or a no is never read as a code ("no" is not Norway): at the question they press
the suggestion or "Another country". A code is read only where nothing else fits, and
is always confirmed by the country's name before it is saved.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.content_pack.countries import country_for_timezone, country_names
from bot.content_pack.ids import AnswersMsg, OnboardingMsg
from bot.core.replies import Reply
from bot.flows.base import Flow
from bot.flows.context import Choice, FlowContext, Next, Outcome
from bot.flows.parsing.answers import yes_or_no
from bot.flows.parsing.countries import country_code, country_named
from bot.flows.parsing.zones import zone_fits_country
from bot.flows.zone_question import ZoneSteps, ask_zone_in_country
from bot.storage import users
from bot.storage.flow_positions import FlowData, FlowPosition

OTHER, SKIP = "other", "skip"
# The mismatch question's answers: the country chosen is right (so the zone is asked
# again), the zone's country is, or both are (someone abroad, or near a border).
THIS_COUNTRY, ZONE_COUNTRY, BOTH = "country", "zone", "both"

Done = Callable[[FlowContext, list[Reply]], Awaitable[Outcome]]


@dataclass(frozen=True, slots=True)
class CountrySteps:
    """The step names a flow gives the question and the mismatch question."""

    ask: str
    mismatch: str
    zone: ZoneSteps


def display_name(ctx: FlowContext, code: str) -> str:
    """The pack's name for a country ("United Kingdom"), as on a button."""
    return ctx.services.content.country_label(ctx.locale, code)


def in_sentence(ctx: FlowContext, code: str) -> str:
    """The country as it reads inside a sentence ("the United Kingdom")."""
    return ctx.services.content.country_in_sentence(ctx.locale, code)


async def ask_country(flow: Flow, ctx: FlowContext, step: str) -> Reply:
    """Suggest the country of the user's time zone; another one can be typed, or skipped.
    A typed yes presses the suggestion, a no "Another country"."""
    user = await ctx.ensure_user()
    suggested = user.country or country_for_timezone(user.timezone)
    rows: list[list[Choice]] = []
    if suggested is not None:
        rows.append([Choice(suggested, display_name(ctx, suggested), means="yes")])
        message = OnboardingMsg.ASK_COUNTRY_SUGGESTED
    else:
        message = OnboardingMsg.ASK_COUNTRY
    rows.append(
        [
            Choice(OTHER, OnboardingMsg.COUNTRY_OTHER, means="no"),
            Choice(SKIP, OnboardingMsg.COUNTRY_SKIP),
        ]
    )
    reply = await flow.ask(ctx, step, message, rows)
    if suggested is None:
        return reply
    text = ctx.text(OnboardingMsg.ASK_COUNTRY_SUGGESTED, country=in_sentence(ctx, suggested))
    return Reply(text, buttons=reply.buttons)


async def answer_country(ctx: FlowContext, steps: CountrySteps, value: str, done: Done) -> Outcome:
    """A country tapped or typed at the question: saved (then checked against the time
    zone), confirmed first when it was a code, or asked for again."""
    if value == OTHER:
        return [ctx.reply(OnboardingMsg.ASK_COUNTRY)]
    if value == SKIP:
        return await done(ctx, [ctx.reply(OnboardingMsg.COUNTRY_SKIPPED)])
    content = ctx.services.content
    if value.isupper() and value in country_names():
        code: str | None = value  # a button's country (typed text arrives casefolded)
    elif yes_or_no(content, value) is not None:
        return [
            ctx.reply(OnboardingMsg.ASK_COUNTRY)
        ]  # nothing here means yes or no: the name, please
    else:
        code = country_named(content, value)
    if code is None:
        coded = country_code(value)
        if coded is None:
            return [ctx.reply(OnboardingMsg.BAD_COUNTRY)]
        name = display_name(ctx, coded)
        rows = (
            (Choice(coded, name, means="yes"),),
            (
                Choice(OTHER, OnboardingMsg.COUNTRY_OTHER, means="no"),
                Choice(SKIP, OnboardingMsg.COUNTRY_SKIP),
            ),
        )
        return Next(
            steps.ask, question=ctx.text(AnswersMsg.COUNTRY_CODE_CONFIRM, country=name), rows=rows
        )
    user = await ctx.ensure_user()
    async with ctx.db.transaction() as tx:
        await users.set_country(tx, user.id, code)
    mismatch = mismatch_question(ctx, steps, code, user.timezone, chose_country=True)
    if mismatch is not None:
        return mismatch
    return await done(ctx, [ctx.reply(OnboardingMsg.COUNTRY_SAVED, country=in_sentence(ctx, code))])


def mismatch_question(
    ctx: FlowContext, steps: CountrySteps, code: str, zone: str | None, chose_country: bool
) -> Next | None:
    """ "Your time zone is in Slovenia, and you chose Mexico: which is right?", once, when
    the country and the zone disagree; None when they agree (or nothing can be said)."""
    zone_country = country_for_timezone(zone)
    if zone is None or zone_country is None or zone_country == code:
        return None
    if zone_fits_country(zone, code, ctx.now()):
        return None
    message = (
        AnswersMsg.COUNTRY_ZONE_MISMATCH if chose_country else AnswersMsg.ZONE_COUNTRY_MISMATCH
    )
    question = ctx.text(
        message, country=display_name(ctx, code), zone_country=display_name(ctx, zone_country)
    )
    rows = (
        (Choice(THIS_COUNTRY, display_name(ctx, code)),),
        (Choice(ZONE_COUNTRY, display_name(ctx, zone_country)),),
        (Choice(BOTH, AnswersMsg.MISMATCH_BOTH),),
    )
    data: FlowData = {"country": code, "zone_country": zone_country}
    return Next(steps.mismatch, data, question=question, rows=rows)


async def answer_mismatch(
    flow: Flow,
    ctx: FlowContext,
    steps: CountrySteps,
    position: FlowPosition,
    value: str,
    done: Done,
) -> Outcome:
    code, zone_country = position.data.get("country"), position.data.get("zone_country")
    if not isinstance(code, str) or not isinstance(zone_country, str):
        return None  # the question's data is lost: "use the buttons"
    if value == THIS_COUNTRY:
        return [await ask_zone_in_country(flow, ctx, steps.zone, code)]
    if value == ZONE_COUNTRY:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await users.set_country(tx, user.id, zone_country)
        return await done(
            ctx, [ctx.reply(OnboardingMsg.COUNTRY_SAVED, country=in_sentence(ctx, zone_country))]
        )
    if value == BOTH:
        return await done(
            ctx, [ctx.reply(AnswersMsg.MISMATCH_KEPT, country=in_sentence(ctx, code))]
        )
    return None
