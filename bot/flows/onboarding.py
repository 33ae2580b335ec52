"""First contact: welcome, then time zone, then check-in time, then (optional) country.

/start ──▶ timezone ──(a place)──▶ tzconfirm ──[yes]──▶ time ──(a time)──▶ country ──▶ (left)
             │  └─(several)──▶ tzpick ──[a place]──┘ │ [no]──▶ timezone   [suggested|other|skip]
             │ unknown: explain, stay                └─(a time typed instead: yes, and that time)
                                                                            │ (not the zone's)
                                                         (left) ◀──[either|both]── mismatch
                                                   tzconfirm ◀──[the country's zone]──┘

When the app's language picked a locale other than the default, one question comes
first: "Español / English", each button in its own language. The welcome and everything
after it are in the language chosen (bot/flows/language.py).

The user counts as onboarded once the check-in time is set: the country only
picks helplines, so a user who moves on without answering loses nothing.
"""

from __future__ import annotations

from enum import StrEnum

from bot.content_pack.ids import AnswersMsg, OnboardingMsg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import END, Choice, FlowContext, Next, Outcome
from bot.flows.country import CountrySteps, answer_country, answer_mismatch, ask_country
from bot.flows.language import language_rows, offers_language, save_language
from bot.flows.local_formats import shown_weekdays
from bot.flows.names import FlowName
from bot.flows.parsing.answers import is_yes_or_no
from bot.flows.parsing.times import read_time
from bot.flows.time_question import part_of_day, picked_time, refusal, time_and_days
from bot.flows.validation import both_forms
from bot.flows.zone_question import (
    AGAIN,
    YES,
    ZoneSteps,
    again,
    answer_zone,
    confirmed_zone,
    local_place_name,
    picked_zone,
    read_place,
)
from bot.scheduling.planner import reschedule_user
from bot.storage import checkin_slots, users
from bot.storage.flow_positions import FlowPosition


class OnboardingStep(StrEnum):
    LANGUAGE = "language"
    TIMEZONE = "timezone"
    TZPICK = "tzpick"
    TZCONFIRM = "tzconfirm"
    TIME = "time"
    COUNTRY = "country"
    MISMATCH = "mismatch"


_ZONE_STEPS = ZoneSteps(
    ask=OnboardingStep.TIMEZONE, pick=OnboardingStep.TZPICK, confirm=OnboardingStep.TZCONFIRM
)
_COUNTRY_STEPS = CountrySteps(
    ask=OnboardingStep.COUNTRY, mismatch=OnboardingStep.MISMATCH, zone=_ZONE_STEPS
)


