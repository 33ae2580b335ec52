"""First contact: welcome, then time zone, then check-in time, then (optional) country.

/start ──▶ timezone ──(valid IANA name)──▶ time ──(valid HH:MM)──▶ country ──▶ (left)
             │ invalid: explain, stay        │ invalid: explain, stay   │ [suggested|other|skip]

The user counts as onboarded once the check-in time is set: the country only
picks helplines, so a user who moves on without answering loses nothing.
"""

from __future__ import annotations

from bot.content_pack.ids import Msg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import FlowContext
from bot.flows.country import answer_country, ask_country
from bot.flows.validation import parse_time_of_day, parse_timezone
from bot.scheduling.planner import reschedule_user
from bot.storage import checkin_slots, flow_positions, users
from bot.storage.flow_positions import FlowPosition


class Onboarding(Flow):
    name = "ob"

    def __init__(self) -> None:
        self.steps = {
            "timezone": Step(on_text=self._timezone),
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
        timezone = parse_timezone(text)
        if timezone is None:
            return [ctx.reply(Msg.BAD_TIMEZONE)]
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await users.set_timezone(tx, user.id, timezone)
            await flow_positions.move_to(tx, user.id, self.name, "time", ctx.now())
        return [ctx.reply(Msg.ASK_TIME)]

    async def _time(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        checkin_time = parse_time_of_day(text)
        if checkin_time is None:
            return [ctx.reply(Msg.BAD_TIME)]
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await checkin_slots.replace_slots(tx, user.id, [checkin_time])
            await users.mark_onboarded(tx, user.id, ctx.now())
            await reschedule_user(tx, user.id, ctx.now())
        timezone = user.timezone or "UTC"
        done = ctx.reply(Msg.ONBOARDING_DONE, time=checkin_time, timezone=timezone)
        return [done, await ask_country(self, ctx, "country")]

    async def _country(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        code, replies = await answer_country(ctx, value)
        if code is not None or value == "skip":
            await self.leave(ctx)
        return replies
