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
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum

from bot.content_pack.countries import country_for_timezone
from bot.content_pack.ids import GeneralMsg, Msg, PlanMsg, ReasonsMsg
from bot.core.events import Address
from bot.core.replies import Button, Reply
from bot.delivery.outgoing import Effect, Outgoing
from bot.flows.base import Flow, Step, leading
from bot.flows.context import END, NOT_A_CHOICE, Choice, FlowContext, Next, Outcome, Services
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
from bot.flows.reasons import MAX_REASONS, Reasons, save_reason
from bot.flows.validation import too_long
from bot.logs import get_logger, log_event
from bot.safety.screen import SafetyScreen
from bot.scheduling.plan_review_due import review_after
from bot.scheduling.planner import in_quiet_hours
from bot.storage import checkin_slots, safety_plans
from bot.storage.db import Transaction
from bot.storage.flow_positions import FlowPosition
from bot.storage.queries import Queryable
from bot.storage.still_there import StillThere, Target
from bot.storage.user_texts import TextKind, list_texts
from bot.storage.users import User

log = get_logger("plan")

PART_LIMIT = TextLimit.PLAN_PART
# "My plan" under a crisis reply reads the plan; a stalled disk gets a kind line instead.
PLAN_READ_SECONDS = 2.0
# A part of the plan can take a while to write, and is worth more than a quick answer:
# its question stays open a day, not the general STEADY_STEP_EXPIRY.
WRITING_EXPIRY = timedelta(hours=24)


class PlanPart(StrEnum):
    """What is stored: one sealed text per part. Stored values: never change them."""

    SIGNS = "signs"
    ALONE = "alone"
    DISTRACT = "distract"
    PEOPLE = "people"
    LINES = "lines"  # helplines kept from those offered for the user's country, one a line
    PROS = "pros"  # professionals and services the user wrote in themselves
    SAFER = "safer"


class PlanStep(StrEnum):
    # Writing, in order (the text steps share their value with the part they fill)
    SIGNS = "signs"
    ALONE = "alone"
    DISTRACT = "distract"
    PEOPLE = "people"
    LINES = "lines"
    PROS = "pros"
    SAFER = "safer"
    REASONS = "reasons"
    OPT_IN = "optin"
    SAVED = "saved"
    # The plan shown, and changed
    VIEW = "view"
    PICK = "pick"
    PART = "part"
    REWRITE = "rewrite"
    RELINES = "relines"
    UNLINE = "unline"
    DELETE = "delete"


_WRITING_ORDER = (
    PlanStep.SIGNS,
    PlanStep.ALONE,
    PlanStep.DISTRACT,
    PlanStep.PEOPLE,
    PlanStep.LINES,
    PlanStep.PROS,
    PlanStep.SAFER,
    PlanStep.REASONS,
    PlanStep.OPT_IN,
    PlanStep.SAVED,
)
# Said before each part's question while writing ("5 of 7."), never when changing one.
_NUMBERS = {
    PlanStep.SIGNS: 1,
    PlanStep.ALONE: 2,
    PlanStep.DISTRACT: 3,
    PlanStep.PEOPLE: 4,
    PlanStep.LINES: 5,
    PlanStep.PROS: 5,
    PlanStep.SAFER: 6,
    PlanStep.REASONS: 7,
}
_ASKS = {
    PlanPart.SIGNS: PlanMsg.PLAN_ASK_SIGNS,
    PlanPart.ALONE: PlanMsg.PLAN_ASK_ALONE,
    PlanPart.DISTRACT: PlanMsg.PLAN_ASK_DISTRACT,
    PlanPart.PEOPLE: PlanMsg.PLAN_ASK_PEOPLE,
    PlanPart.PROS: PlanMsg.PLAN_ASK_PROS,
    PlanPart.SAFER: PlanMsg.PLAN_ASK_SAFER,
}


@dataclass(frozen=True, slots=True)
class Section:
    """One of the seven parts as the user sees it: its title, and what it holds."""

    key: str  # travels in button data and the position
    title: Msg
    parts: tuple[PlanPart, ...]  # none: the reasons, kept by /reasons


