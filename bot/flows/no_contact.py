"""/nocontact: days since the last contact, and the longest stretch, which a restart never wipes.

status ──[Start counting]──▶ counting (left)            (shown while not counting)
   ├──[Only practical contact]──▶ noted apart; the count goes on (a handover is no reset)
   ├──[I had other contact]──▶ restarted (longest kept)   (these three while counting;
   └──[Stop counting]──▶ counter deleted                    each leaves the flow)
"""

from __future__ import annotations

from enum import StrEnum

from bot.content_pack.ids import NoContactMsg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import Choice, FlowContext, Next, Outcome
from bot.flows.names import FlowName
from bot.storage import flow_positions, urges
from bot.storage.flow_positions import FlowPosition


class NoContactStep(StrEnum):
    STATUS = "status"


class NoContactCounter(Flow):
    name = FlowName.NO_CONTACT

    def __init__(self) -> None:
        self.steps = self.table({
            NoContactStep.STATUS: Step(
                buttons=((Choice("start", NoContactMsg.NC_START, goes_to=self._start),),
                         (Choice("practical", NoContactMsg.NC_PRACTICAL, goes_to=self._practical),),
                         (Choice("reset", NoContactMsg.NC_RESET, goes_to=self._reset),
                          Choice("stop", NoContactMsg.NC_STOP, goes_to=self._stop))),
            ),
        })  # fmt: skip

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        user = await ctx.ensure_user()
        counter = await urges.get_no_contact(ctx.db, user.id)
        if counter is None:
            rows = self.buttons_without(NoContactStep.STATUS, {"practical", "reset", "stop"})
            return await self.go(
                ctx, Next(NoContactStep.STATUS, question=NoContactMsg.NC_OFF, rows=rows)
            )
        days = counter.current_days(ctx.now())
        longest = max(counter.longest_days, days)
        lines = [
            ctx.text(NoContactMsg.NC_STATUS, days=days),
            ctx.text(NoContactMsg.NC_LONGEST, longest=longest),
        ]
        if counter.practical_contacts:
            lines.append(
                ctx.text(NoContactMsg.NC_PRACTICAL_COUNT, practical=counter.practical_contacts)
            )
        rows = self.buttons_without(NoContactStep.STATUS, {"start"})
        return await self.go(ctx, Next(NoContactStep.STATUS, question=" ".join(lines), rows=rows))

    async def _start(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await urges.start_no_contact(tx, user.id, ctx.now())
            await flow_positions.leave_flow(tx, user.id)
        return [ctx.reply(NoContactMsg.NC_STARTED)]

    async def _practical(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await urges.note_practical_contact(tx, user.id)
            await flow_positions.leave_flow(tx, user.id)
        return [ctx.reply(NoContactMsg.NC_PRACTICAL_NOTED)]

    async def _reset(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            counter = await urges.restart_no_contact(tx, user.id, ctx.now())
            await flow_positions.leave_flow(tx, user.id)
        return [ctx.reply(NoContactMsg.NC_RESTARTED, longest=counter.longest_days)]

    async def _stop(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await urges.stop_no_contact(tx, user.id)
            await flow_positions.leave_flow(tx, user.id)
        return [ctx.reply(NoContactMsg.NC_STOPPED)]