class Onboarding(Flow):
    name = FlowName.ONBOARDING

    def __init__(self) -> None:
        self.steps = self.table({
            # The buttons are the pack's locales, built when asked.
            OnboardingStep.LANGUAGE: Step(
                asks=OnboardingMsg.LANGUAGE_ASK,
                other_choice=self._language,
                on_typed=self._past_language,
            ),
            OnboardingStep.TIMEZONE: Step(asks=OnboardingMsg.ASK_TIMEZONE, on_typed=self._timezone),
            OnboardingStep.TZPICK: Step(
                buttons=((Choice(AGAIN, OnboardingMsg.TIMEZONE_NONE_OF_THESE,
                                 goes_to=self._zone_again),),),
                other_choice=self._zone_picked,  # a place offered: its confirmation
                on_typed=self._timezone,
            ),
            OnboardingStep.TZCONFIRM: Step(
                buttons=((Choice(YES, OnboardingMsg.TIMEZONE_YES, goes_to=self._zone_confirmed),
                          Choice(AGAIN, OnboardingMsg.TIMEZONE_AGAIN, goes_to=self._zone_again)),),
                on_typed=self._confirm_typed,
            ),
            OnboardingStep.TIME: Step(
                asks=OnboardingMsg.ASK_TIME,
                other_choice=self._time_picked,  # a time offered for "evening"
                on_typed=self._time,
            ),
            OnboardingStep.COUNTRY: Step(
                buttons=((Choice("other", OnboardingMsg.COUNTRY_OTHER, goes_to=self._country),
                          Choice("skip", OnboardingMsg.COUNTRY_SKIP, goes_to=self._country)),),
                other_choice=self._country,  # the suggested country, or one typed
                text_as_choice=True,
            ),
            # The buttons name the two countries, built when asked.
            OnboardingStep.MISMATCH: Step(other_choice=self._mismatch),
        })  # fmt: skip

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        user = await ctx.ensure_user()
        if user.onboarded_at is not None:
            return [ctx.reply(OnboardingMsg.WELCOME_BACK)]
        if offers_language(ctx):
            return await self.go(ctx, Next(OnboardingStep.LANGUAGE, rows=language_rows(ctx)))
        return await self._welcome(ctx)

    async def _welcome(self, ctx: FlowContext) -> list[Reply]:
        return await self.go(
            ctx, Next(OnboardingStep.TIMEZONE, before=[ctx.reply(OnboardingMsg.WELCOME)])
        )

    async def _past_language(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        """Something typed instead of a tap: the language guessed stays, and the words are
        read as the next answer (a place, most likely), so nothing typed is lost."""
        welcome = await self._welcome(ctx)
        content = ctx.services.content
        if is_yes_or_no(content, text) or await read_place(ctx, text, towns=False) is None:
            return welcome
        return [welcome[0], *await answer_zone(self, ctx, _ZONE_STEPS, text)]

    async def _language(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        chosen = await save_language(ctx, value)
        if chosen is None:
            return None  # not one of the buttons: "use the buttons"
        return await self._welcome(chosen)

    async def _timezone(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        return await answer_zone(self, ctx, _ZONE_STEPS, text)

    async def _zone_again(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return again(_ZONE_STEPS)

    async def _zone_picked(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await picked_zone(self, ctx, _ZONE_STEPS, value, position)

    async def _zone_confirmed(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> Outcome:
        zone = confirmed_zone(position, value)
        if zone is None:
            return again(_ZONE_STEPS)
        await self._save_zone(ctx, zone)
        user = await ctx.ensure_user()
        if user.onboarded_at is not None:  # the zone asked again, for the country chosen
            async with ctx.db.transaction() as tx:
                await reschedule_user(tx, user.id, ctx.now())
            saved = ctx.reply(AnswersMsg.ZONE_SAVED, place=local_place_name(ctx, zone))
            return Next(END, before=[saved])
        return Next(OnboardingStep.TIME)

    async def _confirm_typed(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        """A time typed instead of a yes answers both questions; another place is read anew."""
        zone = confirmed_zone(position, YES)
        if zone is not None and read_time(text).value is not None:
            await self._save_zone(ctx, zone)
            return await self._time(ctx, position, text)
        return await answer_zone(self, ctx, _ZONE_STEPS, text)

    async def _save_zone(self, ctx: FlowContext, zone: str) -> None:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await users.set_timezone(tx, user.id, zone)

    async def _time(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        reading, days = time_and_days(text)
        if reading.part is not None:
            return part_of_day(ctx, OnboardingStep.TIME, reading.part)
        if reading.value is None:
            return [refusal(ctx, reading)]
        return await self._save_time(ctx, reading.value, days)

    async def _time_picked(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        checkin_time = picked_time(value)
        return None if checkin_time is None else await self._save_time(ctx, checkin_time)

    async def _save_time(
        self, ctx: FlowContext, checkin_time: str, days: frozenset[int] | None = None
    ) -> Outcome:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await checkin_slots.replace_slots(tx, user.id, [checkin_time])
            if days is not None:  # "weekdays 8pm"
                await users.set_weekdays(tx, user.id, days)
            await users.mark_onboarded(tx, user.id, ctx.now())
            await reschedule_user(tx, user.id, ctx.now())
        timezone = user.timezone or "UTC"
        shown = both_forms(ctx, checkin_time)
        done = [ctx.reply(OnboardingMsg.ONBOARDING_DONE, time=shown, timezone=timezone)]
        if days is not None:
            done.append(ctx.reply(AnswersMsg.TIME_DAYS_TOO, days=shown_weekdays(ctx, days)))
        return [*done, await ask_country(self, ctx, OnboardingStep.COUNTRY)]

    async def _country(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await answer_country(ctx, _COUNTRY_STEPS, value, _finished)

    async def _mismatch(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await answer_mismatch(self, ctx, _COUNTRY_STEPS, position, value, _finished)


async def _finished(ctx: FlowContext, replies: list[Reply]) -> Outcome:
    return Next(END, before=replies)
