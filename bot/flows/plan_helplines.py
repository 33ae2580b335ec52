"""The /plan's helplines part: the helplines of the user's country offered to keep (while
writing, and again when changing the plan), kept, and removed one at a time.

The lines offered are the safety screen's (`SafetyScreen.plan_lines`); the flow is
`bot.flows.plan`, the plan shown `bot.flows.plan_shown`.
"""

from __future__ import annotations

from bot.content_pack.countries import country_for_timezone
from bot.content_pack.ids import PlanMsg
from bot.flows.context import NOT_A_CHOICE, Choice, FlowContext, Next, Outcome
from bot.flows.plan_parts import BACK, PlanPart, PlanStep, in_fives, numbered
from bot.flows.plan_shown import PlanShown
from bot.safety.screen import SafetyScreen
from bot.storage import safety_plans
from bot.storage.flow_positions import FlowPosition


class PlanHelplines:
    """The helplines offer and the kept lines; back to the plan (`shown`) when changing it."""

    def __init__(self, screen: SafetyScreen, shown: PlanShown) -> None:
        self._screen = screen
        self._shown = shown

    async def offered(self, ctx: FlowContext) -> tuple[str | None, list[str]]:
        user = await ctx.ensure_user()
        country = user.country or country_for_timezone(user.timezone)
        return country, self._screen.plan_lines(ctx.locale, country)

    async def offer(self, ctx: FlowContext, step: PlanStep) -> Next:
        """The helplines for the user's country, to keep in the plan; with none to offer,
        straight on (writing) or back to the plan (changing it)."""
        country, lines = await self.offered(ctx)
        if country is None or not lines:
            if step is PlanStep.RELINES:
                return await self._shown.view_next(ctx, PlanMsg.PLAN_LINES_NONE)
            note = ctx.text(PlanMsg.PLAN_LINES_NONE)
            ask = numbered(ctx, PlanStep.PROS, PlanMsg.PLAN_ASK_PROS)
            return Next(PlanStep.PROS, question=f"{note}\n\n{ask}")
        where = ctx.services.content.country_in_sentence(ctx.locale, country)
        text = ctx.text(PlanMsg.PLAN_LINES_OFFER, country=where, lines="\n".join(lines))
        if step is PlanStep.LINES:  # writing, not offered again while changing the plan
            text = numbered(ctx, step, text)
        return Next(step, question=text)

    async def offer_again(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self.offer(ctx, PlanStep.RELINES)

    async def keep(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        _, lines = await self.offered(ctx)
        user = await ctx.ensure_user()
        if lines:
            async with ctx.db.transaction() as tx:
                await safety_plans.save_part(
                    tx, ctx.cipher, user.id, PlanPart.LINES, "\n".join(lines), ctx.now()
                )
        if position.step == PlanStep.RELINES:
            return await self._shown.view_next(ctx, PlanMsg.PLAN_PART_SAVED)
        ask = numbered(ctx, PlanStep.PROS, PlanMsg.PLAN_ASK_PROS)
        kept = f"{ctx.text(PlanMsg.PLAN_LINES_KEPT)}\n\n{ask}"
        return Next(PlanStep.PROS, question=kept)

    async def _kept_lines(self, ctx: FlowContext) -> list[str]:
        user = await ctx.ensure_user()
        parts = await safety_plans.read_plan(ctx.db, ctx.cipher, user.id)
        kept = next((part.text for part in parts if part.part == PlanPart.LINES), "")
        return [line for line in kept.splitlines() if line.strip()]

    async def pick_line(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        lines = await self._kept_lines(ctx)
        if not lines:
            return await self._shown.view_next(ctx)
        listed = "\n".join(f"{n}. {line}" for n, line in enumerate(lines, start=1))
        question = f"{ctx.text(PlanMsg.PLAN_PICK_LINE)}\n\n{listed}"
        numbers = [Choice(str(n), str(n)) for n in range(1, len(lines) + 1)]
        rows = [*in_fives(numbers), list(BACK)]
        return Next(PlanStep.UNLINE, question=question, rows=rows)

    async def remove_line(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        lines = await self._kept_lines(ctx)
        if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= len(lines):
            return NOT_A_CHOICE
        del lines[int(value) - 1]
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            if lines:
                text = "\n".join(lines)
                await safety_plans.save_part(
                    tx, ctx.cipher, user.id, PlanPart.LINES, text, ctx.now()
                )
            else:
                await safety_plans.clear_part(tx, user.id, PlanPart.LINES)
        return await self._shown.view_next(ctx, PlanMsg.PLAN_LINE_REMOVED)
