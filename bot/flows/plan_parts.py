"""What a /plan is made of: its parts, the steps that write and change them, the seven
sections the user sees, the order of writing, and what a position in the flow says (the
part it answers, its question, the way on from it).

The flow is `bot.flows.plan`; the plan shown and changed is `bot.flows.plan_shown`, the
plan read as text `bot.flows.plan_reading`, the four-weekly note
`bot.flows.plan_review_note`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from bot.content_pack.ids import Msg, PlanMsg
from bot.flows.context import Choice, FlowContext
from bot.flows.limits import TextLimit
from bot.storage import safety_plans
from bot.storage.flow_positions import FlowPosition

PART_LIMIT = TextLimit.PLAN_PART
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


WRITING_ORDER = (
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
NUMBERS = {
    PlanStep.SIGNS: 1,
    PlanStep.ALONE: 2,
    PlanStep.DISTRACT: 3,
    PlanStep.PEOPLE: 4,
    PlanStep.LINES: 5,
    PlanStep.PROS: 5,
    PlanStep.SAFER: 6,
    PlanStep.REASONS: 7,
}
ASKS = {
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
BY_KEY = {section.key: section for section in SECTIONS}
HELP_SECTION, REASONS_SECTION = BY_KEY["help"], BY_KEY["reasons"]

SKIP = (Choice("skip", PlanMsg.PLAN_SKIP),)
BACK = (Choice("back", PlanMsg.PLAN_BACK),)
NEXT = (Choice("next", PlanMsg.PLAN_NEXT),)
# Under a plan question shown again after a crisis reply: the words the user wrote,
# held sealed in the position, become the answer (`Plan.hold_crisis_text`).
KEEP_WRITTEN = (Choice("written", PlanMsg.PLAN_KEEP_WRITTEN),)


def part_at(position: FlowPosition) -> PlanPart | None:
    """The part a text answers: the writing step's own, or the one being written again
    (typed at the helplines offer: the user's own entry, the "pros" part)."""
    if position.step == PlanStep.LINES:
        return PlanPart.PROS
    value = position.data.get("part") if position.step == PlanStep.REWRITE else position.step
    try:
        part = PlanPart(str(value))
    except ValueError:
        return None
    return part if part in ASKS else None


def numbered(ctx: FlowContext, step: PlanStep, text: Msg | str) -> str:
    """A writing question with its place in the plan before it ("2 of 7.")."""
    words = ctx.text(text) if isinstance(text, Msg) else text
    return f"{ctx.text(PlanMsg.PLAN_STEP_OF, n=NUMBERS[step])} {words}"


def ask_at(ctx: FlowContext, position: FlowPosition) -> str:
    """The question of a text step: numbered while writing, bare while changing a part."""
    part = part_at(position)
    assert part is not None
    if position.step == PlanStep.REWRITE:
        return ctx.text(ASKS[part])
    if position.step == PlanStep.LINES:
        return numbered(ctx, PlanStep.PROS, ASKS[part])
    return numbered(ctx, PlanStep(position.step), ASKS[part])


# The parts each writing step fills: it is passed when continuing if one of them is held.
_FILLS: dict[PlanStep, frozenset[str]] = {
    **{PlanStep(part.value): frozenset({part.value}) for part in ASKS},
    PlanStep.LINES: frozenset({PlanPart.LINES.value, PlanPart.PROS.value}),
    PlanStep.PROS: frozenset({PlanPart.LINES.value, PlanPart.PROS.value}),
}
# Steps whose answer is the user's own writing: crisis words there are held to be saved.
HOLDS_CRISIS_TEXT = frozenset({*_FILLS, PlanStep.REWRITE, PlanStep.REASONS})


def answered(step: PlanStep, held: set[str]) -> bool:
    return step in _FILLS and bool(held & _FILLS[step])


def unfinished(held: set[str]) -> bool:
    """A plan with a part still to write (the reasons live in their own list)."""
    return bool(held) and any(not answered(step, held) for step in _FILLS)


async def held_parts(ctx: FlowContext) -> set[str]:
    """The parts the user's plan holds now."""
    user = await ctx.ensure_user()
    return {part.part for part in await safety_plans.read_plan(ctx.db, ctx.cipher, user.id)}


def section_at(position: FlowPosition) -> Section | None:
    return BY_KEY.get(str(position.data.get("section")))


def way_on(position: FlowPosition) -> Sequence[Sequence[Choice]]:
    if position.step == PlanStep.REWRITE:
        return (BACK,)
    return (NEXT,) if position.step == PlanStep.REASONS else (SKIP,)


def limit_at(position: FlowPosition) -> TextLimit:
    return TextLimit.REASON if position.step == PlanStep.REASONS else PART_LIMIT


def in_fives(numbers: list[Choice]) -> list[list[Choice]]:
    return [numbers[i : i + 5] for i in range(0, len(numbers), 5)]
