"""First contact: welcome, then time zone, then check-in time, then (optional) country.

/start ──▶ timezone ──(a place)──▶ tzconfirm ──[yes]──▶ time ──(a time)──▶ country ──▶ (left)
             │  └─(several)──▶ tzpick ──[a place]──┘ │                      [suggested|other|skip]
             │ unknown: explain, stay                └─(a time typed instead: yes, and that time)

The user counts as onboarded once the check-in time is set: the country only
picks helplines, so a user who moves on without answering loses nothing.
"""

from __future__ import annotations

from bot.content_pack.ids import Msg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import FlowContext
from bot.flows.country import answer_country, ask_country
from bot.flows.parsing.times import ClockStyle, read_time
from bot.flows.validation import both_forms
from bot.flows.zone_question import (
    ZoneSteps,
    answer_zone,
    ask_again,
    confirmed_zone,
    picked_zone,
)
from bot.scheduling.planner import reschedule_user
from bot.storage import checkin_slots, flow_positions, users
from bot.storage.flow_positions import FlowPosition

_ZONE_STEPS = ZoneSteps(ask="timezone", pick="tzpick", confirm="tzconfirm")


class Onboarding(Flow):
    name = "ob"

    def __init__(self) -> None:
        self.steps = {
            "timezone": Step(on_text=self._timezone),
            "tzpick": Step(on_choice=self._zone_picked, on_text=self._timezone),
            "tzconfirm": Step(on_choice=self._zone_confirmed, on_text=self._confirm_typed),
            "time": Step(on_text=self._time),
            "country": Step(on_choice=self._country, text_as_choice=True),
        }

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        user = await ctx.ensure_user()
        if user.onboarded_at is not None:
            return [ctx.reply(Msg.WELCOME_BACK)]
        async with ctx.db.transaction() as tx:
            await flow_positions.move_to(tx, user.id, self.name, "timezone", ctx.now())
        return [ctx.reply(Msg.WELCOME), ctx.reply(Msg.ASK_TIMEZONE)]

    async def _timezone(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        return await answer_zone(self, ctx, _ZONE_STEPS, text)

    async def _zone_picked(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        replies = await picked_zone(self, ctx, _ZONE_STEPS, value)
        return [ctx.reply(Msg.USE_BUTTONS)] if replies is None else replies

    async def _zone_confirmed(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        zone = confirmed_zone(position, value)
        if zone is None:
            return await ask_again(self, ctx, _ZONE_STEPS)
        await self._save_zone(ctx, zone)
        return [ctx.reply(Msg.ASK_TIME)]

    async def _confirm_typed(
        self, ctx: FlowContext, position: FlowPosition, text: str
    ) -> list[Reply]:
        """A time typed instead of a yes answers both questions; another place is read anew."""
        zone = confirmed_zone(position, "yes")
        if zone is not None and read_time(text).value is not None:
            await self._save_zone(ctx, zone)
            return await self._time(ctx, position, text)
        return await answer_zone(self, ctx, _ZONE_STEPS, text)

    async def _save_zone(self, ctx: FlowContext, zone: str) -> None:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await users.set_timezone(tx, user.id, zone)
            await flow_positions.move_to(tx, user.id, self.name, "time", ctx.now())

    async def _time(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        reading = read_time(text)
        if reading.value is None:
            twelve = reading.style is ClockStyle.TWELVE_HOUR
            return [ctx.reply(Msg.BAD_TIME_12H if twelve else Msg.BAD_TIME)]
        checkin_time = reading.value
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await checkin_slots.replace_slots(tx, user.id, [checkin_time])
            await users.mark_onboarded(tx, user.id, ctx.now())
            await reschedule_user(tx, user.id, ctx.now())
        timezone = user.timezone or "UTC"
        shown = both_forms(ctx, checkin_time)
        done = ctx.reply(Msg.ONBOARDING_DONE, time=shown, timezone=timezone)
        return [done, await ask_country(self, ctx, "country")]

    async def _country(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        code, replies = await answer_country(ctx, value)
        if code is not None or value == "skip":
            await self.leave(ctx)
        return replies
