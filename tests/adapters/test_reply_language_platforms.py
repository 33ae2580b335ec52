"""A crisis written in German gets the German reply on Telegram and Discord while the app
speaks English, and the buttons under it (a country, More helplines, the safety card, the
check's) answer in German too; the rest of the bot goes on in English."""

from __future__ import annotations

from collections.abc import Callable

from bot.adapters.discord.render import escape
from bot.content_pack.ids import GeneralMsg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.content_pack.reply_languages import ReplyLanguage
from bot.flows.context import Services
from bot.storage.users import find_user
from tests.helpers.discord_world import ANA, DiscordWorld
from tests.helpers.telegram_world import TelegramWorld

CHAT = 4242
CRISIS = "ich will nicht mehr leben"
DANGER = "er schlägt mich"
CHECK = "ich wollte mich nie umbringen"


def german(content: ContentPack) -> ReplyLanguage:
    return content.reply_languages["de"]


async def test_telegram_a_german_crisis_from_an_english_app(
    telegram: TelegramWorld, content: ContentPack, services: Services
) -> None:
    de = german(content)
    await telegram.says(CHAT, CRISIS, language_code="en")
    first = telegram.last_text(CHAT)
    assert first.startswith(de.text(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert de.text(SafetyMsg.SAFETY_NO_COUNTRY) in first and "112" in first
    # Country buttons from the language written (Germany...) and the app's (the UK...).
    await telegram.taps(CHAT, "Vereinigtes Königreich")
    chosen = telegram.last_text(CHAT)
    assert "Samaritans: Telefon 116 123, kostenlos (rund um die Uhr)" in chosen
    assert de.text(SafetyMsg.SAFETY_COUNTRY_SAVED, country="Vereinigtes Königreich") in chosen
    user = await find_user(services.db, "telegram", str(CHAT))
    assert user is not None and user.country == "GB" and user.locale == "en"
    await telegram.taps(CHAT, de.text(SafetyMsg.SAFETY_MORE_BUTTON))
    more = telegram.last_text(CHAT)
    assert more.startswith(de.text(SafetyMsg.SAFETY_MORE_INTRO, country="Vereinigtes Königreich"))
    assert "0808 802 1414 (rund um die Uhr)" in more  # Northern Ireland's line
    assert "findahelpline.com" in more
    # Danger in German now that the country is known: 999 first, then an abuse line.
    await telegram.says(CHAT, DANGER, language_code="en")
    danger = telegram.last_text(CHAT)
    assert danger.startswith(de.text(SafetyMsg.SAFETY_DANGER_INTRO))
    assert "ruf 999 an (Vereinigtes Königreich)" in danger
    assert danger.index("999") < danger.index("National Domestic Abuse Helpline")
    await telegram.taps(CHAT, de.text(SafetyMsg.SAFETY_CARD_BUTTON))
    assert telegram.last_text(CHAT) == de.text(SafetyMsg.SAFETY_CARD)


async def test_telegram_the_german_check_and_its_buttons(
    telegram: TelegramWorld, content: ContentPack, text_of: Callable[..., str]
) -> None:
    de = german(content)
    await telegram.says(CHAT, CHECK, language_code="en")
    assert telegram.last_text(CHAT) == de.text(SafetyMsg.SAFETY_CHECK)
    await telegram.taps(CHAT, de.text(SafetyMsg.SAFETY_CHECK_SAFE_BUTTON))
    assert telegram.last_text(CHAT) == de.text(SafetyMsg.SAFETY_CHECK_SAFE_REPLY)
    await telegram.says(CHAT, CHECK, language_code="en")
    await telegram.taps(CHAT, de.text(SafetyMsg.SAFETY_CHECK_HELP_BUTTON))
    assert telegram.last_text(CHAT).startswith(de.text(SafetyMsg.SAFETY_CRISIS_INTRO))
    # The rest of the bot still speaks the app's language.
    await telegram.says(CHAT, "/help", language_code="en")
    assert text_of(GeneralMsg.HELP_INTRO) in telegram.last_text(CHAT)


async def test_telegram_sos_in_german_from_a_german_phone_and_from_words(
    telegram: TelegramWorld, content: ContentPack
) -> None:
    de = german(content)
    # A phone set to German on a bot that speaks English and Spanish: /sos in German.
    await telegram.says(CHAT, "/sos", language_code="de")
    assert de.text(SafetyMsg.SAFETY_NO_COUNTRY) in telegram.last_text(CHAT)
    # An English phone, German words after /sos: German too.
    await telegram.says(CHAT + 1, "/sos ich kann nicht mehr", language_code="en")
    assert de.text(SafetyMsg.SAFETY_NO_COUNTRY) in telegram.last_text(CHAT + 1)


async def test_discord_a_german_crisis_in_a_dm(
    discord_world: DiscordWorld, content: ContentPack, services: Services
) -> None:
    de = german(content)
    await discord_world.says(ANA, CRISIS)
    first = discord_world.dm_texts(ANA)[-1]
    assert first.startswith(escape(de.text(SafetyMsg.SAFETY_CRISIS_INTRO)))
    # The buttons are pressed through interactions whose locale is English.
    await discord_world.taps(ANA, "Deutschland")
    assert "TelefonSeelsorge: Telefon 0800 111 0 111" in discord_world.dm_texts(ANA)[-1]
    user = await find_user(services.db, "discord", str(ANA))
    assert user is not None and user.country == "DE"
    # Germany's three lines are all in sight: More helplines holds the world directory.
    await discord_world.taps(ANA, de.text(SafetyMsg.SAFETY_MORE_BUTTON))
    directory = content.crisis("en").fallback.directory
    more = de.text(SafetyMsg.SAFETY_DIRECTORY, name=directory.name, url=directory.url)
    assert discord_world.dm_texts(ANA)[-1] == escape(more)
    await discord_world.taps(ANA, de.text(SafetyMsg.SAFETY_MISREAD_BUTTON))
    assert discord_world.dm_texts(ANA)[-1] == escape(de.text(SafetyMsg.SAFETY_MISREAD_REPLY))