SECTIONS = (
    Section("signs", PlanMsg.PLAN_TITLE_SIGNS, (PlanPart.SIGNS,)),
    Section("alone", PlanMsg.PLAN_TITLE_ALONE, (PlanPart.ALONE,)),
    Section("distract", PlanMsg.PLAN_TITLE_DISTRACT, (PlanPart.DISTRACT,)),
    Section("people", PlanMsg.PLAN_TITLE_PEOPLE, (PlanPart.PEOPLE,)),
    Section("help", PlanMsg.PLAN_TITLE_HELP, (PlanPart.LINES, PlanPart.PROS)),
    Section("safer", PlanMsg.PLAN_TITLE_SAFER, (PlanPart.SAFER,)),
    Section("reasons", PlanMsg.PLAN_TITLE_REASONS, ()),
)
_BY_KEY = {section.key: section for section in SECTIONS}
_HELP, _REASONS = _BY_KEY["help"], _BY_KEY["reasons"]

_SKIP = (Choice("skip", PlanMsg.PLAN_SKIP),)
_BACK = (Choice("back", PlanMsg.PLAN_BACK),)
_NEXT = (Choice("next", PlanMsg.PLAN_NEXT),)
# Under a plan question shown again after a crisis reply: the words the user wrote,
# held sealed in the position, become the answer (`Plan.hold_crisis_text`).
_KEEP_WRITTEN = (Choice("written", PlanMsg.PLAN_KEEP_WRITTEN),)
# The four-weekly note's buttons are static, as the crisis reply's are: the note changes
# no one's place in a conversation, so a question it arrives beside stays open. Only
# "Review" moves on, into the plan, because the user asked for that.
NOTE_REVIEW = "plan:review"
NOTE_LATER = "plan:later"
NOTE_STOP = "plan:stop"
NOTE_BUTTONS = frozenset({NOTE_REVIEW, NOTE_LATER, NOTE_STOP})


