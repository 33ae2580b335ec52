"""Which messages a step's own reader takes whole as its answer: only those are kept from
the learned stage's check, and only at the step that asks for them."""

from __future__ import annotations

from datetime import date

import pytest

from bot.engine.step_answers import reads_as_answer
from bot.flows.checkin import CheckInStep
from bot.flows.hard_dates import DatesStep
from bot.flows.names import FlowName
from bot.flows.onboarding import OnboardingStep
from bot.flows.settings import SettingsStep
from bot.storage.flow_positions import FlowPosition

TODAY = date(2026, 3, 2)
TIME = FlowPosition(FlowName.ONBOARDING, OnboardingStep.TIME, "t")
TIMES = FlowPosition(FlowName.SETTINGS, SettingsStep.TIMES, "t")
DAYS = FlowPosition(FlowName.SETTINGS, SettingsStep.DAYS, "t")
QUIET = FlowPosition(FlowName.SETTINGS, SettingsStep.QUIET, "t")
DATE = FlowPosition(FlowName.DATES, DatesStep.DATE, "t")
MOOD = FlowPosition(FlowName.CHECKIN, CheckInStep.MOOD, "t")
NOTE = FlowPosition(FlowName.CHECKIN, CheckInStep.NOTE, "t")
COUNTRY = FlowPosition(FlowName.ONBOARDING, OnboardingStep.COUNTRY, "t")


@pytest.mark.parametrize(
    ("position", "text", "locale"),
    [
        (TIME, "eight in the evening", "en"),
        (TIME, "weekdays 8pm", "en"),
        (TIME, "evening", "en"),
        (TIME, "a las ocho de la tarde", "es"),
        (TIMES, "7am, 1pm and 9pm", "en"),
        (DAYS, "mon wed fri", "en"),
        (DAYS, "de lunes a viernes", "es"),
        (QUIET, "from 11pm until 7am", "en"),
        (DATE, "14 February", "en"),
        (DATE, "el 3 de marzo", "es"),
        (MOOD, "4", "en"),
    ],
)
def test_the_steps_own_answer_is_read_whole(position: FlowPosition, text: str, locale: str) -> None:
    assert reads_as_answer(position, text, locale, TODAY)


@pytest.mark.parametrize(
    ("position", "text"),
    [
        (TIME, "i took all the pills at 8"),  # a time inside other words is no answer
        (TIME, "whenever suits"),
        (DAYS, "every day is the same and i cant go on"),
        (DATE, "the day he said he would kill me"),
        (MOOD, "4 and i want it all to stop"),
        (COUNTRY, "eight in the evening"),  # a time is no answer at another step
        (NOTE, "14 February"),  # a note has no reader: it takes free words
    ],
)
def test_anything_else_is_not_an_answer(position: FlowPosition, text: str) -> None:
    assert not reads_as_answer(position, text, "en", TODAY)
