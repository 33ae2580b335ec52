"""On Telegram (the real PTB against the fake Bot API, which refuses button data over 64
bytes), someone new writes a crisis in each language the screen reads, from a phone whose
language the bot may not speak: the first reply, in their language, has numbers to dial at
once and their country among the buttons; a tap shows that country's crisis line with the
emergency number; danger and /sos keep their order, in the same language. On Discord (the
real discord.py against the fake Discord), the same first message in a DM, whose presses
carry an English locale."""

from __future__ import annotations

import re

import pytest

from bot.adapters.discord.render import escape
from bot.content_pack.ids import SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.replies import Reply
from bot.flows.context import Services
from bot.safety.reply_words import words_for
from bot.storage.users import find_user
from tests.helpers.discord_world import ANA, DiscordWorld
from tests.helpers.language_samples import SAMPLES
from tests.helpers.reply_order import check_crisis, check_danger, check_sos, first_number_within
from tests.helpers.telegram_world import TelegramWorld
from tests.safety.test_reply_every_language import sample_for

CHAT = 5151


@pytest.mark.parametrize("language", sorted(SAMPLES))
async def test_a_first_message_in_each_language_on_telegram(
    telegram: TelegramWorld, content: ContentPack, services: Services, language: str
) -> None:
    sample = sample_for(content, language)
    words = words_for(content, language)
    assert words.language == language
    await telegram.says(CHAT, sample.crisis, language_code=sample.app)
    first = telegram.last_text(CHAT)
    assert first.startswith(words.text(SafetyMsg.SAFETY_CRISIS_INTRO)), first
    assert first_number_within(first, language), first
    assert words.text(SafetyMsg.SAFETY_WIDE_NUMBERS) in first
    # The country button, pressed as Telegram sends it back, answers in the language.
    await telegram.taps(CHAT, words.country_label(sample.country), language_code=sample.app)
    chosen = telegram.last_text(CHAT)
    check_crisis(content, Reply(text=chosen), sample.country, language)
    saved = words.text(SafetyMsg.SAFETY_COUNTRY_SAVED, country=words.country_label(sample.country))
    assert chosen.endswith(saved), chosen
    user = await find_user(services.db, "telegram", str(CHAT))
    assert user is not None and user.country == sample.country
    # Danger, now that the country is known: the emergency number, then an abuse line.
    await telegram.says(CHAT, sample.danger, language_code=sample.app)
    danger = telegram.last_text(CHAT)
    assert danger.startswith(words.text(SafetyMsg.SAFETY_DANGER_INTRO)), danger
    check_danger(content, Reply(text=danger), sample.country, language)
    # /sos with the words after it: a crisis line and an abuse line in its first three.
    await telegram.says(CHAT, f"/sos {sample.crisis}", language_code=sample.app)
    sos = telegram.last_text(CHAT)
    assert words.text(SafetyMsg.SAFETY_NOT_SURE) in sos
    check_sos(content, Reply(text=sos), sample.country, language)


def unescaped(text: str) -> str:
    """Discord text as the reply wrote it, before markdown was escaped."""
    return re.sub(r"\\([\\*_~`|>#-])", r"\1", text)


@pytest.mark.parametrize("language", sorted(SAMPLES))
async def test_a_first_message_in_each_language_on_discord(
    discord_world: DiscordWorld, content: ContentPack, services: Services, language: str
) -> None:
    sample = sample_for(content, language)
    words = words_for(content, language)
    await discord_world.says(ANA, sample.crisis)
    first = unescaped(discord_world.dm_texts(ANA)[-1])
    assert first.startswith(words.text(SafetyMsg.SAFETY_CRISIS_INTRO)), first
    assert first_number_within(first, language), first
    assert words.text(SafetyMsg.SAFETY_WIDE_NUMBERS) in first
    await discord_world.taps(ANA, escape(words.country_label(sample.country)))
    chosen = unescaped(discord_world.dm_texts(ANA)[-1])
    check_crisis(content, Reply(text=chosen), sample.country, language)
    user = await find_user(services.db, "discord", str(ANA))
    assert user is not None and user.country == sample.country
    await discord_world.says(ANA, sample.danger)
    danger = unescaped(discord_world.dm_texts(ANA)[-1])
    assert danger.startswith(words.text(SafetyMsg.SAFETY_DANGER_INTRO)), danger
    check_danger(content, Reply(text=danger), sample.country, language)