class Plan(Flow):
    name = FlowName.PLAN

    def __init__(self, screen: SafetyScreen) -> None:
        self._screen = screen
        self._reasons = Reasons()  # "Open my reasons list" begins that flow
        overlong = long_text_buttons(self._keep_first_part, self._write_shorter)
        held = (*overlong, *leading((_KEEP_WRITTEN,), self._save_written))

        def writing(step: PlanStep) -> Step:
            return Step(
                asks=_ASKS[PlanPart(step)],
                buttons=leading((_SKIP,), self._skip),
                also=held,
                on_typed=self._typed,
                expiry=WRITING_EXPIRY,
            )

        self.steps = self.table({
            **{PlanStep(part.value): writing(PlanStep(part.value)) for part in _ASKS},
            # Typed text here is the user's own entry (part 5's "pros"): kept with the lines.
            PlanStep.LINES: Step(
                buttons=((Choice("keep", PlanMsg.PLAN_LINES_KEEP, goes_to=self._keep_lines),),
                         (Choice("skip", PlanMsg.PLAN_SKIP, goes_to=self._skip),)),
                also=held,
                on_typed=self._typed,
                expiry=WRITING_EXPIRY,
            ),
            # A reason typed here joins the /reasons list, as one written there would.
            PlanStep.REASONS: Step(
                buttons=leading((_NEXT,), self._skip),
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
                buttons=((Choice("see", PlanMsg.PLAN_SEE, goes_to=self._view),),
                         (Choice("reasons", PlanMsg.PLAN_OPEN_REASONS,
                                 goes_to=self._open_reasons),),
                         (Choice("done", PlanMsg.PLAN_DONE, goes_to=self._done),)),
                passes_text=True,
            ),
            PlanStep.VIEW: Step(
                buttons=((Choice("continue", PlanMsg.PLAN_CONTINUE, goes_to=self._continue),),
                         (Choice("change", PlanMsg.PLAN_CHANGE, goes_to=self._pick),),
                         (Choice("on", PlanMsg.PLAN_NOTES_ON, goes_to=self._notes_on),),
                         (Choice("off", PlanMsg.PLAN_NOTES_OFF, goes_to=self._notes_off),),
                         (Choice("delete", PlanMsg.PLAN_DELETE, goes_to=PlanStep.DELETE),),
                         (Choice("done", PlanMsg.PLAN_DONE, goes_to=self._done),)),
                passes_text=True,
            ),
            # The sections to tap are built with their numbers: other_choice reads them.
            PlanStep.PICK: Step(
                asks=PlanMsg.PLAN_PICK,
                buttons=leading((_BACK,), self._view),
                other_choice=self._picked,
            ),
            PlanStep.PART: Step(
                buttons=((Choice("rewrite", PlanMsg.PLAN_REWRITE, goes_to=self._rewrite),),
                         (Choice("own", PlanMsg.PLAN_REWRITE_OWN, goes_to=self._rewrite),),
                         (Choice("unline", PlanMsg.PLAN_REMOVE_LINE, goes_to=self._pick_line),),
                         (Choice("relines", PlanMsg.PLAN_OFFER_AGAIN, goes_to=self._offer_again),),
                         (Choice("reasons", PlanMsg.PLAN_OPEN_REASONS,
                                 goes_to=self._open_reasons),),
                         (Choice("clear", PlanMsg.PLAN_CLEAR, goes_to=self._clear),),
                         (Choice("back", PlanMsg.PLAN_BACK, goes_to=self._view),)),
            ),
            PlanStep.REWRITE: Step(
                buttons=leading((_BACK,), self._view),
                also=held,
                on_typed=self._typed,
                expiry=WRITING_EXPIRY,
            ),
            PlanStep.RELINES: Step(
                buttons=((Choice("keep", PlanMsg.PLAN_LINES_KEEP, goes_to=self._keep_lines),),
                         (Choice("back", PlanMsg.PLAN_BACK, goes_to=self._view),)),
            ),
            PlanStep.UNLINE: Step(
                asks=PlanMsg.PLAN_PICK_LINE,
                buttons=leading((_BACK,), self._view),
                other_choice=self._remove_line,
            ),
            PlanStep.DELETE: Step(
                asks=PlanMsg.PLAN_DELETE_CONFIRM,
                buttons=((Choice("yes", PlanMsg.PLAN_DELETE_YES, goes_to=self._delete),),
                         (Choice("no", PlanMsg.PLAN_DELETE_NO, goes_to=self._keep_plan),)),
                # Deleting the plan waits for the deliberate tap, never a typed "yes".
                labels_typed=False,
            ),
        })  # fmt: skip

    # Entry points -----------------------------------------------------------------------

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        """/plan: the plan when there is one, else the first question."""
        user = await ctx.ensure_user()
        if await safety_plans.read_plan(ctx.db, ctx.cipher, user.id):
            return await self.go(ctx, await self._view_next(ctx))
        first = Next(
            PlanStep.SIGNS,
            question=_numbered(ctx, PlanStep.SIGNS, _ASKS[PlanPart.SIGNS]),
            before=[ctx.reply(PlanMsg.PLAN_INTRO)],
        )
        return await self.go(ctx, first)

    async def note_pressed(self, ctx: FlowContext, data: str) -> list[Reply]:
        """A button of the four-weekly note (`NOTE_BUTTONS`), however long ago it came."""
        if ctx.address.is_group or await ctx.find_user() is None:
            return [replace(ctx.reply(GeneralMsg.BUTTON_EXPIRED), ephemeral=True)]
        if data == NOTE_REVIEW:
            return await self.go(ctx, await self._view_next(ctx))
        if data == NOTE_STOP:
            await self._set_notes(ctx, on=False)
            return [ctx.reply(PlanMsg.PLAN_NOTES_STOPPED)]
        return [ctx.reply(PlanMsg.PLAN_REVIEW_LATER_REPLY)]

    # Writing ----------------------------------------------------------------------------

    async def _typed(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        part = _part_at(position)
        if part is None:
            return NOT_A_CHOICE
        if too_long(PART_LIMIT, text):
            return [await offer_choice(self, ctx, position, PART_LIMIT, text)]
        words = text.strip()
        if not words:
            return Next(position.step, dict(position.data), question=_ask_at(ctx, position))
        user = await ctx.ensure_user()
        _, lines = await self._offered(ctx) if position.step == PlanStep.LINES else (None, [])
        async with ctx.db.transaction() as tx:
            await safety_plans.save_part(tx, ctx.cipher, user.id, part, words, ctx.now())
            if lines:  # typed at the helplines offer: the lines offered are kept too
                joined = "\n".join(lines)
                await safety_plans.save_part(
                    tx, ctx.cipher, user.id, PlanPart.LINES, joined, ctx.now()
                )
        if position.step == PlanStep.REWRITE:
            return await self._view_next(ctx, PlanMsg.PLAN_PART_SAVED)
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
        if position.step not in _HOLDS_CRISIS_TEXT or not text.strip():
            return None
        if position.step == PlanStep.REASONS:
            question = (await self._reasons_shown(ctx)).question
        else:
            question = _ask_at(ctx, position)
        asked = f"{ctx.text(PlanMsg.PLAN_CRISIS_HELD)}\n\n{question}"
        rows = (_KEEP_WRITTEN, *_way_on(position))
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
        kept = await first_part(ctx, position, _limit_at(position))
        if kept is None:  # nothing held (an old button)
            return NOT_A_CHOICE
        if position.step == PlanStep.REASONS:
            return await self._add_reason(ctx, position, kept)
        return await self._typed(ctx, position, kept)

    async def _write_shorter(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        # The step's own way on stays: Skip or Next while writing, Back while changing a part.
        shorter = write_shorter(ctx, position, _limit_at(position))
        return replace(shorter, rows=_way_on(position))

    async def _skip(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._after(ctx, PlanStep(position.step))

    async def _after(self, ctx: FlowContext, step: PlanStep) -> Next:
        """The question after `step` in the writing order, passing parts already written
        (none while first writing; some when continuing a plan left unfinished)."""
        return await self._first_open(ctx, _WRITING_ORDER[_WRITING_ORDER.index(step) + 1 :])

    async def _first_open(self, ctx: FlowContext, steps: Sequence[PlanStep]) -> Next:
        held = await self._held(ctx)
        following = next(step for step in steps if not _answered(step, held))
        if following is PlanStep.LINES:
            return await self._lines_offer(ctx, PlanStep.LINES)
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
        if following in _NUMBERS:
            return Next(following, question=_numbered(ctx, following, _ASKS[PlanPart(following)]))
        return Next(following)

    async def _held(self, ctx: FlowContext) -> set[str]:
        user = await ctx.ensure_user()
        return {part.part for part in await safety_plans.read_plan(ctx.db, ctx.cipher, user.id)}

    async def _continue(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """ "Continue where I left off": the first part not written yet, and on from there
        as when writing, to the four-weekly note's question if it is not on. (Whether it
        was asked before is not stored: a note that is off is asked about again.)"""
        if not _unfinished(await self._held(ctx)):
            return await self._view_next(ctx)
        return await self._first_open(ctx, _WRITING_ORDER)

    async def _lines_offer(self, ctx: FlowContext, step: PlanStep) -> Next:
        """The helplines for the user's country, to keep in the plan; with none to offer,
        straight on (writing) or back to the plan (changing it)."""
        country, lines = await self._offered(ctx)
        if country is None or not lines:
            if step is PlanStep.RELINES:
                return await self._view_next(ctx, PlanMsg.PLAN_LINES_NONE)
            note = ctx.text(PlanMsg.PLAN_LINES_NONE)
            ask = _numbered(ctx, PlanStep.PROS, PlanMsg.PLAN_ASK_PROS)
            return Next(PlanStep.PROS, question=f"{note}\n\n{ask}")
        where = ctx.services.content.country_in_sentence(ctx.locale, country)
        text = ctx.text(PlanMsg.PLAN_LINES_OFFER, country=where, lines="\n".join(lines))
        if step is PlanStep.LINES:  # writing, not offered again while changing the plan
            text = _numbered(ctx, step, text)
        return Next(step, question=text)

    async def _offered(self, ctx: FlowContext) -> tuple[str | None, list[str]]:
        user = await ctx.ensure_user()
        country = user.country or country_for_timezone(user.timezone)
        return country, self._screen.plan_lines(ctx.locale, country)

    async def _keep_lines(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        _, lines = await self._offered(ctx)
        user = await ctx.ensure_user()
        if lines:
            async with ctx.db.transaction() as tx:
                await safety_plans.save_part(
                    tx, ctx.cipher, user.id, PlanPart.LINES, "\n".join(lines), ctx.now()
                )
        if position.step == PlanStep.RELINES:
            return await self._view_next(ctx, PlanMsg.PLAN_PART_SAVED)
        ask = _numbered(ctx, PlanStep.PROS, PlanMsg.PLAN_ASK_PROS)
        kept = f"{ctx.text(PlanMsg.PLAN_LINES_KEPT)}\n\n{ask}"
        return Next(PlanStep.PROS, question=kept)

    async def _reasons_shown(self, ctx: FlowContext, before: Msg | None = None) -> Next:
        listed = await self._reasons_list(ctx)
        if listed is None:
            text = ctx.text(PlanMsg.PLAN_REASONS_EMPTY)
        else:
            text = ctx.text(PlanMsg.PLAN_REASONS_SHOW, reasons=listed)
        text = _numbered(ctx, PlanStep.REASONS, text)
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
        await self._set_notes(ctx, on=True)
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

    # The plan shown -----------------------------------------------------------------------

    async def _view(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._view_next(ctx)

    async def _view_next(self, ctx: FlowContext, before: Msg | None = None) -> Next:
        """The plan, readable, with its buttons; the note turned on or off as it is not."""
        user = await ctx.ensure_user()
        text = await plan_text(ctx, user.id)
        if before is not None:
            text = f"{ctx.text(before)}\n\n{text}"
        notes = await safety_plans.review_due_at(ctx.db, user.id) is not None
        left_out = {"off" if not notes else "on"}
        if not _unfinished(await self._held(ctx)):
            left_out.add("continue")
        rows = self.buttons_without(PlanStep.VIEW, left_out)
        # protect: the plan quotes the user's own words.
        return Next(PlanStep.VIEW, question=text, rows=rows, protect=True)

    async def _pick(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        rows = [
            [Choice(section.key, f"{n} · {ctx.text(section.title)}")]
            for n, section in enumerate(SECTIONS, start=1)
        ]
        return Next(PlanStep.PICK, rows=[*rows, list(self.steps[PlanStep.PICK].buttons[0])])

    async def _picked(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        section = _BY_KEY.get(value)
        if section is None:
            return NOT_A_CHOICE
        return await self._part_menu(ctx, section)

    async def _part_menu(self, ctx: FlowContext, section: Section) -> Next:
        """What can be done with one part: only the buttons that apply to it."""
        user = await ctx.ensure_user()
        held = {part.part for part in await safety_plans.read_plan(ctx.db, ctx.cipher, user.id)}
        if section is _REASONS:
            keep = {"reasons", "back"}
        elif section is _HELP:
            keep = {"own", "relines", "clear", "back"} | (
                {"unline"} if PlanPart.LINES in held else set()
            )
        else:
            keep = {"rewrite", "clear", "back"}
        if not held.intersection(section.parts):
            keep -= {"clear"}
        everything = {choice.value for row in self.steps[PlanStep.PART].buttons for choice in row}
        rows = self.buttons_without(PlanStep.PART, everything - keep)
        question = ctx.text(PlanMsg.PLAN_PART_MENU, title=ctx.text(section.title))
        return Next(PlanStep.PART, {"section": section.key}, question=question, rows=rows)

    async def _rewrite(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        section = _section_at(position)
        if section is None or not section.parts:
            return NOT_A_CHOICE
        part = PlanPart.PROS if section is _HELP else section.parts[0]
        return Next(PlanStep.REWRITE, {"part": part.value}, question=_ASKS[part])

    async def _clear(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        section = _section_at(position)
        if section is None:
            return NOT_A_CHOICE
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            for part in section.parts:
                await safety_plans.clear_part(tx, user.id, part)
        return await self._view_next(ctx, PlanMsg.PLAN_PART_CLEARED)

    async def _offer_again(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._lines_offer(ctx, PlanStep.RELINES)

    async def _kept_lines(self, ctx: FlowContext) -> list[str]:
        user = await ctx.ensure_user()
        parts = await safety_plans.read_plan(ctx.db, ctx.cipher, user.id)
        kept = next((part.text for part in parts if part.part == PlanPart.LINES), "")
        return [line for line in kept.splitlines() if line.strip()]

    async def _pick_line(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        lines = await self._kept_lines(ctx)
        if not lines:
            return await self._view_next(ctx)
        listed = "\n".join(f"{n}. {line}" for n, line in enumerate(lines, start=1))
        question = f"{ctx.text(PlanMsg.PLAN_PICK_LINE)}\n\n{listed}"
        numbers = [Choice(str(n), str(n)) for n in range(1, len(lines) + 1)]
        rows = [*_in_fives(numbers), list(_BACK)]
        return Next(PlanStep.UNLINE, question=question, rows=rows)

    async def _remove_line(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
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
        return await self._view_next(ctx, PlanMsg.PLAN_LINE_REMOVED)

    async def _delete(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await safety_plans.delete_plan(tx, user.id)
        await ctx.db.checkpoint()  # no old copy of the plan left in the write-ahead log
        return Next(END, before=[ctx.reply(PlanMsg.PLAN_DELETED)])

    async def _keep_plan(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._view_next(ctx, PlanMsg.PLAN_KEPT)

    # The four-weekly note -----------------------------------------------------------------

    async def _notes_on(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        await self._set_notes(ctx, on=True)
        return await self._view_next(ctx, PlanMsg.PLAN_NOTES_TURNED_ON)

    async def _notes_off(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        await self._set_notes(ctx, on=False)
        return await self._view_next(ctx, PlanMsg.PLAN_NOTES_TURNED_OFF)

    async def _set_notes(self, ctx: FlowContext, on: bool) -> None:
        user = await ctx.ensure_user()
        due = None
        if on:
            times = [slot.local_time for slot in await checkin_slots.list_slots(ctx.db, user.id)]
            due = review_after(user, min(times, default=None), ctx.now())
        async with ctx.db.transaction() as tx:
            await safety_plans.set_review(tx, user.id, due)


def _part_at(position: FlowPosition) -> PlanPart | None:
    """The part a text answers: the writing step's own, or the one being written again
    (typed at the helplines offer: the user's own entry, the "pros" part)."""
    if position.step == PlanStep.LINES:
        return PlanPart.PROS
    value = position.data.get("part") if position.step == PlanStep.REWRITE else position.step
    try:
        part = PlanPart(str(value))
    except ValueError:
        return None
    return part if part in _ASKS else None


def _numbered(ctx: FlowContext, step: PlanStep, text: Msg | str) -> str:
    """A writing question with its place in the plan before it ("2 of 7.")."""
    words = ctx.text(text) if isinstance(text, Msg) else text
    return f"{ctx.text(PlanMsg.PLAN_STEP_OF, n=_NUMBERS[step])} {words}"


def _ask_at(ctx: FlowContext, position: FlowPosition) -> str:
    """The question of a text step: numbered while writing, bare while changing a part."""
    part = _part_at(position)
    assert part is not None
    if position.step == PlanStep.REWRITE:
        return ctx.text(_ASKS[part])
    if position.step == PlanStep.LINES:
        return _numbered(ctx, PlanStep.PROS, _ASKS[part])
    return _numbered(ctx, PlanStep(position.step), _ASKS[part])


# The parts each writing step fills: it is passed when continuing if one of them is held.
_FILLS: dict[PlanStep, frozenset[str]] = {
    **{PlanStep(part.value): frozenset({part.value}) for part in _ASKS},
    PlanStep.LINES: frozenset({PlanPart.LINES.value, PlanPart.PROS.value}),
    PlanStep.PROS: frozenset({PlanPart.LINES.value, PlanPart.PROS.value}),
}
# Steps whose answer is the user's own writing: crisis words there are held to be saved.
_HOLDS_CRISIS_TEXT = frozenset({*_FILLS, PlanStep.REWRITE, PlanStep.REASONS})


def _answered(step: PlanStep, held: set[str]) -> bool:
    return step in _FILLS and bool(held & _FILLS[step])


def _unfinished(held: set[str]) -> bool:
    """A plan with a part still to write (the reasons live in their own list)."""
    return bool(held) and any(not _answered(step, held) for step in _FILLS)


def _section_at(position: FlowPosition) -> Section | None:
    return _BY_KEY.get(str(position.data.get("section")))


def _way_on(position: FlowPosition) -> Sequence[Sequence[Choice]]:
    if position.step == PlanStep.REWRITE:
        return (_BACK,)
    return (_NEXT,) if position.step == PlanStep.REASONS else (_SKIP,)


def _limit_at(position: FlowPosition) -> TextLimit:
    return TextLimit.REASON if position.step == PlanStep.REASONS else PART_LIMIT


def _in_fives(numbers: list[Choice]) -> list[list[Choice]]:
    return [numbers[i : i + 5] for i in range(0, len(numbers), 5)]


async def plan_text(ctx: FlowContext, user_id: int) -> str:
    """The whole plan, readable: every part under its title, the empty ones said so."""
    stored = await safety_plans.read_plan(ctx.db, ctx.cipher, user_id)
    return await _readable(ctx, ctx.db, user_id, stored)


async def _readable(
    ctx: FlowContext, db: Queryable, user_id: int, stored: Sequence[safety_plans.PlanPart]
) -> str:
    parts = {part.part: part.text for part in stored}
    reasons = await list_texts(db, ctx.cipher, TextKind.REASON, user_id)
    empty = ctx.text(PlanMsg.PLAN_PART_EMPTY)
    blocks = [ctx.text(PlanMsg.PLAN_HEADING)]
    for n, section in enumerate(SECTIONS, start=1):
        if section is _REASONS:
            held = [f"• {reason.text}" for reason in reasons]
        else:
            held = [parts[part] for part in section.parts if part in parts]
        body = "\n".join(held) if held else empty
        blocks.append(f"{n}. {ctx.text(section.title)}\n{body}")
    return "\n\n".join(blocks)


async def plan_on_request(ctx: FlowContext, user: User | None) -> list[Reply]:
    """ "My plan" under a crisis reply or /sos: the plan to read, nothing to answer, so the
    question the user was in stays open. A read that stalls or fails gets a kind line."""
    if user is None:
        return [ctx.reply(PlanMsg.PLAN_UNAVAILABLE)]

    async def read() -> str | None:
        # Bounded below (PLAN_READ_SECONDS): read where that bound holds.
        stored = await safety_plans.read_plan(ctx.db.bounded, ctx.cipher, user.id)
        return await _readable(ctx, ctx.db.bounded, user.id, stored) if stored else None

    try:
        text = await asyncio.wait_for(read(), PLAN_READ_SECONDS)
    except Exception as error:  # a stall (TimeoutError) too: the crisis reply is out already
        log_event(log, "plan.read_failed", logging.WARNING, exc_info=error)
        return [ctx.reply(PlanMsg.PLAN_UNAVAILABLE)]
    if text is None:
        return [ctx.reply(PlanMsg.PLAN_NONE)]
    # protect: the plan quotes the user's own words.
    return [Reply(f"{text}\n\n{ctx.text(PlanMsg.PLAN_CHANGE_HINT)}", protect=True)]


async def reviews_due(tx: Transaction, services: Services, users: Sequence[User]) -> list[Outgoing]:
    """The four-weekly note for each claimed user. Built from the claimed rows alone:
    nobody is looked up or created here, and nobody's place in a conversation moves."""
    now = services.clock.now()
    outgoing = []
    for user in users:
        ctx = FlowContext(services, user.address, user.locale)
        buttons = tuple(
            (Button(ctx.text(label), data),)
            for label, data in (
                (PlanMsg.PLAN_REVIEW_GO, NOTE_REVIEW),
                (PlanMsg.PLAN_REVIEW_LATER, NOTE_LATER),
                (PlanMsg.PLAN_REVIEW_STOP, NOTE_STOP),
            )
        )
        # Its first line says nothing a lock screen should not show.
        reply = Reply(
            ctx.text(PlanMsg.PLAN_REVIEW_NOTE), buttons=buttons, silent=in_quiet_hours(user, now)
        )
        outgoing.append(_review_outgoing(user, reply))
    return outgoing


def _review_outgoing(user: User, reply: Reply) -> Outgoing:
    """Not sent once the user stopped the notes, deleted the plan or was forgotten."""
    # The note's row goes with the plan, and the plan with the user: one test covers all.
    wanted = StillThere(Target.PLAN_REVIEW, user.id)
    return Outgoing(user.address, reply, guard=wanted, on_delivered=Effect.PLAN_REVIEW_SENT)


async def review_sent(
    tx: Transaction, now: datetime, review: StillThere, to: Address
) -> Sequence[Outgoing]:
    await safety_plans.mark_review_sent(tx, review.id, now)
    return ()
