"""/plan: a plan for hard moments, written by the user for themselves, in seven parts.

The parts follow the order clinicians use for safety planning: signs that a hard time is
coming, what helps on one's own, people and places that take the mind off it, people to
ask for help, professionals and helplines, a safer space, and reasons. Every part may be
skipped; every answer is sealed (`bot/storage/safety_plans.py`).

Writing (when there is no plan yet):
signs ─▶ alone ─▶ distract ─▶ people ─▶ lines ─▶ pros ─▶ safer ─▶ reasons ─▶ optin ─▶ saved
  each takes typed text or [Skip]; lines offers the country's helplines [Keep these | Skip];
  reasons shows the /reasons list [Next]; optin asks for the four-weekly note [Yes | No];
  nothing written at all: straight to saved, with nothing saved said so.

The plan shown (/plan when there is one, "See my plan", "Review"):
view ─[Change a part]─▶ pick ─[a part]─▶ part ─[Write it again]─▶ rewrite (text) ─▶ view
  │                                        ├─[Clear it]─▶ view
  │                                        ├─[Remove a helpline]─▶ unline ─[number]─▶ view
  │                                        ├─[Show the helplines again]─▶ relines ─▶ view
  │                                        └─[Open my reasons list]─▶ /reasons
  ├─[the four-weekly note: on / off]─▶ view
  ├─[Delete my plan]─▶ delete ─[Yes]─▶ (left)  [Keep it]─▶ view
  └─[Done]─▶ (left)

The scheduler's note (`reviews_due`), static buttons, no step: [Review]─▶ view,
[Not now] and [Stop these] answer and leave the user where they were.

"My plan" under a crisis reply (`plan_on_request`) shows the plan to read, with no buttons,
so whatever question the user was in the middle of stays open.

What the plan is made of (parts, steps, sections, the writing order) is
`bot.flows.plan_parts`; the plan shown and changed `bot.flows.plan_shown`; the helplines
part `bot.flows.plan_helplines`; the plan as text and "My plan" `bot.flows.plan_reading`;
the four-weekly note `bot.flows.plan_review_note`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.content_pack.ids import GeneralMsg, Msg, PlanMsg, ReasonsMsg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step, leading
from bot.flows.context import END, NOT_A_CHOICE, Choice, FlowContext, Next, Outcome
from bot.flows.limits import TextLimit
from bot.flows.names import FlowName
from bot.flows.overlong import (
    first_part,
    held_text,
    hold_text,
    long_text_buttons,
    offer_choice,
    write_shorter,
)
from bot.flows.plan_helplines import PlanHelplines
from bot.flows.plan_parts import (
    ASKS,
    BACK,
    HOLDS_CRISIS_TEXT,
    KEEP_WRITTEN,
    NEXT,
    NUMBERS,
    PART_LIMIT,
    SKIP,
    WRITING_EXPIRY,
    WRITING_ORDER,
    PlanPart,
    PlanStep,
    answered,
    ask_at,
    held_parts,
    limit_at,
    numbered,
    part_at,
    unfinished,
    way_on,
)
from bot.flows.plan_review_note import NOTE_BUTTONS, NOTE_REVIEW, NOTE_STOP, set_notes
from bot.flows.plan_shown import PlanShown
from bot.flows.reasons import MAX_REASONS, Reasons, save_reason
from bot.flows.validation import too_long
from bot.safety.screen import SafetyScreen
from bot.storage import safety_plans
from bot.storage.flow_positions import FlowPosition
from bot.storage.user_texts import TextKind, list_texts

# The router tells the note's presses (NOTE_BUTTONS) from others' by this module, whose
# `Plan.note_pressed` answers them; the set itself lives with the note.
__all__ = ["NOTE_BUTTONS", "Plan"]


class Plan(Flow):
    name = FlowName.PLAN

    def __init__(self, screen: SafetyScreen) -> None:
        # The plan shown and changed, and the helplines part: their handlers sit in the
        # table below, beside the writing's.
        self._shown = PlanShown(self)
        self._helplines = PlanHelplines(screen, self._shown)
        self._reasons = Reasons()  # "Open my reasons list" begins that flow
        overlong = long_text_buttons(self._keep_first_part, self._write_shorter)
        held = (*overlong, *leading((KEEP_WRITTEN,), self._save_written))

        def writing(step: PlanStep) -> Step:
            return Step(
                asks=ASKS[PlanPart(step)],
                buttons=leading((SKIP,), self._skip),
                also=held,
                on_typed=self._typed,
                expiry=WRITING_EXPIRY,
            )

        self.steps = self.table({
            **{PlanStep(part.value): writing(PlanStep(part.value)) for part in ASKS},
            # Typed text here is the user's own entry (part 5's "pros"): kept with the lines.
            PlanStep.LINES: Step(
                buttons=((Choice("keep", PlanMsg.PLAN_LINES_KEEP, goes_to=self._helplines.keep),),
                         (Choice("skip", PlanMsg.PLAN_SKIP, goes_to=self._skip),)),
                also=held,
                on_typed=self._typed,
                expiry=WRITING_EXPIRY,
            ),
            # A reason typed here joins the /reasons list, as one written there would.
            PlanStep.REASONS: Step(
                buttons=leading((NEXT,), self._skip),
                also=held,
                on_typed=self._add_reason,
                expiry=WRITING_EXPIRY,
            ),
            PlanStep.OPT_IN: Step(
                asks=PlanMsg.PLAN_ASK_REVIEW,
                buttons=((Choice("yes", PlanMsg.PLAN_REVIEW_YES, goes_to=self._opt_in),),
                         (Choice("no", PlanMsg.PLAN_REVIEW_NO, goes_to=self._opt_out),)),
            ),
            PlanStep.SAVED: Step(
                buttons=((Choice("see", PlanMsg.PLAN_SEE, goes_to=self._shown.view),),
                         (Choice("reasons", PlanMsg.PLAN_OPEN_REASONS,
                                 goes_to=self._open_reasons),),
                         (Choice("done", PlanMsg.PLAN_DONE, goes_to=self._done),)),
                passes_text=True,
            ),
            PlanStep.VIEW: Step(
                buttons=((Choice("continue", PlanMsg.PLAN_CONTINUE, goes_to=self._continue),),
                         (Choice("change", PlanMsg.PLAN_CHANGE, goes_to=self._shown.pick),),
                         (Choice("on", PlanMsg.PLAN_NOTES_ON, goes_to=self._shown.notes_on),),
                         (Choice("off", PlanMsg.PLAN_NOTES_OFF, goes_to=self._shown.notes_off),),
                         (Choice("delete", PlanMsg.PLAN_DELETE, goes_to=PlanStep.DELETE),),
                         (Choice("done", PlanMsg.PLAN_DONE, goes_to=self._done),)),
                passes_text=True,
            ),
            # The sections to tap are built with their numbers: other_choice reads them.
            PlanStep.PICK: Step(
                asks=PlanMsg.PLAN_PICK,
                buttons=leading((BACK,), self._shown.view),
                other_choice=self._shown.picked,
            ),
            PlanStep.PART: Step(
                buttons=((Choice("rewrite", PlanMsg.PLAN_REWRITE, goes_to=self._shown.rewrite),),
                         (Choice("own", PlanMsg.PLAN_REWRITE_OWN, goes_to=self._shown.rewrite),),
                         (Choice("unline", PlanMsg.PLAN_REMOVE_LINE,
                                 goes_to=self._helplines.pick_line),),
                         (Choice("relines", PlanMsg.PLAN_OFFER_AGAIN,
                                 goes_to=self._helplines.offer_again),),
                         (Choice("reasons", PlanMsg.PLAN_OPEN_REASONS,
                                 goes_to=self._open_reasons),),
                         (Choice("clear", PlanMsg.PLAN_CLEAR, goes_to=self._shown.clear),),
                         (Choice("back", PlanMsg.PLAN_BACK, goes_to=self._shown.view),)),
            ),
            PlanStep.REWRITE: Step(
                buttons=leading((BACK,), self._shown.view),
                also=held,
                on_typed=self._typed,
                expiry=WRITING_EXPIRY,
            ),
            PlanStep.RELINES: Step(
                buttons=((Choice("keep", PlanMsg.PLAN_LINES_KEEP, goes_to=self._helplines.keep),),
                         (Choice("back", PlanMsg.PLAN_BACK, goes_to=self._shown.view),)),
            ),
            PlanStep.UNLINE: Step(
                asks=PlanMsg.PLAN_PICK_LINE,
                buttons=leading((BACK,), self._shown.view),
                other_choice=self._helplines.remove_line,
            ),
            PlanStep.DELETE: Step(
                asks=PlanMsg.PLAN_DELETE_CONFIRM,
                buttons=((Choice("yes", PlanMsg.PLAN_DELETE_YES, goes_to=self._shown.delete),),
                         (Choice("no", PlanMsg.PLAN_DELETE_NO, goes_to=self._shown.keep_plan),)),
                # Deleting the plan waits for the deliberate tap, never a typed "yes".
                labels_typed=False,
            ),
        })  # fmt: skip

    # Entry points -----------------------------------------------------------------------

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        """/plan: the plan when there is one, else the first question."""
        user = await ctx.ensure_user()
        if await safety_plans.read_plan(ctx.db, ctx.cipher, user.id):
            return await self.go(ctx, await self._shown.view_next(ctx))
        first = Next(
            PlanStep.SIGNS,
            question=numbered(ctx, PlanStep.SIGNS, ASKS[PlanPart.SIGNS]),
            before=[ctx.reply(PlanMsg.PLAN_INTRO)],
        )
        return await self.go(ctx, first)

    async def note_pressed(self, ctx: FlowContext, data: str) -> list[Reply]:
        """A button of the four-weekly note (`NOTE_BUTTONS`), however long ago it came."""
        if ctx.address.is_group or await ctx.find_user() is None:
            return [replace(ctx.reply(GeneralMsg.BUTTON_EXPIRED), ephemeral=True)]
        if data == NOTE_REVIEW:
            return await self.go(ctx, await self._shown.view_next(ctx))
        if data == NOTE_STOP:
            await set_notes(ctx, on=False)
            return [ctx.reply(PlanMsg.PLAN_NOTES_STOPPED)]
        return [ctx.reply(PlanMsg.PLAN_REVIEW_LATER_REPLY)]

    # Writing ----------------------------------------------------------------------------

    async def _typed(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        part = part_at(position)
        if part is None:
            return NOT_A_CHOICE
        if too_long(PART_LIMIT, text):
            return [await offer_choice(self, ctx, position, PART_LIMIT, text)]
        words = text.strip()
        if not words:
            return Next(position.step, dict(position.data), question=ask_at(ctx, position))
        user = await ctx.ensure_user()
        _, lines = (
            await self._helplines.offered(ctx) if position.step == PlanStep.LINES else (None, [])
        )
        async with ctx.db.transaction() as tx:
            await safety_plans.save_part(tx, ctx.cipher, user.id, part, words, ctx.now())
            if lines:  # typed at the helplines offer: the lines offered are kept too
                joined = "\n".join(lines)
                await safety_plans.save_part(
                    tx, ctx.cipher, user.id, PlanPart.LINES, joined, ctx.now()
                )
        if position.step == PlanStep.REWRITE:
            return await self._shown.view_next(ctx, PlanMsg.PLAN_PART_SAVED)
        following = await self._after(ctx, PlanStep.PROS if lines else PlanStep(position.step))
        if position.step == PlanStep.LINES:
            said = PlanMsg.PLAN_LINES_OWN_KEPT if lines else PlanMsg.PLAN_PART_SAVED
            return replace(following, before=[ctx.reply(said), *following.before])
        return following

    async def hold_crisis_text(
        self, ctx: FlowContext, position: FlowPosition, text: str
    ) -> Reply | None:
        """A plan answer that got the crisis reply ("when I start thinking I want to die"
        is a warning sign the plan is for). The crisis reply has gone out already; here
        the words are held sealed in the position, as an over-long text is, and the
        question comes again with "Save what I wrote as my answer". Nothing is saved
        until the user says so, and their words are neither shown back nor logged."""
        if position.step not in HOLDS_CRISIS_TEXT or not text.strip():
            return None
        if position.step == PlanStep.REASONS:
            question = (await self._reasons_shown(ctx)).question
        else:
            question = ask_at(ctx, position)
        asked = f"{ctx.text(PlanMsg.PLAN_CRISIS_HELD)}\n\n{question}"
        rows = (KEEP_WRITTEN, *way_on(position))
        return await hold_text(self, ctx, position, text, asked, rows)

    async def _save_written(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """ "Save what I wrote as my answer": the held words, as if typed now."""
        text = await held_text(ctx, position)
        if text is None:  # nothing held (an old button)
            return NOT_A_CHOICE
        if position.step == PlanStep.REASONS:
            return await self._add_reason(ctx, position, text)
        return await self._typed(ctx, position, text)

    async def _keep_first_part(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> Outcome:
        kept = await first_part(ctx, position, limit_at(position))
        if kept is None:  # nothing held (an old button)
            return NOT_A_CHOICE
        if position.step == PlanStep.REASONS:
            return await self._add_reason(ctx, position, kept)
        return await self._typed(ctx, position, kept)

    async def _write_shorter(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        # The step's own way on stays: Skip or Next while writing, Back while changing a part.
        shorter = write_shorter(ctx, position, limit_at(position))
        return replace(shorter, rows=way_on(position))

    async def _skip(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._after(ctx, PlanStep(position.step))

    async def _after(self, ctx: FlowContext, step: PlanStep) -> Next:
        """The question after `step` in the writing order, passing parts already written
        (none while first writing; some when continuing a plan left unfinished)."""
        return await self._first_open(ctx, WRITING_ORDER[WRITING_ORDER.index(step) + 1 :])

    async def _first_open(self, ctx: FlowContext, steps: Sequence[PlanStep]) -> Next:
        held = await held_parts(ctx)
        following = next(step for step in steps if not answered(step, held))
        if following is PlanStep.LINES:
            return await self._helplines.offer(ctx, PlanStep.LINES)
        if following is PlanStep.REASONS:
            return await self._reasons_shown(ctx)
        if following is PlanStep.OPT_IN:
            if not held:
                # No plan to look over again; reasons written here stay in their list.
                reasons = await self._reasons_list(ctx) is not None
                return self._saved(ctx, nothing=True, reasons_only=reasons)
            user = await ctx.ensure_user()
            if await safety_plans.review_due_at(ctx.db, user.id) is not None:
                return self._saved(ctx, nothing=False)  # the note is on already
        if following is PlanStep.SAVED:
            return self._saved(ctx, nothing=False)
        if following in NUMBERS:
            return Next(following, question=numbered(ctx, following, ASKS[PlanPart(following)]))
        return Next(following)

    async def _continue(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """ "Continue where I left off": the first part not written yet, and on from there
        as when writing, to the four-weekly note's question if it is not on. (Whether it
        was asked before is not stored: a note that is off is asked about again.)"""
        if not unfinished(await held_parts(ctx)):
            return await self._shown.view_next(ctx)
        return await self._first_open(ctx, WRITING_ORDER)

    async def _reasons_shown(self, ctx: FlowContext, before: Msg | None = None) -> Next:
        listed = await self._reasons_list(ctx)
        if listed is None:
            text = ctx.text(PlanMsg.PLAN_REASONS_EMPTY)
        else:
            text = ctx.text(PlanMsg.PLAN_REASONS_SHOW, reasons=listed)
        text = numbered(ctx, PlanStep.REASONS, text)
        if before is not None:
            text = f"{ctx.text(before)}\n\n{text}"
        return Next(PlanStep.REASONS, question=text, protect=listed is not None)

    async def _add_reason(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        if too_long(TextLimit.REASON, text):
            return [await offer_choice(self, ctx, position, TextLimit.REASON, text)]
        user = await ctx.ensure_user()
        if len(await list_texts(ctx.db, ctx.cipher, TextKind.REASON, user.id)) >= MAX_REASONS:
            return [ctx.reply(ReasonsMsg.REASONS_FULL, limit=MAX_REASONS)]
        if not text.strip():
            return await self._reasons_shown(ctx)
        refused = await save_reason(ctx, text)
        if refused is not None:
            return [refused]
        return await self._reasons_shown(ctx, before=ReasonsMsg.REASONS_ADDED)

    async def _reasons_list(self, ctx: FlowContext) -> str | None:
        user = await ctx.ensure_user()
        reasons = await list_texts(ctx.db, ctx.cipher, TextKind.REASON, user.id)
        if not reasons:
            return None
        return "\n".join(f"{n}. {reason.text}" for n, reason in enumerate(reasons, start=1))

    async def _opt_in(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        await set_notes(ctx, on=True)
        return self._saved(ctx, nothing=False, before=PlanMsg.PLAN_NOTES_TURNED_ON)

    async def _opt_out(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return self._saved(ctx, nothing=False)

    def _saved(
        self, ctx: FlowContext, nothing: bool, before: Msg | None = None, reasons_only: bool = False
    ) -> Next:
        if nothing:
            rows = self.buttons_without(PlanStep.SAVED, {"see"})
            said = PlanMsg.PLAN_SAVED_REASONS_ONLY if reasons_only else PlanMsg.PLAN_SAVED_NOTHING
            return Next(PlanStep.SAVED, question=ctx.text(said), rows=rows)
        text = ctx.text(PlanMsg.PLAN_SAVED)
        if before is not None:
            text = f"{ctx.text(before)}\n\n{text}"
        return Next(PlanStep.SAVED, question=text)

    async def _open_reasons(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._reasons.begin(ctx)

    async def _done(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(END, before=[ctx.reply(PlanMsg.PLAN_CLOSED)])
