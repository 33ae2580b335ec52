"""/settings: country, time zone, check-in times, days, quiet hours, pause, history kept,
discreet mode, stop and resume.

    menu ──[Country]──────────▶ country ──[suggested | typed name]──▶ menu
      │                            └──[Other]──▶ (asks for the name)   [Skip]──▶ menu
      ├───[Time zone]──────────▶ timezone ──(a place)──▶ tzconfirm ──[yes]──▶ menu
      │                            └──(several)──▶ tzpick ──[a place]──┘ [no]──▶ timezone
      ├───[Check-in times]─────▶ times ─────(valid)──▶ menu
      ├───[Days]───────────────▶ days ──────(valid)──▶ menu
      ├───[Quiet hours]────────▶ quiet ─────(valid)──▶ menu
      ├───[Pause]──────────────▶ pause ──[1|3|7 days or typed N]──▶ (left, paused)
      ├───[History kept]───────▶ keep ──[7|30|90 days, longest, or typed N]──▶ menu
      ├───[Discreet off | on]──▶ menu (saved; the command menu's words change too)
      ├───[Language]───────────▶ language ──[a language]──▶ menu, in that language
      ├───[Stop | Resume]──────▶ (left, stopped | resumed)
      └───[Done]───────────────▶ (left)

Every change reschedules the user's check-ins in the same transaction.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import time, timedelta
from enum import StrEnum

from bot.content_pack.ids import AnswersMsg, OnboardingMsg, SettingsMsg
from bot.core.replies import Reply
from bot.flows.base import Flow, Rows, Step, leading
from bot.flows.context import END, Choice, FlowContext, Next, Outcome
from bot.flows.country import (
    CountrySteps,
    answer_country,
    answer_mismatch,
    ask_country,
    mismatch_question,
)
from bot.flows.kept_history import keep_choices
from bot.flows.language import language_rows, save_language
from bot.flows.local_formats import format_local_date, format_local_moment
from bot.flows.names import FlowName
from bot.flows.parsing.days import read_days
from bot.flows.parsing.times import ClockStyle, TimeProblem, read_span, read_times
from bot.flows.settings_summary import settings_summary
from bot.flows.time_question import part_of_day, picked_time
from bot.flows.validation import both_forms
from bot.flows.zone_question import (
    AGAIN,
    YES,
    ZoneSteps,
    again,
    answer_zone,
    confirmed_zone,
    picked_zone,
)
from bot.scheduling.planner import reschedule_user, start_of_next_local_day
from bot.storage import checkin_slots, flow_positions, users
from bot.storage.db import Transaction
from bot.storage.flow_positions import FlowPosition
from bot.storage.retention import purge_expired
from bot.storage.users import QuietHours, User

MAX_PAUSE_DAYS = 60


class SettingsStep(StrEnum):
    MENU = "menu"
    TIMEZONE = "timezone"
    TZPICK = "tzpick"
    TZCONFIRM = "tzconfirm"
    TIMES = "times"
    DAYS = "days"
    QUIET = "quiet"
    PAUSE = "pause"
    COUNTRY = "country"
    KEEP = "keep"
    LANGUAGE = "language"
    MISMATCH = "mismatch"


_ZONE_STEPS = ZoneSteps(
    ask=SettingsStep.TIMEZONE, pick=SettingsStep.TZPICK, confirm=SettingsStep.TZCONFIRM
)
_COUNTRY_STEPS = CountrySteps(
    ask=SettingsStep.COUNTRY, mismatch=SettingsStep.MISMATCH, zone=_ZONE_STEPS
)
_PAUSES = ((Choice("1", SettingsMsg.PAUSE_1), Choice("3", SettingsMsg.PAUSE_3),
            Choice("7", SettingsMsg.PAUSE_7)),)  # fmt: skip

Change = Callable[[Transaction, User], Awaitable[None]]


class Settings(Flow):
    name = FlowName.SETTINGS

    def __init__(self) -> None:
        self.steps = self.table({
            SettingsStep.MENU: Step(
                buttons=(
                    (Choice("country", SettingsMsg.SETTINGS_CHANGE_COUNTRY,
                            goes_to=self._ask_country),),
                    (Choice("tz", SettingsMsg.SETTINGS_CHANGE_TIMEZONE,
                            goes_to=SettingsStep.TIMEZONE),
                     Choice("times", SettingsMsg.SETTINGS_CHANGE_TIMES,
                            goes_to=SettingsStep.TIMES)),
                    (Choice("days", SettingsMsg.SETTINGS_CHANGE_DAYS, goes_to=SettingsStep.DAYS),
                     Choice("quiet", SettingsMsg.SETTINGS_CHANGE_QUIET,
                            goes_to=SettingsStep.QUIET)),
                    (Choice("pause", SettingsMsg.SETTINGS_PAUSE, goes_to=SettingsStep.PAUSE),
                     Choice("stop", SettingsMsg.SETTINGS_STOP, goes_to=self._stop)),
                    (Choice("keep", SettingsMsg.SETTINGS_CHANGE_KEEP, goes_to=self._ask_keep),),
                    (Choice("discreet", SettingsMsg.SETTINGS_DISCREET_OFF,
                            goes_to=self._discreet),
                     Choice("language", SettingsMsg.SETTINGS_CHANGE_LANGUAGE,
                            goes_to=self._ask_language)),
                    (Choice("done", SettingsMsg.SETTINGS_DONE, goes_to=self._done),),
                ),
                # Shown in place of "stop" while paused or stopped, and of "discreet off"
                # while discreet mode is off.
                also=((Choice("resume", SettingsMsg.SETTINGS_RESUME, goes_to=self._resume),
                       Choice("discreet", SettingsMsg.SETTINGS_DISCREET_ON,
                              goes_to=self._discreet)),),
            ),
            SettingsStep.COUNTRY: Step(
                buttons=((Choice("other", OnboardingMsg.COUNTRY_OTHER, goes_to=self._country),
                          Choice("skip", OnboardingMsg.COUNTRY_SKIP, goes_to=self._country)),),
                other_choice=self._country,  # the suggested country, or one typed
                text_as_choice=True,
            ),
            # The buttons name the two countries, built when asked.
            SettingsStep.MISMATCH: Step(other_choice=self._mismatch),
            # No "First," as in onboarding.
            SettingsStep.TIMEZONE: Step(
                asks=SettingsMsg.SETTINGS_ASK_TIMEZONE, on_typed=self._timezone
            ),
            SettingsStep.TZPICK: Step(
                buttons=((Choice(AGAIN, OnboardingMsg.TIMEZONE_NONE_OF_THESE,
                                 goes_to=self._zone_again),),),
                other_choice=self._zone_picked,  # a place offered: its confirmation
                on_typed=self._timezone,
            ),
            SettingsStep.TZCONFIRM: Step(
                buttons=((Choice(YES, OnboardingMsg.TIMEZONE_YES, goes_to=self._zone_confirmed),
                          Choice(AGAIN, OnboardingMsg.TIMEZONE_AGAIN, goes_to=self._zone_again)),),
                on_typed=self._timezone,
            ),
            SettingsStep.TIMES: Step(
                asks=SettingsMsg.ASK_TIMES, other_choice=self._time_picked, on_typed=self._times
            ),
            SettingsStep.DAYS: Step(asks=SettingsMsg.ASK_DAYS, on_typed=self._days),
            SettingsStep.QUIET: Step(asks=SettingsMsg.ASK_QUIET, on_typed=self._quiet),
            SettingsStep.PAUSE: Step(
                asks=SettingsMsg.ASK_PAUSE,
                buttons=leading(_PAUSES, self._pause),
                other_choice=self._pause,  # a number of days typed
                text_as_choice=True,
            ),
            # The buttons are the pack's locales, built when asked.
            SettingsStep.LANGUAGE: Step(
                asks=OnboardingMsg.LANGUAGE_ASK, other_choice=self._language
            ),
            SettingsStep.KEEP: Step(
                asks=SettingsMsg.ASK_KEEP,
                # The shorter choices depend on the operator's retention: built when asked.
                buttons=((Choice("max", SettingsMsg.KEEP_LONGEST, goes_to=self._keep),),),
                other_choice=self._keep,
                text_as_choice=True,
            ),
        })  # fmt: skip

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        return await self.go(ctx, await self._menu(ctx))

    async def _menu(self, ctx: FlowContext) -> Next:
        """The menu, each setting's value shown, its buttons fitting the user's state."""
        user = await ctx.ensure_user()
        paused = user.paused_until is not None and user.paused_until > ctx.now()
        text = await settings_summary(ctx, user, paused)
        menu = self.steps[SettingsStep.MENU]
        resume, discreet_on = menu.also[0]
        instead: dict[str, Choice] = {}
        if user.checkins_stopped or paused:
            instead["stop"] = resume
        if not user.discreet:
            instead["discreet"] = discreet_on
        # A pack with one language has nothing to choose between.
        hidden = {"language"} if len(ctx.services.content.locales) < 2 else set()
        rows: Rows = tuple(
            tuple(instead.get(choice.value, choice) for choice in row if choice.value not in hidden)
            for row in menu.buttons
        )
        return Next(SettingsStep.MENU, question=text, rows=rows)

    async def _done(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(END, before=[ctx.reply(SettingsMsg.SETTINGS_CLOSED)])

    async def _stop(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._stop_or_resume(ctx, await ctx.ensure_user(), stop=True)

    async def _resume(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._stop_or_resume(ctx, await ctx.ensure_user(), stop=False)

    async def _ask_country(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return [await ask_country(self, ctx, SettingsStep.COUNTRY)]

    async def _ask_language(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(SettingsStep.LANGUAGE, rows=language_rows(ctx))

    async def _language(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """The menu again, in the language chosen, and the command menu with it."""
        chosen = await save_language(ctx, value)
        if chosen is None:
            return None  # not one of the buttons: "use the buttons"
        user = await chosen.ensure_user()
        saved = replace(
            chosen.reply(OnboardingMsg.LANGUAGE_SAVED),
            command_menu=None if user.discreet else "full",
        )
        return await self.go(chosen, replace(await self._menu(chosen), before=[saved]))

    async def _ask_keep(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(SettingsStep.KEEP, rows=keep_choices(ctx))

    async def _discreet(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()

        async def toggle(tx: Transaction, user: User) -> None:
            await users.set_discreet(tx, user.id, not user.discreet)

        # Discreet mode changes the words of the command menu too, where it can.
        menu = "full" if user.discreet else "discreet"
        saved = replace(ctx.reply(SettingsMsg.SETTINGS_SAVED), command_menu=menu)
        return await self._apply(ctx, toggle, saved)

    async def _apply(self, ctx: FlowContext, change: Change, saved: Reply | None = None) -> Next:
        """Save one change and reschedule, atomically, then show the menu again."""
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await change(tx, user)
            await reschedule_user(tx, user.id, ctx.now())
        return replace(
            await self._menu(ctx), before=[saved or ctx.reply(SettingsMsg.SETTINGS_SAVED)]
        )

    async def _timezone(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        return await answer_zone(self, ctx, _ZONE_STEPS, text)

    async def _zone_again(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return again(_ZONE_STEPS)

    async def _zone_picked(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await picked_zone(self, ctx, _ZONE_STEPS, value, position)

    async def _zone_confirmed(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> Outcome:
        timezone = confirmed_zone(position, value)
        if timezone is None:
            return again(_ZONE_STEPS)

        async def change(tx: Transaction, user: User) -> None:
            await users.set_timezone(tx, user.id, timezone)

        menu = await self._apply(ctx, change)
        user = await ctx.ensure_user()
        if user.country is None:
            return menu
        mismatch = mismatch_question(ctx, _COUNTRY_STEPS, user.country, timezone, False)
        return menu if mismatch is None else replace(mismatch, before=menu.before)

    async def _times(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        readings, style = read_times(text)
        if len(readings) == 1 and readings[0].part is not None:  # "evening": its times
            return part_of_day(ctx, SettingsStep.TIMES, readings[0].part)
        times = sorted({reading.value for reading in readings if reading.value is not None})
        if not times or len(times) != len(readings) or len(times) > checkin_slots.MAX_SLOTS:
            problems = {reading.problem for reading in readings}
            if problems == {TimeProblem.NOT_A_TIME}:
                return [ctx.reply(AnswersMsg.TIME_NOT_READ)]
            if problems == {TimeProblem.MINUTES}:
                return [ctx.reply(AnswersMsg.TIME_BAD_MINUTES)]
            twelve = style is ClockStyle.TWELVE_HOUR
            return [ctx.reply(SettingsMsg.BAD_TIMES_12H if twelve else SettingsMsg.BAD_TIMES)]
        return await self._save_times(ctx, times)

    async def _time_picked(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        chosen = picked_time(value)
        return None if chosen is None else await self._save_times(ctx, [chosen])

    async def _save_times(self, ctx: FlowContext, times: list[str]) -> Outcome:
        user = await ctx.ensure_user()
        quiet = user.quiet_hours
        for local_time in times:
            if quiet is not None and quiet.contains(time.fromisoformat(local_time)):
                return [
                    ctx.reply(SettingsMsg.TIME_IN_QUIET_HOURS, time=local_time, quiet=str(quiet))
                ]

        async def change(tx: Transaction, user: User) -> None:
            await checkin_slots.replace_slots(tx, user.id, times)

        shown = ", ".join(both_forms(ctx, local_time) for local_time in times)
        return await self._apply(ctx, change, ctx.reply(SettingsMsg.TIMES_SAVED, times=shown))

    async def _days(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        days = read_days(text)
        if days is None:
            return [ctx.reply(SettingsMsg.BAD_DAYS)]

        async def change(tx: Transaction, user: User) -> None:
            await users.set_weekdays(tx, user.id, days)

        return await self._apply(ctx, change)

    async def _quiet(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        quiet: QuietHours | None = None
        if text.strip().casefold() not in {
            "off",
            "none",
            ctx.text(SettingsMsg.QUIET_OFF).casefold(),
        }:
            span = read_span(text)
            if span.value is None:
                twelve = span.style is ClockStyle.TWELVE_HOUR
                return [ctx.reply(SettingsMsg.BAD_QUIET_12H if twelve else SettingsMsg.BAD_QUIET)]
            start, end = span.value
            quiet = QuietHours(time.fromisoformat(start), time.fromisoformat(end))
            user = await ctx.ensure_user()
            for slot in await checkin_slots.list_slots(ctx.db, user.id):
                if quiet.contains(time.fromisoformat(slot.local_time)):
                    return [ctx.reply(SettingsMsg.QUIET_COVERS_CHECKIN, time=slot.local_time)]

        async def change(tx: Transaction, user: User) -> None:
            await users.set_quiet_hours(tx, user.id, quiet)

        return await self._apply(ctx, change)

    async def _pause(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        days = int(value) if value.isascii() and value.isdigit() else 0
        if not 1 <= days <= MAX_PAUSE_DAYS:
            return [ctx.reply(SettingsMsg.BAD_PAUSE)]
        user = await ctx.ensure_user()
        # Whole local days, today included: "1 day" means none today, back tomorrow.
        until = start_of_next_local_day(user, ctx.now() + timedelta(days=days - 1))
        async with ctx.db.transaction() as tx:
            await users.set_paused_until(tx, user.id, until)
            await checkin_slots.cancel_snooze(tx, user.id)
            await reschedule_user(tx, user.id, ctx.now())
            await flow_positions.leave_flow(tx, user.id)
        return [ctx.reply(SettingsMsg.PAUSED, date=format_local_date(user, until, ctx.locale))]

    async def _keep(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """A shorter history takes effect at once: what is older goes now, not tonight."""
        longest = ctx.services.retention_days
        days: int | None = None
        if value != "max":
            days = int(value) if value.isascii() and value.isdigit() else 0
            if not 1 <= days <= longest:
                return [ctx.reply(SettingsMsg.BAD_KEEP, limit=longest)]
            if days == longest:
                days = None  # the same as the longest: follows the operator's setting

        async def change(tx: Transaction, user: User) -> None:
            await users.set_keep_days(tx, user.id, days)

        replies = await self._apply(ctx, change)
        user = await ctx.ensure_user()
        await purge_expired(ctx.db, ctx.now(), longest, user_id=user.id)
        return replies

    async def _country(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await answer_country(ctx, _COUNTRY_STEPS, value, self._back_to_menu)

    async def _mismatch(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await answer_mismatch(self, ctx, _COUNTRY_STEPS, position, value, self._back_to_menu)

    async def _back_to_menu(self, ctx: FlowContext, replies: list[Reply]) -> Outcome:
        return replace(await self._menu(ctx), before=replies)

    async def _stop_or_resume(self, ctx: FlowContext, user: User, stop: bool) -> list[Reply]:
        async with ctx.db.transaction() as tx:
            await users.set_checkins_stopped(tx, user.id, stop)
            await users.set_paused_until(tx, user.id, None)
            if stop:
                await checkin_slots.cancel_snooze(tx, user.id)
            await reschedule_user(tx, user.id, ctx.now())
            await flow_positions.leave_flow(tx, user.id)
        if stop:
            return [ctx.reply(SettingsMsg.STOPPED)]
        slots = await checkin_slots.list_slots(ctx.db, user.id)
        upcoming = [slot.next_due_at for slot in slots if slot.next_due_at is not None]
        when = (
            format_local_moment(user, min(upcoming), ctx.locale)
            if upcoming
            else ctx.text(SettingsMsg.NOT_SET)
        )
        return [ctx.reply(SettingsMsg.RESUMED, when=when)]
