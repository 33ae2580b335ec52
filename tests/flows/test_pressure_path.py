"""/contacted, "They promise, plead or threaten": threats to themselves and threats to the
reader are answered apart, each with a way on (no question without buttons), in English
and Spanish, in the core, the console and on Telegram."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bot.content_pack.ids import ContactedMsg, Msg, PauseMsg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.events import Address
from bot.engine.router import Router
from tests.helpers.console_chat import ConsoleUser
from tests.helpers.conversation import Conversation
from tests.helpers.telegram_world import TelegramWorld


async def in_london(chat: Conversation) -> None:
    for line in ("/start", "London", "yes", "8pm", "yes"):
        await chat.send(line)


async def test_a_threat_to_themselves_is_for_emergency_services_then_a_way_on(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await in_london(chat)
    await chat.send("/contacted")
    await chat.press(text_of(ContactedMsg.CT_PRESSURE))
    assert chat.text == text_of(ContactedMsg.CT_PRESSURE_WHICH)
    labels = [b.label for b in chat.last[-1].flat_buttons]
    assert labels == [
        text_of(m)
        for m in (ContactedMsg.CT_THREAT_SELF, ContactedMsg.CT_THREAT_ME, ContactedMsg.CT_PROMISE)
    ]
    await chat.press(text_of(ContactedMsg.CT_THREAT_SELF))
    assert "999 (United Kingdom)" in chat.last[0].text
    assert "you" not in chat.last[0].text.split("hurt")[0].split()[-1:]  # about them
    assert chat.last[-1].text == text_of(ContactedMsg.CT_WHAT_NOW)
    await chat.send("take a pause")  # typed, as the button says
    assert chat.last[-1].text == text_of(PauseMsg.PAUSE_MENU)


async def test_a_threat_to_the_reader_gets_the_danger_reply_and_its_tips(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await in_london(chat)
    await chat.send("/contacted")
    await chat.press(text_of(ContactedMsg.CT_PRESSURE))
    await chat.press(text_of(ContactedMsg.CT_THREAT_ME))
    texts = [reply.text for reply in chat.last]
    assert texts[0] == text_of(ContactedMsg.CT_THREAT_ME_REPLY)
    assert texts[1].startswith(text_of(SafetyMsg.SAFETY_DANGER_INTRO))
    assert "National Domestic Abuse Helpline" in texts[1]  # abuse lines first
    danger_labels = [b.label for b in chat.last[1].flat_buttons]
    assert text_of(SafetyMsg.SAFETY_CARD_BUTTON) in danger_labels
    assert text_of(SafetyMsg.SAFETY_MISREAD_BUTTON) not in danger_labels  # they chose this
    assert texts[-1] == text_of(ContactedMsg.CT_WHAT_NOW) and chat.last[-1].buttons
    await chat.send("privacy and safety tips")
    assert chat.last[0].text == text_of(SafetyMsg.SAFETY_CARD)
    await chat.press(text_of(ContactedMsg.CT_NEXT_DONE))
    assert chat.text == text_of(ContactedMsg.CT_DONE_REPLY)


@pytest.mark.parametrize(
    "pick", [ContactedMsg.CT_PROMISE, ContactedMsg.CT_THREAT_SELF, ContactedMsg.CT_THREAT_ME]
)
async def test_every_pressure_answer_ends_with_buttons(
    chat: Conversation, text_of: Callable[..., str], pick: Msg
) -> None:
    await chat.send("/contacted")
    await chat.press(text_of(ContactedMsg.CT_PRESSURE))
    await chat.press(text_of(pick))
    assert chat.last[-1].text == text_of(ContactedMsg.CT_WHAT_NOW)
    assert len(chat.last[-1].flat_buttons) == 3
    await chat.press(text_of(ContactedMsg.CT_NEXT_SOS))
    assert "https://findahelpline.com" in chat.text  # the helplines, as /sos shows them


async def test_in_spanish(router: Router, content: ContentPack) -> None:
    chat = Conversation(router, Address("console", "c1", "u1"), language_code="es")
    await chat.send("/contacto")
    await chat.press(content.text("es", ContactedMsg.CT_PRESSURE))
    assert chat.text == content.text("es", ContactedMsg.CT_PRESSURE_WHICH)
    await chat.press(content.text("es", ContactedMsg.CT_THREAT_ME))
    assert chat.last[1].text.startswith(content.text("es", SafetyMsg.SAFETY_DANGER_INTRO))
    assert chat.last[-1].text == content.text("es", ContactedMsg.CT_WHAT_NOW)
    await chat.send("nada por ahora")
    assert chat.text == content.text("es", ContactedMsg.CT_DONE_REPLY)


async def test_typed_in_words_the_screen_answers_first_and_the_question_stays(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    """ "they threaten me", typed, is danger words: the danger reply comes from the screen
    at once, and the question is shown again below it."""
    await chat.send("/contacted")
    await chat.press(text_of(ContactedMsg.CT_PRESSURE))
    await chat.send("they threaten me")
    assert chat.last[0].text.startswith(text_of(SafetyMsg.SAFETY_DANGER_INTRO))
    assert chat.last[-1].text.endswith(text_of(ContactedMsg.CT_PRESSURE_WHICH))


async def test_in_the_console(router: Router, tmp_path: Path, text_of: Callable[..., str]) -> None:
    me = ConsoleUser(router, tmp_path)
    for line in ("/start", "London", "yes", "8pm", "yes"):
        await me.types(line)
    await me.types("/contacted")
    await me.presses(text_of(ContactedMsg.CT_PRESSURE))
    said = await me.presses(text_of(ContactedMsg.CT_THREAT_ME))
    assert text_of(SafetyMsg.SAFETY_DANGER_INTRO) in said
    said = await me.presses(text_of(SafetyMsg.SAFETY_CARD_BUTTON))  # lettered, still on screen
    assert text_of(SafetyMsg.SAFETY_CARD) in said
    said = await me.presses(text_of(ContactedMsg.CT_NEXT_DONE))
    assert text_of(ContactedMsg.CT_DONE_REPLY) in said


async def test_on_telegram(telegram: TelegramWorld, text_of: Callable[..., str]) -> None:
    await telegram.says(41, "/contacted")
    await telegram.taps(41, text_of(ContactedMsg.CT_PRESSURE))
    await telegram.taps(41, text_of(ContactedMsg.CT_THREAT_SELF))
    last = telegram.bot_messages(41)[-1]
    assert last.text == text_of(ContactedMsg.CT_WHAT_NOW) and last.reply_markup is not None
    await telegram.taps(41, text_of(ContactedMsg.CT_NEXT_PAUSE))
    assert telegram.last_text(41) == text_of(PauseMsg.PAUSE_MENU)


async def test_on_telegram_in_spanish(telegram: TelegramWorld, content: ContentPack) -> None:
    await telegram.says(42, "/contacto", language_code="es")
    await telegram.taps(42, content.text("es", ContactedMsg.CT_PRESSURE))
    await telegram.says(42, "promete o suplica", language_code="es")
    texts = telegram.tg.sent_texts(42)
    assert content.text("es", ContactedMsg.CT_PROMISE_REPLY) in texts
    assert texts[-1] == content.text("es", ContactedMsg.CT_WHAT_NOW)
