"""/settings: time zone, check-in times, days, quiet hours, pause, stop and resume.

    menu ──[Time zone]──────▶ timezone ──(a place)──▶ tzconfirm ──[yes]──▶ menu
      │                          └──(several)──▶ tzpick ──[a place]──┘
      ├───[Check-in times]──▶ times ─────(valid)──▶ menu
      ├───[Days]────────────▶ days ──────(valid)──▶ menu
      ├───[Quiet hours]─────▶ quiet ─────(valid)──▶ menu
      ├───[Pause]───────────▶ pause ──[1|3|7 days or typed N]──▶ (left, paused)
      ├───[History kept]────▶ keep ──[7|30|90 days, longest, or typed N]──▶ menu
      ├───[Stop | Resume]───▶ (left, stopped | resumed)
      └───[Done]────────────▶ (left)

Every change reschedules the user's check-ins in the same transaction.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime, time, timedelta

from bot.content_pack.ids import Msg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import Choice, FlowContext
from bot.flows.country import answer_country, ask_country, display_name
from bot.flows.names import FlowName
from bot.flows.parsing.days import read_days
from bot.flows.parsing.times import ClockStyle, read_span, read_times
from bot.flows.validation import both_forms
from bot.flows.zone_question import (
    AGAIN,
    ZoneSteps,
    again,
    answer_zone,
    confirmed_zone,
    picked_zone,
)
from bot.scheduling.planner import reschedule_user, start_of_next_local_day, user_zone
from bot.scheduling.rules import format_weekdays
from bot.storage import checkin_slots, flow_positions, users
from bot.storage.db import Transaction
from bot.storage.flow_positions import FlowPosition
from bot.storage.retention import purge_expired
from bot.storage.users import QuietHours, User

MAX_PAUSE_DAYS = 60
_ZONE_STEPS = ZoneSteps(ask="timezone", pick="tzpick", confirm="tzconfirm")

_QUESTIONS = {
    "tz": ("timezone", Msg.SETTINGS_ASK_TIMEZONE),  # no "First," as in onboarding
    "times": ("times", Msg.ASK_TIMES),
    "days": ("days", Msg.ASK_DAYS),
    "quiet": ("quiet", Msg.ASK_QUIET),
}
_PAUSES = ((Choice("1", Msg.PAUSE_1), Choice("3", Msg.PAUSE_3), Choice("7", Msg.PAUSE_7)),)

Change = Callable[[Transaction, User], Awaitable[None]]


def kept_days(ctx: FlowContext, user: User) -> int:
    """Days of history kept for this user: their choice, never beyond the operator's."""
    longest = ctx.services.retention_days
    return longest if user.keep_days is None else min(user.keep_days, longest)


def _keep_choices(ctx: FlowContext) -> tuple[tuple[Choice, ...], ...]:
    longest = ctx.services.retention_days
    shorter = tuple(
        Choice(str(days), ctx.text(Msg.KEEP_DAYS, days=days))
        for days in (7, 30, 90)
        if days < longest
    )
    return (
        (shorter, (Choice("max", Msg.KEEP_LONGEST),))
        if shorter
        else ((Choice("max", Msg.KEEP_LONGEST),),)
    )


def format_local_date(user: User, instant: datetime) -> str:
    return f"{instant.astimezone(user_zone(user)):%a %d %b}"


