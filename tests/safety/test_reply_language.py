"""A crisis is answered in the language it was written in, when the pack speaks it."""

from __future__ import annotations

from bot.content_pack.ids import Msg
from bot.content_pack.pack import ContentPack
from bot.safety.screen import SafetyScreen
from tests.helpers.conversation import Conversation


def intro_of(screen: SafetyScreen, text: str, locale: str) -> str:
    found = screen.screen(text, locale, "MX", is_group=False)
    assert found is not None, text
    return found.replies[0].text


def test_spanish_crisis_words_from_an_english_app_get_the_spanish_reply(
    content: ContentPack,
) -> None:
    screen = SafetyScreen(content)
    spanish = content.text("es", Msg.SAFETY_CRISIS_INTRO)
    assert intro_of(screen, "quiero morirme", "en").startswith(spanish)
    assert intro_of(screen, "ya no quiero vivir", "es").startswith(spanish)


def test_english_crisis_words_from_a_spanish_app_get_the_english_reply(
    content: ContentPack,
) -> None:
    english = content.text("en", Msg.SAFETY_CRISIS_INTRO)
    assert intro_of(SafetyScreen(content), "i want to die", "es").startswith(english)


def test_words_in_a_reply_language_get_the_reply_in_it(content: ContentPack) -> None:
    german = content.reply_languages["de"].text(Msg.SAFETY_CRISIS_INTRO)
    assert intro_of(SafetyScreen(content), "ich will nicht mehr leben", "en").startswith(german)
    assert intro_of(SafetyScreen(content), "ich will nicht mehr leben", "es").startswith(german)


async def test_in_a_conversation_the_spanish_crisis_reply_comes_first(
    chat: Conversation, content: ContentPack
) -> None:
    await chat.send("quiero morirme")
    assert chat.last[0].text.startswith(content.text("es", Msg.SAFETY_CRISIS_INTRO))
