"""The order of a crisis reply, for every country there is: a number to dial within the
first 25 words; a crisis names a 24/7 crisis line and the emergency number together in its
first two lines; danger puts the emergency number first and an abuse line next; /sos shows
a crisis line and an abuse line among its first three lines. For every country, in English,
Spanish and every other language a reply is written in."""

from __future__ import annotations

import pytest

from bot.content_pack.countries import country_names
from bot.content_pack.pack import ContentPack
from bot.safety.screen import SafetyScreen
from tests.helpers.reply_order import (
    check_buttons,
    check_crisis,
    check_danger,
    check_sos,
    first_number_within,
)


@pytest.fixture(scope="module")
def safety(content: ContentPack) -> SafetyScreen:
    return SafetyScreen(content)


@pytest.mark.parametrize("locale", ["en", "es"])
def test_every_country_in_english_and_spanish(
    content: ContentPack, safety: SafetyScreen, locale: str
) -> None:
    for code in country_names():
        check_crisis(content, safety.full_reply(locale, code, danger_first=False), code, locale)
        check_danger(content, safety.full_reply(locale, code, danger_first=True), code, locale)
        [sos] = safety.sos_replies(locale, code, is_group=False)
        check_sos(content, sos, code, locale)


def test_every_country_in_every_reply_language(content: ContentPack, safety: SafetyScreen) -> None:
    assert content.reply_languages
    for language in sorted(content.reply_languages):
        for code in country_names():
            crisis = safety.full_reply("en", code, danger_first=False, language=language)
            check_crisis(content, crisis, code, language)
            danger = safety.full_reply("en", code, danger_first=True, language=language)
            check_danger(content, danger, code, language)
            [sos] = safety.sos_replies("en", code, is_group=False, language=language)
            check_sos(content, sos, code, language)


@pytest.mark.parametrize("language", ["en", "es", "de"])
def test_an_unknown_country_gets_numbers_at_once(
    content: ContentPack, safety: SafetyScreen, language: str
) -> None:
    for timezone in (None, "Europe/Berlin", "America/Bogota", "Asia/Kolkata", "Etc/UTC"):
        reply = safety.full_reply("en", None, danger_first=False, language=language)
        if timezone is not None:
            reply = safety.resources_reply("en", None, timezone=timezone, language=language)
        check_buttons(reply)
        assert first_number_within(reply.text, language), (language, timezone)
        assert "112" in reply.text and "911" in reply.text
