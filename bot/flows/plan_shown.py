"""The /plan shown, and changed part by part: the plan with its buttons, the sections to
pick, what can be done with one part (write it again, clear it), the four-weekly note
turned on or off, and the plan deleted.

The handlers here answer buttons the table in `bot.flows.plan` declares; the helplines
part's own changes are `bot.flows.plan_helplines`'s, the plan's text
`bot.flows.plan_reading`'s.
"""

from __future__ import annotations

from bot.content_pack.ids import Msg, PlanMsg
from bot.flows.base import Flow
from bot.flows.context import END, NOT_A_CHOICE, Choice, FlowContext, Next, Outcome
from bot.flows.plan_parts import (
    ASKS,
    BY_KEY,
    HELP_SECTION,
    REASONS_SECTION,
    SECTIONS,
    PlanPart,
    PlanStep,
    Section,
    held_parts,
    section_at,
    unfinished,
)
from bot.flows.plan_reading import plan_text
from bot.flows.plan_review_note import set_notes
from bot.storage import safety_plans
from bot.storage.flow_positions import FlowPosition


class PlanShown:
    """The plan's view and its changes, for the `Plan` flow whose table shows them: its
    buttons are read from that table (`flow.steps`) when a question is built."""

    def __init__(self, flow: Flow) -> None:
        self._flow = flow

    async def view(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self.view_next(ctx)

    async def view_next(self, ctx: FlowContext, before: Msg | None = None) -> Next:
        """The plan, readable, with its buttons; the note turned on or off as it is not."""
        user = await ctx.ensure_user()
        text = await plan_text(ctx, user.id)
        if before is not None:
            text = f"{ctx.text(before)}\n\n{text}"
        notes = await safety_plans.review_due_at(ctx.db, user.id) is not None
        left_out = {"off" if not notes else "on"}
        if not unfinished(await held_parts(ctx)):
            left_out.add("continue")
        rows = self._flow.buttons_without(PlanStep.VIEW, left_out)
        # protect: the plan quotes the user's own words.
        return Next(PlanStep.VIEW, question=text, rows=rows, protect=True)

    async def pick(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        rows = [
            [Choice(section.key, f"{n} · {ctx.text(section.title)}")]
            for n, section in enumerate(SECTIONS, start=1)
        ]
        back = list(self._flow.steps[PlanStep.PICK].buttons[0])
        return Next(PlanStep.PICK, rows=[*rows, back])

    async def picked(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        section = BY_KEY.get(value)
        if section is None:
            return NOT_A_CHOICE
        return await self._part_menu(ctx, section)

    async def _part_menu(self, ctx: FlowContext, section: Section) -> Next:
        """What can be done with one part: only the buttons that apply to it."""
        held = await held_parts(ctx)
        if section is REASONS_SECTION:
            keep = {"reasons", "back"}
        elif section is HELP_SECTION:
            keep = {"own", "relines", "clear", "back"} | (
                {"unline"} if PlanPart.LINES in held else set()
            )
        else:
            keep = {"rewrite", "clear", "back"}
        if not held.intersection(section.parts):
            keep -= {"clear"}
        buttons = self._flow.steps[PlanStep.PART].buttons
        everything = {choice.value for row in buttons for choice in row}
        rows = self._flow.buttons_without(PlanStep.PART, everything - keep)
        question = ctx.text(PlanMsg.PLAN_PART_MENU, title=ctx.text(section.title))
        return Next(PlanStep.PART, {"section": section.key}, question=question, rows=rows)

    async def rewrite(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        section = section_at(position)
        if section is None or not section.parts:
            return NOT_A_CHOICE
        part = PlanPart.PROS if section is HELP_SECTION else section.parts[0]
        return Next(PlanStep.REWRITE, {"part": part.value}, question=ASKS[part])

    async def clear(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        section = section_at(position)
        if section is None:
            return NOT_A_CHOICE
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            for part in section.parts:
                await safety_plans.clear_part(tx, user.id, part)
        return await self.view_next(ctx, PlanMsg.PLAN_PART_CLEARED)

    async def delete(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await safety_plans.delete_plan(tx, user.id)
        await ctx.db.checkpoint()  # no old copy of the plan left in the write-ahead log
        return Next(END, before=[ctx.reply(PlanMsg.PLAN_DELETED)])

    async def keep_plan(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self.view_next(ctx, PlanMsg.PLAN_KEPT)

    async def notes_on(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        await set_notes(ctx, on=True)
        return await self.view_next(ctx, PlanMsg.PLAN_NOTES_TURNED_ON)

    async def notes_off(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        await set_notes(ctx, on=False)
        return await self.view_next(ctx, PlanMsg.PLAN_NOTES_TURNED_OFF)
