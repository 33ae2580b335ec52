"""/nocontact: days since the last contact, and the longest stretch, which a restart never wipes.

status ──[Start counting]──▶ counting
   ├──[Only practical contact]──▶ noted apart; the count goes on (a handover is no reset)
   ├──[I had other contact]──▶ restarted (longest kept)
   └──[Stop counting]──▶ counter deleted
"""

from __future__ import annotations

from bot.content_pack.ids import Msg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import Choice, FlowContext
from bot.flows.names import FlowName
from bot.storage import flow_positions, urges
from bot.storage.flow_positions import FlowPosition


class NoContactCounter(Flow):
    name = FlowName.NO_CONTACT

    def __init__(self) -> None:
        self.steps = {"status": Step(on_choice=self._choice)}

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        user = await ctx.ensure_user()
        counter = await urges.get_no_contact(ctx.db, user.id)
        if counter is None:
            start = ((Choice("start", Msg.NC_START),),)
            return [await self.ask(ctx, "status", Msg.NC_OFF, start)]
        days = counter.current_days(ctx.now())
        longest = max(counter.longest_days, days)
        rows = (
            (Choice("practical", Msg.NC_PRACTICAL),),
            (Choice("reset", Msg.NC_RESET), Choice("stop", Msg.NC_STOP)),
        )
        lines = [ctx.text(Msg.NC_STATUS, days=days), ctx.text(Msg.NC_LONGEST, longest=longest)]
        if counter.practical_contacts:
            lines.append(ctx.text(Msg.NC_PRACTICAL_COUNT, practical=counter.practical_contacts))
        return [Reply(" ".join(lines), buttons=await self.show(ctx, "status", rows))]

    async def _choice(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        user = await ctx.ensure_user()
        now = ctx.now()
        async with ctx.db.transaction() as tx:
            match value:
                case "start":
                    await urges.start_no_contact(tx, user.id, now)
                    message = ctx.text(Msg.NC_STARTED)
                case "practical":
                    await urges.note_practical_contact(tx, user.id)
                    message = ctx.text(Msg.NC_PRACTICAL_NOTED)
                case "reset":
                    counter = await urges.restart_no_contact(tx, user.id, now)
                    message = ctx.text(Msg.NC_RESTARTED, longest=counter.longest_days)
                case "stop":
                    await urges.stop_no_contact(tx, user.id)
                    message = ctx.text(Msg.NC_STOPPED)
                case _:
                    return [ctx.reply(Msg.USE_BUTTONS)]
            await flow_positions.leave_flow(tx, user.id)
        return [Reply(message)]
