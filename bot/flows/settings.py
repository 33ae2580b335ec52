"""/settings: look at and change the time zone and check-in time.

menu ──[Time zone]──▶ timezone ──(valid)──▶ menu
  │  ──[Check-in time]──▶ time ──(valid)──▶ menu
  └──[Done]──▶ (left)
"""

from __future__ import annotations

from bot.content_pack.ids import Msg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import Choice, FlowContext, choices_markup
from bot.flows.validation import parse_time_of_day, parse_timezone
from bot.storage import flow_positions, users
from bot.storage.flow_positions import FlowPosition

_MENU = (
    (Choice("tz", Msg.SETTINGS_CHANGE_TIMEZONE), Choice("time", Msg.SETTINGS_CHANGE_TIME)),
    (Choice("done", Msg.SETTINGS_DONE),),
)


class Settings(Flow):
    name = "st"

    def __init__(self) -> None:
        self.steps = {
            "menu": Step(on_choice=self._menu),
            "timezone": Step(on_text=self._timezone),
            "time": Step(on_text=self._time),
        }

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        return [await self._show_menu(ctx)]

    async def _show_menu(self, ctx: FlowContext) -> Reply:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            position = await flow_positions.move_to(tx, user.id, self.name, "menu", ctx.now())
        not_set = ctx.text(Msg.NOT_SET)
        return Reply(
            text=ctx.text(
                Msg.SETTINGS_MENU,
                timezone=user.timezone or not_set,
                time=user.checkin_time or not_set,
            ),
            buttons=choices_markup(ctx, position, _MENU),
        )

    async def _menu(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        user = await ctx.ensure_user()
        if value == "done":
            async with ctx.db.transaction() as tx:
                await flow_positions.leave_flow(tx, user.id)
            return [ctx.reply(Msg.SETTINGS_CLOSED)]
        next_step = {"tz": ("timezone", Msg.ASK_TIMEZONE), "time": ("time", Msg.ASK_TIME)}.get(
            value
        )
        if next_step is None:
            return [ctx.reply(Msg.USE_BUTTONS)]
        step, question = next_step
        async with ctx.db.transaction() as tx:
            await flow_positions.move_to(tx, user.id, self.name, step, ctx.now())
        return [ctx.reply(question)]

    async def _timezone(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        timezone = parse_timezone(text)
        if timezone is None:
            return [ctx.reply(Msg.BAD_TIMEZONE)]
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await users.set_timezone(tx, user.id, timezone)
        return [ctx.reply(Msg.SETTINGS_SAVED), await self._show_menu(ctx)]

    async def _time(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        checkin_time = parse_time_of_day(text)
        if checkin_time is None:
            return [ctx.reply(Msg.BAD_TIME)]
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await users.set_checkin_time(tx, user.id, checkin_time)
        return [ctx.reply(Msg.SETTINGS_SAVED), await self._show_menu(ctx)]
