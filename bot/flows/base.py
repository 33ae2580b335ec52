"""Flows as explicit state machines: a table of named steps and what each accepts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from bot.content_pack.ids import Msg
from bot.core.replies import Button, Reply
from bot.flows.context import Choice, FlowContext
from bot.flows.typed_labels import Shown, showing
from bot.storage import flow_positions
from bot.storage.flow_positions import FlowData, FlowPosition

StepHandler = Callable[[FlowContext, FlowPosition, str], Awaitable[list[Reply]]]


@dataclass(frozen=True, slots=True)
class Step:
    """One state. `on_choice` gets a button's value, `on_text` typed text.

    Typed text that names one of the buttons the step shows ("skip", "Yes") is
    that button's press, for every step (`bot.flows.typed_labels`). With
    `text_as_choice`, other typed text is tried as a button value too, so a user
    who types "3" for "3 days", or a country's name, is understood. With
    `passes_text`, typed text leaves the flow and is answered as if none were open.
    """

    on_choice: StepHandler | None = None
    on_text: StepHandler | None = None
    text_as_choice: bool = False
    # Buttons on offer, but nothing asked: typed text leaves the flow and is read as if
    # no flow were open (an affirmation's "Another thought" must not swallow a message).
    passes_text: bool = False


class Flow:
    """A conversation with named steps. Subclasses fill `name` and `steps`.

    `name` is short because it travels in button data (64 bytes on Telegram).
    """

    name: ClassVar[str]
    steps: dict[str, Step]

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        raise NotImplementedError

    async def reprompt(self, ctx: FlowContext, position: FlowPosition) -> Reply | None:
        """The question of `position` built afresh, for a step whose question was not
        kept when it was asked (one sent by the scheduler). None: it cannot be."""
        return None

    async def move(self, ctx: FlowContext, step: str, data: FlowData | None = None) -> FlowPosition:
        """Put the user at `step` of this flow (a fresh token: older buttons go stale)."""
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            return await flow_positions.move_to(tx, user.id, self.name, step, ctx.now(), data)

    async def ask(
        self,
        ctx: FlowContext,
        step: str,
        message: Msg,
        rows: Sequence[Sequence[Choice]],
        data: FlowData | None = None,
    ) -> Reply:
        """Move to `step` and show `message` with that step's buttons."""
        return Reply(ctx.text(message), buttons=await self.show(ctx, step, rows, data))

    async def show(
        self,
        ctx: FlowContext,
        step: str,
        rows: Sequence[Sequence[Choice]],
        data: FlowData | None = None,
    ) -> tuple[tuple[Button, ...], ...]:
        """Move to `step` showing these buttons; typing one's label will press it."""
        buttons: Shown = showing(ctx, step, rows)
        return buttons.markup(await self.move(ctx, step, buttons.data(data)))

    async def answer_offer(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        """The step after "Want to take a pause?": a yes begins the flow, a no ends kindly."""
        if value == "yes":
            return await self.begin(ctx)
        if value == "no":
            await self.leave(ctx)
            return [ctx.reply(Msg.PAUSE_NOT_NOW)]
        return [ctx.reply(Msg.USE_BUTTONS)]

    async def leave(self, ctx: FlowContext) -> None:
        user = await ctx.find_user()
        if user is not None:
            async with ctx.db.transaction() as tx:
                await flow_positions.leave_flow(tx, user.id)
