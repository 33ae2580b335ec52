"""Before /start, any message gets a short welcome that says how to begin, after the
safety screen as always: in English and Spanish, in the core, the console and on
Telegram."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bot.content_pack.ids import AnswersMsg, OnboardingMsg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.events import Address
from bot.engine.router import Router
from tests.helpers.console_chat import ConsoleUser
from tests.helpers.conversation import Conversation
from tests.helpers.telegram_world import TelegramWorld


@pytest.mark.parametrize("first", ["hi", "🙂", "hello?", "what is this", "?"])
async def test_a_first_message_gets_how_to_begin(
    chat: Conversation, text_of: Callable[..., str], first: str
) -> None:
    [reply] = await chat.send(first)
    assert reply.text == text_of(AnswersMsg.BEFORE_START)
    assert "/start" in reply.text
    assert reply.flat_buttons[0].label == text_of(AnswersMsg.BEFORE_START_BUTTON)
    await chat.send("begin")  # the button's label, typed
    assert text_of(OnboardingMsg.ASK_TIMEZONE) in chat.text


async def test_the_screen_still_comes_first(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    [reply] = await chat.send("i want to kill myself")
    assert reply.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert text_of(AnswersMsg.BEFORE_START) not in chat.text


async def test_in_spanish(router: Router, content: ContentPack) -> None:
    chat = Conversation(router, Address("console", "c1", "u1"), language_code="es-AR")
    [reply] = await chat.send("hola")
    assert reply.text == content.text("es", AnswersMsg.BEFORE_START)
    await chat.press(content.text("es", AnswersMsg.BEFORE_START_BUTTON))
    assert chat.text == content.text("es", OnboardingMsg.LANGUAGE_ASK)


async def test_in_the_console(router: Router, tmp_path: Path, text_of: Callable[..., str]) -> None:
    me = ConsoleUser(router, tmp_path)
    said = await me.types("hi")
    assert text_of(AnswersMsg.BEFORE_START) in said
    said = await me.presses(text_of(AnswersMsg.BEFORE_START_BUTTON))
    assert text_of(OnboardingMsg.ASK_TIMEZONE) in said


async def test_in_the_console_in_spanish(
    router: Router, tmp_path: Path, content: ContentPack
) -> None:
    me = ConsoleUser(router, tmp_path, language_code="es")
    said = await me.types("👋")
    assert content.text("es", AnswersMsg.BEFORE_START) in said


async def test_on_telegram(telegram: TelegramWorld, text_of: Callable[..., str]) -> None:
    await telegram.says(31, "hi")
    assert telegram.last_text(31) == text_of(AnswersMsg.BEFORE_START)
    await telegram.taps(31, text_of(AnswersMsg.BEFORE_START_BUTTON))
    assert text_of(OnboardingMsg.ASK_TIMEZONE) in telegram.last_text(31)


async def test_on_telegram_in_spanish(telegram: TelegramWorld, content: ContentPack) -> None:
    await telegram.says(32, "🙂", language_code="es")
    assert telegram.last_text(32) == content.text("es", AnswersMsg.BEFORE_START)
