"""/forget: delete everything about the user, after an explicit yes.

begin ──▶ confirm ──[yes]──▶ every row deleted
              └─────[no]───▶ nothing changed
"""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum

from bot.content_pack.ids import DataMsg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import END, Choice, FlowContext, Next, Outcome
from bot.flows.names import FlowName
from bot.storage.flow_positions import FlowPosition
from bot.storage.user_data import forget_user
from bot.storage.user_files import forget_user_files


class ForgetStep(StrEnum):
    CONFIRM = "confirm"


class Forget(Flow):
    name = FlowName.FORGET

    def __init__(self) -> None:
        self.steps = self.table({
            ForgetStep.CONFIRM: Step(
                asks=DataMsg.FORGET_CONFIRM,
                buttons=((Choice("yes", DataMsg.FORGET_YES, goes_to=self._forget),),
                         (Choice("no", DataMsg.FORGET_NO, goes_to=self._keep),)),
                # Deleting everything waits for the deliberate tap, never a typed "yes".
                labels_typed=False,
            ),
        })  # fmt: skip

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        user = await ctx.find_user()
        if user is None:
            return [ctx.reply(DataMsg.FORGET_NOTHING)]
        return await self.go(ctx, Next(ForgetStep.CONFIRM))

    async def _forget(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.find_user()
        if user is None:
            return [ctx.reply(DataMsg.FORGET_NOTHING)]
        async with ctx.db.transaction() as tx:
            await forget_user(tx, user.id)
        await ctx.db.checkpoint()  # no old copy of the rows left in the write-ahead log
        if ctx.services.data_dir is not None:  # and no chart left on disk
            forget_user_files(ctx.services.data_dir, ctx.address.platform, ctx.address.user_id)
        # Forgotten means discreet again, menu included.
        return [replace(ctx.reply(DataMsg.FORGET_DONE), command_menu="discreet")]

    async def _keep(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.find_user()
        if user is None:
            return [ctx.reply(DataMsg.FORGET_NOTHING)]
        return Next(END, before=[ctx.reply(DataMsg.FORGET_KEPT)])
