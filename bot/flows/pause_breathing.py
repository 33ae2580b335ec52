"""A breathing exercise from the pack, put into words: as frames shown live one after
another ("Breathe in · 4"), and as one message for platforms that cannot edit a message.

The pause's exercises (`bot.flows.pause_exercises`) send them; the pace and rounds are
the pack's (`Exercise`).
"""

from __future__ import annotations

from bot.content_pack.ids import PauseMsg
from bot.content_pack.schema import Exercise
from bot.core.replies import Frame
from bot.flows.context import FlowContext

BREATH_WORDS = {"in": PauseMsg.BREATH_IN, "hold": PauseMsg.BREATH_HOLD, "out": PauseMsg.BREATH_OUT}
# In running text each phase has its own words ("breathe in for 4 seconds"), so a
# capitalised frame label never lands mid-sentence.
BREATH_STEPS = {
    "in": PauseMsg.BREATH_STEP_IN,
    "hold": PauseMsg.BREATH_STEP_HOLD,
    "out": PauseMsg.BREATH_STEP_OUT,
}


def breathing_frames(ctx: FlowContext, exercise: Exercise) -> tuple[Frame, ...]:
    """One frame per phase per round: "Breathe in · 4" and so on, each shown for its seconds."""
    frames = []
    for round_number in range(1, exercise.rounds + 1):
        for phase in exercise.pace:
            text = ctx.text(
                PauseMsg.BREATH_FRAME,
                phase=ctx.text(BREATH_WORDS[phase.phase]),
                seconds=phase.seconds,
                round=round_number,
                rounds=exercise.rounds,
            )
            frames.append(Frame(text, phase.seconds))
    return tuple(frames)


def breathing_text(ctx: FlowContext, exercise: Exercise) -> str:
    """The same exercise as one message, for platforms that cannot edit a message live."""
    one_breath = ", ".join(
        ctx.text(BREATH_STEPS[phase.phase], seconds=phase.seconds) for phase in exercise.pace
    )
    sequence = ctx.text(PauseMsg.BREATH_SEQUENCE, breath=one_breath, rounds=exercise.rounds)
    return f"{exercise.intro}\n\n{sequence}\n\n{exercise.closing}"
