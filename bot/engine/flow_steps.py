"""Every flow by name, and what the router asks of the step a user is at: which step it
is, whether it takes typed text, whether it has waited past its expiry; and /cancel,
which leaves it."""

from __future__ import annotations

from bot.content_pack.ids import GeneralMsg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import FlowContext, Services
from bot.storage import flow_positions
from bot.storage.flow_positions import FlowPosition


class FlowSteps:
    def __init__(self, services: Services, flows: dict[str, Flow]) -> None:
        self._services = services
        self.flows = flows

    def step(self, position: FlowPosition) -> Step | None:
        flow = self.flows.get(position.flow)
        return None if flow is None else flow.steps.get(position.step)

    def takes_text(self, position: FlowPosition) -> bool:
        step = self.step(position)
        return step is not None and (step.on_text is not None or step.text_as_choice)

    def expired(self, ctx: FlowContext, position: FlowPosition) -> bool:
        since = position.since
        step = self.step(position)
        expiry = self._services.step_expiry if step is None else step.expiry
        return since is not None and ctx.now() - since >= (expiry or self._services.step_expiry)


async def cancel(ctx: FlowContext) -> list[Reply]:
    user = await ctx.find_user()
    if user is None:
        return [ctx.reply(GeneralMsg.CANCEL_NOTHING)]
    async with ctx.db.transaction() as tx:
        left = await flow_positions.leave_flow(tx, user.id)
    return [ctx.reply(GeneralMsg.CANCEL_DONE if left else GeneralMsg.CANCEL_NOTHING)]
