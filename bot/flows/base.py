"""Flows as explicit state machines: each flow declares a table of its named steps.

A step in the table says what it asks, the buttons it shows and where each leads
(`Choice.goes_to`: a step, a `Next`, or a handler), and what reads typed text. Handlers
return where the conversation goes next (`Next`), as PTB's conversation handlers return
the next state, or replies that leave the user where they are; `Flow.go` carries it out,
so every move passes `Flow.move`/`Flow.show` and the labels a step shows can be typed.
Step names are an enum per flow (`CheckInStep.MOOD`), flow names `FlowName`: both are
stored and travel in button data, so their values never change.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import ClassVar

from bot.content_pack.ids import GeneralMsg, Msg, PauseMsg
from bot.core.replies import Button, Reply
from bot.flows.context import (
    END,
    NOT_A_CHOICE,
    Choice,
    FlowContext,
    Next,
    Outcome,
    StepHandler,
    choices_markup,
)
from bot.flows.typed_labels import Shown, refusal, showing
from bot.storage import flow_positions
from bot.storage.db import Transaction
from bot.storage.flow_positions import FlowData, FlowPosition

RouterHandler = Callable[[FlowContext, FlowPosition, str], Awaitable[list[Reply]]]
Rows = tuple[tuple[Choice, ...], ...]


@dataclass(frozen=True, slots=True)
class Step:
    """One state of a flow, as its table declares it.

    asks:         the question the step puts, when a `Next` to it brings no other.
    buttons:      the buttons shown with it, each `Choice` with its `goes_to`: a step, a
                  whole `Next`, or the handler that answers the press.
    also:         buttons it takes that only some of its questions show (a longer menu,
                  the choice offered for a text over its limit), declared the same way.
                  A press whose value is none of these is answered "use the buttons" (once,
                  here, for every flow), unless `other_choice` takes it: buttons built from
                  data (a place, a country, a saved reason) that no table can list.
    on_typed:     the handler of typed text.

    Typed text that names one of the buttons the step shows ("skip", "Yes") is
    that button's press, for every step (`bot.flows.typed_labels`). With
    `text_as_choice`, other typed text is tried as a button value too, so a user
    who types "3" for "3 days", or a country's name, is understood. With
    `passes_text`, typed text leaves the flow and is answered as if none were open.

    `on_choice` and `on_text` are what the router calls, not declared: `Flow.table`
    fills them in, so presses are guarded and a handler's `Next` carried out.
    """

    asks: Msg | None = None
    buttons: Rows = ()
    also: Rows = ()
    other_choice: StepHandler | None = None
    on_typed: StepHandler | None = None
    text_as_choice: bool = False
    # Buttons on offer, but nothing asked: typed text leaves the flow and is read as if
    # no flow were open (an affirmation's "Another thought" must not swallow a message).
    passes_text: bool = False
    # False: its buttons are only ever tapped, their labels not written down to be typed
    # (deleting everything waits for a deliberate tap, never a stray "yes").
    labels_typed: bool = True
    # How long the question stays open unanswered; None: the operator's STEADY_STEP_EXPIRY.
    # A step where the user writes something long and careful (a plan's part) waits longer.
    expiry: timedelta | None = None
    on_choice: RouterHandler | None = None
    on_text: RouterHandler | None = None


def routed(
    rows: Sequence[Sequence[Choice]], goes_to: Mapping[str, str | Next | StepHandler]
) -> Rows:
    """These buttons, each leading where `goes_to` says for its value (every one must be)."""
    return tuple(
        tuple(replace(choice, goes_to=goes_to[choice.value]) for choice in row) for row in rows
    )


def leading(rows: Sequence[Sequence[Choice]], goes_to: str | Next | StepHandler) -> Rows:
    """These buttons, every one leading to `goes_to`."""
    return tuple(tuple(replace(choice, goes_to=goes_to) for choice in row) for row in rows)


class Flow:
    """A conversation with named steps. Subclasses fill `name`, and `steps` from their
    table: `self.steps = self.table({SomeStep.ASK: Step(...), ...})`.

    `name` is short because it travels in button data (64 bytes on Telegram).
    """

    name: ClassVar[str]
    steps: dict[str, Step]

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        raise NotImplementedError

    def table(self, declared: Mapping[str, Step]) -> dict[str, Step]:
        """The flow's steps as the router takes them, from the table a flow declares.

        A table that cannot be right fails here, at start-up, not at a user's press: a
        button leading nowhere or to a step the table lacks, or a handler the router would
        call unguarded.
        """
        for name, step in declared.items():
            where = f"{self.name}:{name}"
            if step.on_choice is not None or step.on_text is not None:
                raise ValueError(f"{where}: declare buttons and on_typed, not router handlers")
            for choice in (choice for row in (*step.buttons, *step.also) for choice in row):
                target = choice.goes_to.step if isinstance(choice.goes_to, Next) else choice.goes_to
                if target is None:
                    raise ValueError(f"{where}: button {choice.value!r} leads nowhere")
                if isinstance(target, str) and target != END and target not in declared:
                    raise ValueError(f"{where}: button {choice.value!r} leads to no step")
        return {str(name): self._bound(step) for name, step in declared.items()}

    def _bound(self, step: Step) -> Step:
        rows = (*step.buttons, *step.also)
        declared = {choice.value: choice for row in rows for choice in row}

        async def pressed(ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
            choice = declared.get(value)
            if choice is not None:
                target = choice.goes_to
                if isinstance(target, Next):
                    return await self.go(ctx, target)
                if callable(target):
                    return await self.go(ctx, await target(ctx, position, value), position)
                return await self.go(ctx, Next(str(target)))
            if step.other_choice is not None:
                return await self.go(ctx, await step.other_choice(ctx, position, value), position)
            return await self.go(ctx, NOT_A_CHOICE, position)

        async def typed(ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
            assert step.on_typed is not None
            return await self.go(ctx, await step.on_typed(ctx, position, text), position)

        takes_choice = bool(declared) or step.other_choice is not None
        return replace(
            step,
            on_choice=pressed if takes_choice else None,
            on_text=None if step.on_typed is None else typed,
        )

    async def go(
        self, ctx: FlowContext, outcome: Outcome, at: FlowPosition | None = None
    ) -> list[Reply]:
        """Carry out what a handler returned: replies as they are, or a `Next` move. Not
        a choice: "use the buttons", with the buttons of `at` (where the user still is)."""
        if outcome is None:
            step = None if at is None else self.steps.get(at.step)
            if at is None or step is None:
                return [ctx.reply(GeneralMsg.USE_BUTTONS)]
            return [refusal(ctx, at, step.buttons)]
        if not isinstance(outcome, Next):
            return outcome
        if outcome.step == END:
            await self.leave(ctx)
            return [*outcome.before, *outcome.after]
        step = self.steps[outcome.step]
        rows = step.buttons if outcome.rows is None else outcome.rows
        question = step.asks if outcome.question is None else outcome.question
        if question is None:
            if rows:
                raise ValueError(f"{self.name}:{outcome.step}: buttons need a question to carry")
            await self.move(ctx, outcome.step, outcome.data)
            return [*outcome.before, *outcome.after]
        text = ctx.text(question) if isinstance(question, Msg) else question
        if rows and step.labels_typed:
            buttons = await self.show(ctx, outcome.step, rows, outcome.data)
        else:
            moved = await self.move(ctx, outcome.step, outcome.data)
            buttons = choices_markup(ctx, moved, rows)
        asked = Reply(text, buttons=buttons, protect=outcome.protect)
        return [*outcome.before, asked, *outcome.after]

    async def reprompt(self, ctx: FlowContext, position: FlowPosition) -> Reply | None:
        """The question of `position` built afresh, for a step whose question was not
        kept when it was asked (one sent by the scheduler). None: it cannot be."""
        return None

    async def hold_crisis_text(
        self, ctx: FlowContext, position: FlowPosition, text: str
    ) -> Reply | None:
        """Typed text that got the crisis reply instead of reaching this step: a step whose
        answer may rightly hold such words (a safety plan's warning signs) keeps it sealed
        and asks whether to save it as the answer. None: not kept, the question is shown
        again as it was. Called by the router after the crisis reply, within its bound."""
        return None

    async def move(self, ctx: FlowContext, step: str, data: FlowData | None = None) -> FlowPosition:
        """Put the user at `step` of this flow (a fresh token: older buttons go stale)."""
        user = await ctx.ensure_user()
        now = ctx.now()

        async def moved(tx: Transaction) -> FlowPosition:
            return await flow_positions.move_to(tx, user.id, self.name, step, now, data)

        position = await ctx.db.in_one_hop(moved)  # every step's write: one database trip
        ctx.known.placed = position
        return position

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

    async def take_offer(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """A yes to "Want to take a pause?": the flow begins."""
        return await self.begin(ctx)

    async def decline_offer(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """A no to the offer: nothing starts, and that is fine."""
        return Next(END, before=[ctx.reply(PauseMsg.PAUSE_NOT_NOW)])

    def buttons_without(self, step: str, left_out: Collection[str]) -> Rows:
        """The step's table buttons less those that do not apply now (nothing to remove)."""
        rows = (
            tuple(choice for choice in row if choice.value not in left_out)
            for row in self.steps[step].buttons
        )
        return tuple(row for row in rows if row)

    async def leave(self, ctx: FlowContext) -> None:
        user = await ctx.find_user()
        if user is not None:
            async with ctx.db.transaction() as tx:
                await flow_positions.leave_flow(tx, user.id)
