"""Asking for a time of day, for onboarding and settings: a refusal that names the real
problem, a part of the day ("evening") answered with its times as buttons, and days said
with the time ("weekdays 8pm") read as days too."""

from __future__ import annotations

from bot.content_pack.ids import AnswersMsg, Msg, OnboardingMsg
from bot.core.replies import Reply
from bot.flows.context import Choice, FlowContext, Next
from bot.flows.parsing.days import read_days
from bot.flows.parsing.spoken_times import PART_TIMES, DayPart
from bot.flows.parsing.times import TimeProblem, TimeReading, read_time
from bot.flows.validation import both_forms

_REFUSALS: dict[TimeProblem, Msg] = {
    TimeProblem.TWELVE_HOUR: OnboardingMsg.BAD_TIME_12H,
    TimeProblem.DAY_RANGE: OnboardingMsg.BAD_TIME,
    TimeProblem.MINUTES: AnswersMsg.TIME_BAD_MINUTES,
}
_PER_ROW = 2


def refusal(ctx: FlowContext, reading: TimeReading) -> Reply:
    """What is wrong with a time that is not one, said as it is."""
    return ctx.reply(
        _REFUSALS.get(reading.problem or TimeProblem.NOT_A_TIME, AnswersMsg.TIME_NOT_READ)
    )


def part_of_day(ctx: FlowContext, step: str, part: DayPart) -> Next:
    """ "Evening": its times to tap, each shown both ways; another can still be typed."""
    choices = [Choice(value, both_forms(ctx, value)) for value in PART_TIMES[part]]
    rows = [choices[i : i + _PER_ROW] for i in range(0, len(choices), _PER_ROW)]
    return Next(step, question=AnswersMsg.TIMES_PICK, rows=rows)


def picked_time(value: str) -> str | None:
    """A time button's value, checked (a forged press carries anything)."""
    reading = read_time(value)
    return value if reading.value == value else None


def time_and_days(text: str) -> tuple[TimeReading, frozenset[int] | None]:
    """ "weekdays 8pm", "8pm on weekdays", "lunes a viernes a las 8": the time, and the
    days said with it (None when none were)."""
    whole = read_time(text)
    if whole.value is not None or whole.problem is TimeProblem.PART_OF_DAY:
        return whole, None
    words = text.split()
    for cut in range(1, len(words)):
        for days_text, time_text in (
            (" ".join(words[:cut]), " ".join(words[cut:])),
            (" ".join(words[cut:]), " ".join(words[:cut])),
        ):
            days = read_days(days_text)
            reading = read_time(time_text)
            if days is not None and reading.value is not None:
                return reading, days
    return whole, None
