"""The question a user was last asked, kept sealed, so it can be shown again as it was
(buttons and all) after a crisis reply, /help, or a restart."""

from __future__ import annotations

from dataclasses import replace

from bot.content_pack.ids import GeneralMsg
from bot.core.replies import Button, Reply
from bot.engine.flow_steps import FlowSteps
from bot.flows.context import FlowContext
from bot.storage import flow_positions
from bot.storage.crypto import WrongKeyError
from bot.storage.db import Transaction
from bot.storage.flow_positions import FlowPosition


class QuestionMemory:
    def __init__(self, steps: FlowSteps) -> None:
        self._steps = steps

    async def again(self, ctx: FlowContext, user_id: int, position: FlowPosition) -> list[Reply]:
        """The question of `position` as it was shown, buttons and all; if it cannot be
        shown again, the question is closed and the user told so."""
        again = await self.stored(ctx, user_id, position)
        flow = self._steps.flows.get(position.flow)
        if again is None and flow is not None:
            again = await flow.reprompt(ctx, position)
        if again is not None:
            return [replace(again, text=f"{ctx.text(GeneralMsg.QUESTION_AGAIN)}\n\n{again.text}")]
        async with ctx.db.transaction() as tx:
            await flow_positions.leave_flow(tx, user_id)
        return [ctx.reply(GeneralMsg.QUESTION_CLOSED)]

    async def stored(self, ctx: FlowContext, user_id: int, position: FlowPosition) -> Reply | None:
        stored = await flow_positions.get_prompt(ctx.db, user_id)
        if stored is None or stored.token != position.token:
            return None
        try:
            text = ctx.cipher.decrypt(stored.sealed_text, user_id)
        except WrongKeyError:  # sealed under a key since replaced: ask afresh instead
            return None
        buttons = tuple(tuple(Button(label, data) for label, data in row) for row in stored.buttons)
        return Reply(text, buttons=buttons)

    async def remember(self, ctx: FlowContext, replies: list[Reply]) -> None:
        """Keep the question the user was just asked (sealed), to show it again later."""
        user_id = await ctx.user_id()
        if user_id is None:
            return
        position, stored = ctx.known.placed, None  # just placed: no question kept yet
        if position is None:
            position, stored = await flow_positions.get_position_and_prompt(ctx.db, user_id)
        if position is None:
            return
        if stored is not None and stored.token == position.token:
            return  # this step's question is kept already
        question = question_of(replies, position.token, self._steps.takes_text(position))
        if question is None:
            return
        rows = tuple(
            tuple((button.label, button.data) for button in row) for row in question.buttons
        )
        sealed = ctx.cipher.encrypt(question.text, user_id)
        token = position.token

        async def record(tx: Transaction) -> None:
            await flow_positions.record_prompt(tx, user_id, token, sealed, rows)

        await ctx.db.in_one_hop(record)


def question_of(replies: list[Reply], token: str, takes_text: bool) -> Reply | None:
    """Which reply asked the current step's question: the last with its buttons, or for
    a step that takes typed text, the last reply of all."""
    for reply in reversed(replies):
        if any(token in button.data.split(":") for button in reply.flat_buttons):
            return reply
    return replies[-1] if takes_text and replies else None
