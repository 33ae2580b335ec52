"""Typed answers on Telegram, through the real PTB and the fake Bot API: a yes or a no is
never a country or a zone, a crisis reply's countries and buttons take typed answers,
and a refusal shows its buttons again (English and Spanish)."""

from __future__ import annotations

from collections.abc import Callable

from bot.content_pack.ids import AnswersMsg, CheckinMsg, GeneralMsg, OnboardingMsg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.flows.context import Services
from bot.storage.users import find_user
from tests.helpers.telegram_world import TelegramWorld

ANA = 2501


def texts_since(world: TelegramWorld, chat: int, before: int) -> str:
    return "\n".join(world.tg.sent_texts(chat)[before:])


async def taps_starting(world: TelegramWorld, chat: int, start: str) -> None:
    """Tap the newest button whose label starts so (a place's button shows its time)."""
    for message in reversed(world.bot_messages(chat)):
        for row in (message.reply_markup or {}).get("inline_keyboard", []):
            for button in row:
                if button["text"].startswith(start):
                    await world.taps(chat, button["text"])
                    return
    raise AssertionError(f"no button starting {start!r}")


async def test_no_is_not_norway_and_sos_says_so(
    telegram: TelegramWorld, services: Services, text_of: Callable[..., str]
) -> None:
    for line in ("/start", "Berlin", "yes", "8pm"):
        await telegram.says(ANA, line)
    await telegram.says(ANA, "no")
    assert telegram.last_text(ANA) == text_of(OnboardingMsg.ASK_COUNTRY)
    await telegram.says(ANA, "Germany")
    user = await find_user(services.db, "telegram", str(ANA))
    assert user is not None and user.country == "DE"
    await telegram.says(ANA, "/sos")
    assert "Germany" in telegram.last_text(ANA) or "Germany" in "\n".join(
        telegram.tg.sent_texts(ANA)[-3:]
    )
    assert all("Norway" not in text for text in telegram.tg.sent_texts(ANA))


async def test_si_is_not_slovenia_in_spanish(
    telegram: TelegramWorld, services: Services, content: ContentPack
) -> None:
    await telegram.says(ANA, "/start", language_code="es")
    await telegram.taps(ANA, "Español")
    await telegram.says(ANA, "México", language_code="es")
    await telegram.says(ANA, "sí", language_code="es")
    assert telegram.last_text(ANA) == content.text("es", AnswersMsg.NOT_A_PLACE)
    await taps_starting(telegram, ANA, "Ciudad de México")
    await telegram.says(ANA, "sí", language_code="es")
    await telegram.says(ANA, "20:00", language_code="es")
    await telegram.says(ANA, "sí", language_code="es")
    user = await find_user(services.db, "telegram", str(ANA))
    assert user is not None and (user.timezone, user.country) == ("America/Mexico_City", "MX")


async def test_a_country_typed_at_the_crisis_picker(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await telegram.says(ANA, "i want to kill myself")
    assert text_of(SafetyMsg.SAFETY_NO_COUNTRY) in "\n".join(telegram.tg.sent_texts(ANA))
    before = len(telegram.tg.sent_texts(ANA))
    await telegram.says(ANA, "United Kingdom")
    said = texts_since(telegram, ANA, before)
    assert "999" in said and text_of(GeneralMsg.UNEXPECTED_TEXT) not in said


async def test_a_country_typed_at_the_crisis_picker_in_spanish(
    telegram: TelegramWorld, content: ContentPack
) -> None:
    await telegram.says(ANA, "quiero morirme", language_code="es")
    before = len(telegram.tg.sent_texts(ANA))
    await telegram.says(ANA, "España", language_code="es")
    said = texts_since(telegram, ANA, before)
    assert "112" in said and content.country_in_sentence("es", "ES") in said


async def test_a_refusal_shows_the_buttons_again(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await telegram.says(ANA, "/checkin")
    await telegram.says(ANA, "great")
    last = telegram.bot_messages(ANA)[-1]
    assert last.text == text_of(AnswersMsg.USE_BUTTONS_BELOW)
    labels = [b["text"] for row in (last.reply_markup or {})["inline_keyboard"] for b in row]
    assert text_of(CheckinMsg.MOOD_4) in labels
    await telegram.taps(ANA, text_of(CheckinMsg.MOOD_4))  # the new message's own button works
    assert telegram.last_text(ANA) != text_of(GeneralMsg.BUTTON_EXPIRED)
