"""The learned stage raises checks in the running bot by default, and never over a short
answer to the bot's own question: a time, days, quiet hours, a yes typed at its step go
to the step; wording no rule reads still gets the check; the rules' crisis reply comes
first wherever the user is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import AnswersMsg, OnboardingMsg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.engine.router import Router
from bot.flows.context import Services
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen
from bot.storage.checkin_slots import list_slots
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation
from tests.helpers.learned_models import write_model

# Answers to the time question as people type them; the first three the shipped model
# raised to the check before it learned short answers ("eight in the evening" among them).
TIMES = [
    ("eight in the evening", "20:00"),
    ("half past seven in the morning", "07:30"),
    ("at midnight please", "00:00"),
    ("around 9pm", "21:00"),
]


def checks(replies: list[Reply], text_of: Callable[..., str]) -> list[Reply]:
    return [reply for reply in replies if reply.text == text_of(SafetyMsg.SAFETY_CHECK)]


async def slots_of(services: Services) -> list[str]:
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    return [slot.local_time for slot in await list_slots(services.db, user.id)]


def test_raising_is_on_unless_the_operator_turns_it_off(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert settings.safety_model_raises
    monkeypatch.setenv("STEADY_SAFETY_MODEL_RAISES", "false")
    assert not Settings(_env_file=None).safety_model_raises


@pytest.mark.parametrize(("typed", "value"), TIMES)
async def test_a_time_typed_at_the_time_question_is_saved_not_checked(
    settings: Settings,
    clock: ManualClock,
    content: ContentPack,
    text_of: Callable[..., str],
    typed: str,
    value: str,
) -> None:
    """The shipped model, raising as it does by default."""
    async with open_services(settings, clock, content) as services:
        chat = Conversation(Router(services), Address("console", "c1", "u1"))
        await chat.send("/start")
        await chat.send("Berlin")
        await chat.send("yes")
        replies = await chat.send(typed)
        assert not checks(replies, text_of)
        assert await slots_of(services) == [value]


@pytest.mark.parametrize(
    ("typed", "value"),
    [("a las ocho de la tarde", "20:00"), ("sobre las 9 de la noche", "21:00")],
)
async def test_a_time_typed_in_spanish_is_saved_not_checked(
    settings: Settings,
    clock: ManualClock,
    content: ContentPack,
    text_of: Callable[..., str],
    typed: str,
    value: str,
) -> None:
    async with open_services(settings, clock, content) as services:
        address = Address("console", "c1", "u1")
        chat = Conversation(Router(services), address, language_code="es")
        said: list[Reply] = []
        said += await chat.send("/start")
        said += await chat.send("Español")
        said += await chat.send("vivo en Madrid")
        said += await chat.send("sí")
        said += await chat.send(typed)
        assert not checks(said, text_of) and not [
            reply for reply in said if reply.text == content.text("es", SafetyMsg.SAFETY_CHECK)
        ]
        assert await slots_of(services) == [value]


async def test_short_answers_across_the_steps_are_never_interrupted(
    settings: Settings, clock: ManualClock, content: ContentPack, text_of: Callable[..., str]
) -> None:
    """Onboarding, then the settings' times, days and quiet hours, a yes, a time the
    reader does not take: each answered by its step, none by the check."""
    async with open_services(settings, clock, content) as services:
        chat = Conversation(Router(services), Address("console", "c1", "u1"))
        said: list[Reply] = []
        said += await chat.send("/start")
        said += await chat.send("Berlin")
        said += await chat.send("yes")
        said += await chat.send("whenever suits")  # not a time: asked again, not checked
        assert chat.text == text_of(AnswersMsg.TIME_NOT_READ)
        said += await chat.send("eight in the evening")
        said += await chat.send("/settings")
        said += await chat.press("Check-in times")
        said += await chat.send("7am, 1pm and 9pm")
        assert await slots_of(services) == ["07:00", "13:00", "21:00"]
        said += await chat.send("/settings")
        said += await chat.press("Quiet hours")
        said += await chat.send("from 11pm until 7am")
        user = await find_user(services.db, "console", "u1")
        assert user is not None and user.quiet_hours is not None
        assert not checks(said, text_of)


async def test_with_a_model_that_raises_everything_an_answer_still_goes_to_its_step(
    settings: Settings,
    clock: ManualClock,
    content: ContentPack,
    tmp_path: Path,
    text_of: Callable[..., str],
) -> None:
    """A model that scores every text high: where the user's open step reads the whole
    message as its answer, the model's check is not sent; anything else typed there, or
    the same words with no question open, gets it; a crisis gets the rules' full reply."""
    write_model(tmp_path / "pack", safety_bias=6.0)
    pack = replace(content, folder=tmp_path / "pack")
    async with open_services(settings, clock, pack) as services:
        chat = Conversation(Router(services), Address("console", "c1", "u1"))
        await chat.send("/start")
        await chat.send("Europe/Berlin")
        await chat.press(text_of(OnboardingMsg.TIMEZONE_YES))
        # At the time step, words that are no time: the check, then the question again.
        [checked, *again] = await chat.send("the kettle is on")
        assert checked.text == text_of(SafetyMsg.SAFETY_CHECK) and again
        [crisis, *_] = await chat.send("i want to kill myself")
        assert crisis.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
        answered = await chat.send("eight in the evening")
        assert not checks(answered, text_of)
        assert await slots_of(services) == ["20:00"]
        # The time question answered: the same words are the model's to raise again.
        [raised, *_] = await chat.send("eight in the evening")
        assert raised.text == text_of(SafetyMsg.SAFETY_CHECK)


async def test_wording_no_rule_reads_gets_the_check_by_default(
    settings: Settings, clock: ManualClock, content: ContentPack, text_of: Callable[..., str]
) -> None:
    """Mid-conversation too: at the time question, words that are no answer and that the
    shipped model reads as crisis wording get the check, then the question again."""
    text = "honestly i would not mind at all if i just didnt open my eyes tomorrow morning"
    rules = SafetyScreen(content).detector("en").detect(text).reply
    assert rules in (ReplyLevel.NONE, ReplyLevel.URGE, ReplyLevel.CONTACTED)
    async with open_services(settings, clock, content) as services:
        chat = Conversation(Router(services), Address("console", "c1", "u1"))
        await chat.send("/start")
        await chat.send("Berlin")
        await chat.send("yes")
        replies = await chat.send(text)
    assert replies[0].text == text_of(SafetyMsg.SAFETY_CHECK)
