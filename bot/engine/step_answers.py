"""Whether a message the learned stage alone raised to the check answers the open question.

The rules screen every message first and are never held back: what they answer (a crisis,
danger, softened words) goes out whatever the user was asked. The learned stage behind
them may raise what they leave alone to the short "are you safe?" check; on an answer to
the bot's own question ("8pm", "weekdays", "14 February", "Leeds", "3", a button's label
typed, a reason or a part of the plan the bot asked for) that check only interrupts the
question, and on such answers it misfires most: they are short, or about hard times
because the question is. So, for those messages only, the router asks here whether the
text answers what the user can see:

- a label of the buttons on screen (a crisis reply's, the check's own), typed;
- at an open step, a label of its buttons, typed; or the whole text as the step's own
  reader takes it (a time, days, quiet hours, a date, a number, a place); or, at a step
  that takes free words and has no reader (a plan's part, a reason, a note), any text.

The position is read only then (a model's check is rare), bounded in time; when it cannot
be read in time, the check is given.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from datetime import date

from bot.core.events import Event, TextMessage
from bot.engine.user_lookup import USER_LOOKUP_SECONDS
from bot.flows.base import Step
from bot.flows.checkin import CheckInStep
from bot.flows.context import FlowContext
from bot.flows.hard_dates import DatesStep
from bot.flows.names import FlowName
from bot.flows.on_screen import ButtonsOnScreen
from bot.flows.onboarding import OnboardingStep
from bot.flows.parsing.dates import read_date
from bot.flows.parsing.days import read_days
from bot.flows.parsing.times import TimeProblem, read_span, read_times
from bot.flows.pause_steps import PauseStep
from bot.flows.settings import SettingsStep
from bot.flows.time_question import time_and_days
from bot.flows.typed_labels import typed_choice
from bot.flows.zone_question import read_place
from bot.safety.screen import ScreenResult
from bot.storage.flow_positions import FlowPosition, get_position
from bot.storage.users import User

# A number, with at most a word after it: "3", "10 min", "3 días".
_NUMBER = re.compile(r"\s*\d{1,4}(?:\s*[^\W\d_]+)?\s*")

StepOf = Callable[[FlowPosition], Step | None]
Expired = Callable[[FlowContext, FlowPosition], bool]


async def checks_an_answer(
    ctx: FlowContext,
    user: User | None,
    event: Event,
    found: ScreenResult,
    step_of: StepOf,
    expired: Expired,
    on_screen: ButtonsOnScreen,
) -> bool:
    """Whether `found` is only the learned stage's check, on a typed message (not an edit:
    it answers no question) that answers the user's open question: then it is not sent."""
    model = found.detection.model
    if model is None or not model.raised:
        return False  # the rules' own reply, or none
    if not isinstance(event, TextMessage) or event.edited:
        return False
    services = ctx.services
    shown = (ctx.address, event.text, services.content, ctx.now(), services.step_expiry)
    if on_screen.typed(*shown) is not None or on_screen.answered(*shown) is not None:
        return True  # a label of a crisis reply's or a check's buttons, typed
    return await answers_open_question(ctx, user, event.text, step_of, expired)


async def answers_open_question(
    ctx: FlowContext, user: User | None, text: str, step_of: StepOf, expired: Expired
) -> bool:
    """Whether `text` is an answer to the question the user's open step asks (see above);
    False when there is no open step, it has expired, or the position cannot be read."""
    if user is None:
        return False
    # Bounded as the user's row is: the check waits no longer on the step than a crisis
    # reply may wait on the user.
    try:
        position = await asyncio.wait_for(get_position(ctx.db, user.id), USER_LOOKUP_SECONDS)
    except Exception:  # slow or failing: when in doubt, the check goes out
        return False
    if position is None or expired(ctx, position):
        return False
    step = step_of(position)
    if step is None or step.passes_text:
        return False
    if step.labels_typed and typed_choice(position, text, ctx.services.content) is not None:
        return True  # a label of the step's own buttons, typed
    key = (position.flow, position.step)
    if key in _PLACE_STEPS:
        return await read_place(ctx, text) is not None
    if key in _READERS:
        return reads_as_answer(position, text, ctx.locale, ctx.now().date())
    # Free words the step keeps as they are (a plan's part, a reason, a note): any text.
    return step.on_text is not None


def _times(text: str, locale: str, today: date) -> bool:
    """One time or a list of them ("7am, 1pm and 9pm"), a part of the day ("evening"), or
    days said with a time ("weekdays 8pm"), as the time questions read them."""
    reading, _ = time_and_days(text)
    if reading.value is not None or reading.problem is TimeProblem.PART_OF_DAY:
        return True
    readings, _ = read_times(text)
    return bool(readings) and all(reading.value for reading in readings)


def _days(text: str, locale: str, today: date) -> bool:
    return read_days(text) is not None


def _quiet_hours(text: str, locale: str, today: date) -> bool:
    return read_span(text).value is not None


def _number(text: str, locale: str, today: date) -> bool:
    return _NUMBER.fullmatch(text) is not None


def _date(text: str, locale: str, today: date) -> bool:
    found = read_date(text, locale, today)
    return bool(found.readings) or found.no_such_day is not None


# The steps that read a typed answer of their own, by flow and step, with the reader of
# what they take. A step's button labels (and a yes or a no where a button means it) are
# answers at every step; a step that takes free words (a note, a reason, a plan's part)
# is in no row here: whatever is written there is its answer.
_READERS: dict[tuple[str, str], Callable[[str, str, date], bool]] = {
    (FlowName.ONBOARDING, OnboardingStep.TIME): _times,
    (FlowName.SETTINGS, SettingsStep.TIMES): _times,
    (FlowName.SETTINGS, SettingsStep.DAYS): _days,
    (FlowName.SETTINGS, SettingsStep.QUIET): _quiet_hours,
    (FlowName.SETTINGS, SettingsStep.PAUSE): _number,  # days to pause check-ins
    (FlowName.PAUSE, PauseStep.WAIT): _number,  # minutes to wait
    (FlowName.CHECKIN, CheckInStep.MOOD): _number,  # 1 to 5
    (FlowName.CHECKIN, CheckInStep.URGE): _number,
    (FlowName.DATES, DatesStep.DATE): _date,
}


# The steps that ask where the user is: a place, read as they read it.
_PLACE_STEPS = frozenset(
    {(FlowName.ONBOARDING, OnboardingStep.TIMEZONE), (FlowName.SETTINGS, SettingsStep.TIMEZONE)}
)


def reads_as_answer(position: FlowPosition, text: str, locale: str, today: date) -> bool:
    """Whether the open step's own reader takes the whole of `text` as its answer."""
    reader = _READERS.get((position.flow, position.step))
    return reader is not None and reader(text, locale, today)
