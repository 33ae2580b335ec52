"""The pause's exercises: a breathing rhythm or a grounding exercise picked from the pack,
the breathing shown live, the grounding one step at a time, then another or back.

The handlers here answer buttons the table in `bot.flows.pause` declares; the breathing's
words are `bot.flows.pause_breathing`'s.
"""

from __future__ import annotations

from bot.content_pack.ids import PauseMsg
from bot.content_pack.schema import Exercise
from bot.core.replies import Reply
from bot.flows.base import Flow
from bot.flows.context import NOT_A_CHOICE, Choice, FlowContext, Next, Outcome
from bot.flows.pause_breathing import breathing_frames, breathing_text
from bot.flows.pause_steps import AFTER, BACK_ROW, PauseStep
from bot.storage.flow_positions import FlowData, FlowPosition


class PauseExercises:
    """The exercises of the `Pause` flow, which shows the breathing's buttons itself."""

    def __init__(self, flow: Flow) -> None:
        self._flow = flow

    async def breathing(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return _pick(ctx, PauseStep.BPICK, "breathing")

    async def grounding(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return _pick(ctx, PauseStep.GPICK, "grounding")

    async def breathe(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        exercise = _exercise(ctx, value, "breathing")
        if exercise is None:
            return NOT_A_CHOICE
        # Shown by hand: the reply carries the breathing frames as well as the buttons.
        buttons = await self._flow.show(ctx, PauseStep.AFTER, AFTER, {"again": PauseStep.BPICK})
        return [
            Reply(
                text=breathing_text(ctx, exercise),
                frames=breathing_frames(ctx, exercise),
                buttons=buttons,
            )
        ]

    async def ground(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        exercise = _exercise(ctx, value, "grounding")
        if exercise is None:
            return NOT_A_CHOICE
        first = _step_text(ctx, exercise, 0)
        data: FlowData = {"exercise": int(value), "step": 0}
        return Next(PauseStep.GSTEP, data, question=f"{exercise.intro}\n\n{first}")

    async def ground_step(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        index, step = position.data.get("exercise"), position.data.get("step")
        exercises = ctx.services.content.exercises(ctx.locale)
        if not isinstance(index, int) or not isinstance(step, int):
            return NOT_A_CHOICE
        exercise = exercises[index]
        if step + 1 < len(exercise.steps):
            data: FlowData = {"exercise": index, "step": step + 1}
            return Next(PauseStep.GSTEP, data, question=_step_text(ctx, exercise, step + 1))
        text = f"{exercise.closing}\n\n{ctx.text(PauseMsg.PAUSE_AFTER_EXERCISE)}"
        return Next(PauseStep.AFTER, {"again": PauseStep.GPICK}, question=text)

    async def again(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """Another exercise of the kind just done."""
        if position.data.get("again") == PauseStep.GPICK:
            return _pick(ctx, PauseStep.GPICK, "grounding")
        return _pick(ctx, PauseStep.BPICK, "breathing")


def _pick(ctx: FlowContext, step: PauseStep, kind: str) -> Next:
    choices = [
        Choice(str(index), exercise.title)
        for index, exercise in enumerate(ctx.services.content.exercises(ctx.locale))
        if exercise.kind == kind
    ]
    rows = [choices[i : i + 2] for i in range(0, len(choices), 2)]
    return Next(step, question=PauseMsg.PAUSE_PICK, rows=(*rows, *BACK_ROW))


def _exercise(ctx: FlowContext, value: str, kind: str) -> Exercise | None:
    exercises = ctx.services.content.exercises(ctx.locale)
    index = int(value) if value.isascii() and value.isdigit() else -1
    if 0 <= index < len(exercises) and exercises[index].kind == kind:
        return exercises[index]
    return None


def _step_text(ctx: FlowContext, exercise: Exercise, step: int) -> str:
    return ctx.text(
        PauseMsg.EXERCISE_STEP,
        number=step + 1,
        total=len(exercise.steps),
        text=exercise.steps[step],
    )