class Settings(Flow):
    name = FlowName.SETTINGS

    def __init__(self) -> None:
        self.steps = {
            "menu": Step(on_choice=self._menu),
            "timezone": Step(on_text=self._timezone),
            "tzpick": Step(on_choice=self._zone_picked, on_text=self._timezone),
            "tzconfirm": Step(on_choice=self._zone_confirmed, on_text=self._timezone),
            "times": Step(on_text=self._times),
            "days": Step(on_text=self._days),
            "quiet": Step(on_text=self._quiet),
            "pause": Step(on_choice=self._pause, text_as_choice=True),
            "country": Step(on_choice=self._country, text_as_choice=True),
            "keep": Step(on_choice=self._keep, text_as_choice=True),
        }

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        return [await self._show_menu(ctx)]

    async def _show_menu(self, ctx: FlowContext) -> Reply:
        user = await ctx.ensure_user()
        slots = await checkin_slots.list_slots(ctx.db, user.id)
        not_set = ctx.text(Msg.NOT_SET)
        paused = user.paused_until is not None and user.paused_until > ctx.now()
        if user.checkins_stopped:
            status = ctx.text(Msg.STATUS_STOPPED)
        elif paused and user.paused_until is not None:
            status = ctx.text(Msg.STATUS_PAUSED, date=format_local_date(user, user.paused_until))
        else:
            status = ctx.text(Msg.STATUS_ON)
        toggle = (
            Choice("resume", Msg.SETTINGS_RESUME)
            if user.checkins_stopped or paused
            else Choice("stop", Msg.SETTINGS_STOP)
        )
        menu = (
            (Choice("country", Msg.SETTINGS_CHANGE_COUNTRY),),
            (
                Choice("tz", Msg.SETTINGS_CHANGE_TIMEZONE),
                Choice("times", Msg.SETTINGS_CHANGE_TIMES),
            ),
            (Choice("days", Msg.SETTINGS_CHANGE_DAYS), Choice("quiet", Msg.SETTINGS_CHANGE_QUIET)),
            (Choice("pause", Msg.SETTINGS_PAUSE), toggle),
            (Choice("keep", Msg.SETTINGS_CHANGE_KEEP),),
            (
                Choice(
                    "discreet",
                    Msg.SETTINGS_DISCREET_OFF if user.discreet else Msg.SETTINGS_DISCREET_ON,
                ),
            ),
            (Choice("done", Msg.SETTINGS_DONE),),
        )
        return Reply(
            text=ctx.text(
                Msg.SETTINGS_MENU,
                country=display_name(ctx, user.country) if user.country else not_set,
                timezone=user.timezone or not_set,
                times=", ".join(slot.local_time for slot in slots) or not_set,
                days=format_weekdays(user.weekdays),
                quiet=str(user.quiet_hours) if user.quiet_hours else ctx.text(Msg.QUIET_OFF),
                discreet=ctx.text(Msg.STATUS_ON if user.discreet else Msg.QUIET_OFF),
                keep=ctx.text(Msg.KEEP_DAYS, days=kept_days(ctx, user)),
                status=status,
            ),
            buttons=await self.show(ctx, "menu", menu),
        )

    async def _menu(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        user = await ctx.ensure_user()
        if value == "done":
            async with ctx.db.transaction() as tx:
                await flow_positions.leave_flow(tx, user.id)
            return [ctx.reply(Msg.SETTINGS_CLOSED)]
        if value in {"stop", "resume"}:
            return await self._stop_or_resume(ctx, user, stop=value == "stop")
        if value == "country":
            return [await ask_country(self, ctx, "country")]
        if value == "discreet":

            async def toggle(tx: Transaction, user: User) -> None:
                await users.set_discreet(tx, user.id, not user.discreet)

            saved, *rest = await self._apply(ctx, toggle)
            # Discreet mode changes the words of the command menu too, where it can.
            menu = "full" if user.discreet else "discreet"
            return [replace(saved, command_menu=menu), *rest]
        if value == "keep":
            return [await self.ask(ctx, "keep", Msg.ASK_KEEP, _keep_choices(ctx))]
        if value == "pause":
            return [await self.ask(ctx, "pause", Msg.ASK_PAUSE, _PAUSES)]
        question = _QUESTIONS.get(value)
        if question is None:
            return [ctx.reply(Msg.USE_BUTTONS)]
        step, message = question
        async with ctx.db.transaction() as tx:
            await flow_positions.move_to(tx, user.id, self.name, step, ctx.now())
        return [ctx.reply(message)]

    async def _apply(
        self, ctx: FlowContext, change: Change, saved: Reply | None = None
    ) -> list[Reply]:
        """Save one change and reschedule, atomically, then show the menu again."""
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await change(tx, user)
            await reschedule_user(tx, user.id, ctx.now())
        return [saved or ctx.reply(Msg.SETTINGS_SAVED), await self._show_menu(ctx)]

    async def _timezone(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        return await answer_zone(self, ctx, _ZONE_STEPS, text)

    async def _zone_picked(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        if value == AGAIN:
            return await self.go(ctx, again(_ZONE_STEPS))
        replies = await picked_zone(self, ctx, _ZONE_STEPS, value)
        return [ctx.reply(Msg.USE_BUTTONS)] if replies is None else replies

    async def _zone_confirmed(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        timezone = confirmed_zone(position, value)
        if timezone is None:
            return await self.go(ctx, again(_ZONE_STEPS))

        async def change(tx: Transaction, user: User) -> None:
            await users.set_timezone(tx, user.id, timezone)

        return await self._apply(ctx, change)

    async def _times(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        readings, style = read_times(text)
        times = sorted({reading.value for reading in readings if reading.value is not None})
        if not times or len(times) != len(readings) or len(times) > checkin_slots.MAX_SLOTS:
            twelve = style is ClockStyle.TWELVE_HOUR
            return [ctx.reply(Msg.BAD_TIMES_12H if twelve else Msg.BAD_TIMES)]
        user = await ctx.ensure_user()
        quiet = user.quiet_hours
        for local_time in times:
            if quiet is not None and quiet.contains(time.fromisoformat(local_time)):
                return [ctx.reply(Msg.TIME_IN_QUIET_HOURS, time=local_time, quiet=str(quiet))]

        async def change(tx: Transaction, user: User) -> None:
            await checkin_slots.replace_slots(tx, user.id, times)

        shown = ", ".join(both_forms(ctx, local_time) for local_time in times)
        return await self._apply(ctx, change, ctx.reply(Msg.TIMES_SAVED, times=shown))

    async def _days(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        days = read_days(text)
        if days is None:
            return [ctx.reply(Msg.BAD_DAYS)]

        async def change(tx: Transaction, user: User) -> None:
            await users.set_weekdays(tx, user.id, days)

        return await self._apply(ctx, change)

    async def _quiet(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        quiet: QuietHours | None = None
        if text.strip().casefold() not in {"off", "none", ctx.text(Msg.QUIET_OFF).casefold()}:
            span = read_span(text)
            if span.value is None:
                twelve = span.style is ClockStyle.TWELVE_HOUR
                return [ctx.reply(Msg.BAD_QUIET_12H if twelve else Msg.BAD_QUIET)]
            start, end = span.value
            quiet = QuietHours(time.fromisoformat(start), time.fromisoformat(end))
            user = await ctx.ensure_user()
            for slot in await checkin_slots.list_slots(ctx.db, user.id):
                if quiet.contains(time.fromisoformat(slot.local_time)):
                    return [ctx.reply(Msg.QUIET_COVERS_CHECKIN, time=slot.local_time)]

        async def change(tx: Transaction, user: User) -> None:
            await users.set_quiet_hours(tx, user.id, quiet)

        return await self._apply(ctx, change)

    async def _pause(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        days = int(value) if value.isascii() and value.isdigit() else 0
        if not 1 <= days <= MAX_PAUSE_DAYS:
            return [ctx.reply(Msg.BAD_PAUSE)]
        user = await ctx.ensure_user()
        # Whole local days, today included: "1 day" means none today, back tomorrow.
        until = start_of_next_local_day(user, ctx.now() + timedelta(days=days - 1))
        async with ctx.db.transaction() as tx:
            await users.set_paused_until(tx, user.id, until)
            await checkin_slots.cancel_snooze(tx, user.id)
            await reschedule_user(tx, user.id, ctx.now())
            await flow_positions.leave_flow(tx, user.id)
        return [ctx.reply(Msg.PAUSED, date=format_local_date(user, until))]

    async def _keep(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        """A shorter history takes effect at once: what is older goes now, not tonight."""
        longest = ctx.services.retention_days
        days: int | None = None
        if value != "max":
            days = int(value) if value.isascii() and value.isdigit() else 0
            if not 1 <= days <= longest:
                return [ctx.reply(Msg.BAD_KEEP, limit=longest)]
            if days == longest:
                days = None  # the same as the longest: follows the operator's setting

        async def change(tx: Transaction, user: User) -> None:
            await users.set_keep_days(tx, user.id, days)

        replies = await self._apply(ctx, change)
        user = await ctx.ensure_user()
        await purge_expired(ctx.db, ctx.now(), longest, user_id=user.id)
        return replies

    async def _country(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        code, replies = await answer_country(ctx, value)
        if code is None and value != "skip":
            return replies
        return [*replies, await self._show_menu(ctx)]

    async def _stop_or_resume(self, ctx: FlowContext, user: User, stop: bool) -> list[Reply]:
        async with ctx.db.transaction() as tx:
            await users.set_checkins_stopped(tx, user.id, stop)
            await users.set_paused_until(tx, user.id, None)
            if stop:
                await checkin_slots.cancel_snooze(tx, user.id)
            await reschedule_user(tx, user.id, ctx.now())
            await flow_positions.leave_flow(tx, user.id)
        if stop:
            return [ctx.reply(Msg.STOPPED)]
        slots = await checkin_slots.list_slots(ctx.db, user.id)
        upcoming = [slot.next_due_at for slot in slots if slot.next_due_at is not None]
        when = (
            f"{min(upcoming).astimezone(user_zone(user)):%a %H:%M}"
            if upcoming
            else ctx.text(Msg.NOT_SET)
        )
        return [ctx.reply(Msg.RESUMED, when=when)]
