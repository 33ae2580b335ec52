"""/forget: delete everything about the user, after an explicit yes.

begin ──▶ confirm ──[yes]──▶ every row deleted
              └─────[no]───▶ nothing changed
"""

from __future__ import annotations

from dataclasses import replace

from bot.content_pack.ids import Msg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import Choice, FlowContext, choices_markup
from bot.flows.names import FlowName
from bot.storage import flow_positions
from bot.storage.flow_positions import FlowPosition
from bot.storage.user_data import forget_user
from bot.storage.user_files import forget_user_files

_CONFIRM = ((Choice("yes", Msg.FORGET_YES),), (Choice("no", Msg.FORGET_NO),))


class Forget(Flow):
    name = FlowName.FORGET

    def __init__(self) -> None:
        # No text_as_choice: deleting everything takes a deliberate tap, not a stray "yes".
        self.steps = {"confirm": Step(on_choice=self._confirm)}

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        user = await ctx.find_user()
        if user is None:
            return [ctx.reply(Msg.FORGET_NOTHING)]
        # Not `self.ask`: its buttons could then be pressed by typing their label, and
        # deleting everything waits for the deliberate tap, never a typed "yes".
        async with ctx.db.transaction() as tx:
            position = await flow_positions.move_to(tx, user.id, self.name, "confirm", ctx.now())
        return [
            Reply(ctx.text(Msg.FORGET_CONFIRM), buttons=choices_markup(ctx, position, _CONFIRM))
        ]

    async def _confirm(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        user = await ctx.find_user()
        if user is None:
            return [ctx.reply(Msg.FORGET_NOTHING)]
        if value == "yes":
            async with ctx.db.transaction() as tx:
                await forget_user(tx, user.id)
            await ctx.db.checkpoint()  # no old copy of the rows left in the write-ahead log
            if ctx.services.data_dir is not None:  # and no chart left on disk
                forget_user_files(ctx.services.data_dir, ctx.address.platform, ctx.address.user_id)
            # Forgotten means discreet again, menu included.
            return [replace(ctx.reply(Msg.FORGET_DONE), command_menu="discreet")]
        if value == "no":
            async with ctx.db.transaction() as tx:
                await flow_positions.leave_flow(tx, user.id)
            return [ctx.reply(Msg.FORGET_KEPT)]
        return [ctx.reply(Msg.USE_BUTTONS)]
