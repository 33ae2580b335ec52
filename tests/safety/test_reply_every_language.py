"""A person who writes in any language the screen reads is answered in that language, from
an app set to English: the crisis reply with a 24/7 crisis line and the emergency number
in its first two lines, the danger reply with the emergency number first and an abuse line
next, the check and its buttons, /sos with a crisis line and an abuse line in its first
three lines, the buttons under each answering in the same language. With no country
known, numbers to dial at once: the likeliest countries' from the time zone and the app's
language, then the numbers that work widely, with country buttons below."""

from __future__ import annotations

import unicodedata

import pytest

from bot.content_pack.ids import SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.replies import Reply
from bot.safety.buttons import SOS_CARD, SOS_MORE, untagged
from bot.safety.crisis_reply import Whereabouts
from bot.safety.reply_words import ReplyWords, words_for
from bot.safety.rules import ReplyLevel
from bot.safety.screen import CHECK_HELP, CHECK_HELP_DANGER, CHECK_SAFE, SafetyScreen
from tests.helpers.language_samples import SAMPLES, Sample
from tests.helpers.reply_order import (
    check_buttons,
    check_crisis,
    check_danger,
    check_sos,
    emergency_numbers,
    first_number_within,
    has_number,
    lines_of,
)

APP_LOCALE = "en"  # the bot speaks the app's language, English, for everything else


@pytest.fixture(scope="module")
def safety(content: ContentPack) -> SafetyScreen:
    return SafetyScreen(content)


def screened(content: ContentPack) -> set[str]:
    """The languages the screen has rules for."""
    return {file.locale for file in content.languages} | set(content.locales)


def script_of(text: str) -> str:
    """The script of a text's first letter ("LATIN", "DEVANAGARI", "CJK" ...)."""
    letter = next(char for char in text if char.isalpha())
    return unicodedata.name(letter).split()[0]


def reads_script(content: ContentPack, language: str, script: str) -> bool:
    """Whether the language's rules hold letters of this script (English's, a locale's
    own, are always read)."""
    if language in content.locales:
        return True
    patterns = "".join(
        rule.pattern for file in content.languages if file.locale == language for rule in file.rules
    )
    return any(char.isalpha() and script_of(char) == script for char in patterns)


def sample_for(content: ContentPack, language: str) -> Sample:
    """The sample, once the screen has rules for its language in its script (rules
    arrive apart from the replies; until then, nothing here can be answered)."""
    sample = SAMPLES[language]
    ruled = sample.rule_language(language)
    script = script_of(sample.crisis)
    if not reads_script(content, ruled, script):
        pytest.skip(f"the screen has no rules in {ruled} written in {script} letters yet")
    return sample


def words_of(content: ContentPack, language: str) -> ReplyWords:
    words = words_for(content, language)
    assert words.language == language, f"no complete crisis reply in {language}"
    return words


def answered(
    safety: SafetyScreen, text: str, country: str | None, app: str, level: ReplyLevel
) -> Reply:
    found = safety.screen(text, APP_LOCALE, country, is_group=False, where=Whereabouts(None, app))
    assert found is not None, text
    assert found.detection.reply is level, (text, found.detection.reply)
    [reply] = found.replies
    return reply


def check_tags(reply: Reply, language: str) -> list[str]:
    """Every button answers in the reply's language (no tag: the user's own locale), and
    the data without tags."""
    expected = None if language == APP_LOCALE else language
    plain = []
    for button in reply.flat_buttons:
        data, tag = untagged(button.data)
        assert tag == expected, (language, button.data)
        plain.append(data)
    return plain


def test_every_language_the_screen_reads_has_a_sample(content: ContentPack) -> None:
    languages = screened(content) | set(content.reply_languages)
    assert sorted(languages - set(SAMPLES)) == []
    for language, sample in SAMPLES.items():
        assert sample.country in content.emergency, language
        # The rest of the tests need each sample's language to speak a whole reply.
        words_of(content, language)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_a_crisis_is_answered_in_its_language_with_the_crisis_line_first(
    content: ContentPack, safety: SafetyScreen, language: str
) -> None:
    sample = sample_for(content, language)
    words = words_of(content, language)
    reply = answered(safety, sample.crisis, sample.country, sample.app, ReplyLevel.CRISIS)
    assert reply.text.startswith(words.text(SafetyMsg.SAFETY_CRISIS_INTRO)), (language, reply.text)
    check_crisis(content, reply, sample.country, language)
    assert words.text(SafetyMsg.SAFETY_HOPE_CRISIS) in reply.text
    plain = check_tags(reply, language)
    # The world's directory is behind More helplines, which answers in the same language;
    # where the country has no line beyond the emergency number, it is in the reply.
    directory = words.ltr(content.crisis(content.default_locale).fallback.directory.url)
    more = [data for data in plain if data.startswith(SOS_MORE)]
    if not more:
        assert directory in reply.text
        return
    assert directory not in reply.text
    tag = None if language == APP_LOCALE else language
    [shown] = safety.pressed(more[0], APP_LOCALE, sample.country, False, language=tag) or []
    assert directory in shown.text
    assert words.text(SafetyMsg.SAFETY_NOT_SURE) not in shown.text  # the list, not the reply again


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_danger_is_answered_in_its_language_with_the_emergency_number_first(
    content: ContentPack, safety: SafetyScreen, language: str
) -> None:
    sample = sample_for(content, language)
    words = words_of(content, language)
    reply = answered(safety, sample.danger, sample.country, sample.app, ReplyLevel.DANGER)
    assert reply.text.startswith(words.text(SafetyMsg.SAFETY_DANGER_INTRO)), (language, reply.text)
    check_danger(content, reply, sample.country, language)
    second = lines_of(reply)[1]
    assert any(has_number(second, n) for n in emergency_numbers(content, sample.country))
    plain = check_tags(reply, language)
    tag = None if language == APP_LOCALE else language
    [card] = safety.pressed(SOS_CARD, APP_LOCALE, sample.country, False, language=tag) or []
    assert SOS_CARD in plain and card.text == words.text(SafetyMsg.SAFETY_CARD)


@pytest.mark.parametrize("language", sorted(lang for lang in SAMPLES if SAMPLES[lang].check))
def test_the_check_and_its_buttons_speak_its_language(
    content: ContentPack, safety: SafetyScreen, language: str
) -> None:
    sample = sample_for(content, language)
    assert sample.check is not None
    words = words_of(content, language)
    reply = answered(safety, sample.check, sample.country, sample.app, ReplyLevel.CHECK)
    assert reply.text == words.text(SafetyMsg.SAFETY_CHECK)
    check_buttons(reply)
    plain = check_tags(reply, language)
    labels = [button.label for button in reply.flat_buttons]
    assert labels == [
        words.text(SafetyMsg.SAFETY_CHECK_SAFE_BUTTON),
        words.text(SafetyMsg.SAFETY_CHECK_HELP_BUTTON),
    ]
    tag = None if language == APP_LOCALE else language
    [safe] = safety.pressed(CHECK_SAFE, APP_LOCALE, sample.country, False, language=tag) or []
    assert safe.text == words.text(SafetyMsg.SAFETY_CHECK_SAFE_REPLY)
    [help_now] = plain[1:]
    assert help_now in (CHECK_HELP, CHECK_HELP_DANGER)
    [full] = safety.pressed(help_now, APP_LOCALE, sample.country, False, language=tag) or []
    if help_now == CHECK_HELP:
        assert full.text.startswith(words.text(SafetyMsg.SAFETY_CRISIS_INTRO))
        check_crisis(content, full, sample.country, language)
    else:
        assert full.text.startswith(words.text(SafetyMsg.SAFETY_DANGER_INTRO))
        check_danger(content, full, sample.country, language)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_sos_speaks_its_language_with_a_crisis_line_and_an_abuse_line_in_sight(
    content: ContentPack, safety: SafetyScreen, language: str
) -> None:
    sample = sample_for(content, language)
    words = words_of(content, language)
    # "/sos" and the words after it, as the router reads them.
    written = safety.reply_locale(safety.detect(sample.crisis, APP_LOCALE), APP_LOCALE, sample.app)
    assert written == language
    if "latn" not in language:
        # A bare /sos from a phone set to the language (Hindi in Latin letters has no
        # phone setting of its own: those phones say Hindi or English).
        asked = safety.sos_language(APP_LOCALE, sample.app)
        assert asked == (APP_LOCALE if language == "es" else language)
    [sos] = safety.sos_replies(APP_LOCALE, sample.country, is_group=False, language=written)
    check_sos(content, sos, sample.country, language)
    assert words.text(SafetyMsg.SAFETY_NOT_SURE) in sos.text
    check_tags(sos, language)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_an_unknown_country_gets_numbers_at_once_in_its_language(
    content: ContentPack, safety: SafetyScreen, language: str
) -> None:
    sample = sample_for(content, language)
    words = words_of(content, language)
    for level, text in ((ReplyLevel.CRISIS, sample.crisis), (ReplyLevel.DANGER, sample.danger)):
        reply = answered(safety, text, None, sample.app, level)
        intro = (
            SafetyMsg.SAFETY_CRISIS_INTRO
            if level is ReplyLevel.CRISIS
            else SafetyMsg.SAFETY_DANGER_INTRO
        )
        assert reply.text.startswith(words.text(intro)), (language, reply.text)
        assert first_number_within(reply.text, language), (language, reply.text)
        lines = lines_of(reply)
        # The likeliest country's emergency number on the first line after the intro.
        labels = [button.label for button in reply.flat_buttons]
        first_code = next(
            code
            for code in content.emergency
            if lines[1].lstrip("\u2066").startswith(words.country_label(code))
        )
        assert any(has_number(lines[1], n) for n in emergency_numbers(content, first_code))
        assert labels[0] == words.country_label(first_code)
        # The sample's country is among the guesses, and so among the buttons.
        assert words.country_label(sample.country) in labels, (language, labels)
        assert words.text(SafetyMsg.SAFETY_WIDE_NUMBERS) in reply.text
        assert words.text(SafetyMsg.SAFETY_NO_COUNTRY) in reply.text
        check_buttons(reply)
        check_tags(reply, language)


@pytest.mark.parametrize(
    ("timezone", "app", "country"),
    [
        ("Asia/Tokyo", "en", "JP"),  # the time zone first
        ("Africa/Nairobi", "de-DE", "KE"),  # the zone before the app's region
        (None, "pt-BR", "BR"),  # no zone: the region of the app's language
        (None, "en-AU", "AU"),
        (None, "es-AR", "AR"),
    ],
)
def test_the_time_zone_and_the_app_say_which_numbers_come_first(
    content: ContentPack, safety: SafetyScreen, timezone: str | None, app: str, country: str
) -> None:
    found = safety.screen(
        "i want to die", APP_LOCALE, None, is_group=False, where=Whereabouts(timezone, app)
    )
    assert found is not None
    [reply] = found.replies
    words = words_of(content, APP_LOCALE)
    first = lines_of(reply)[1]
    assert first.startswith(words.country_label(country)), first
    assert any(has_number(first, n) for n in emergency_numbers(content, country)), first
    assert reply.flat_buttons[0].label == words.country_label(country)
    assert words.text(SafetyMsg.SAFETY_WIDE_NUMBERS) in reply.text


def test_a_reply_chosen_by_hand_can_leave_out_you_misread_me(
    content: ContentPack, safety: SafetyScreen
) -> None:
    misread = words_of(content, "de").text(SafetyMsg.SAFETY_MISREAD_BUTTON)
    for country in ("DE", None):
        offered = safety.full_reply("en", country, danger_first=True, language="de")
        assert misread in [button.label for button in offered.flat_buttons]
        chosen = safety.full_reply("en", country, True, language="de", misread=False)
        assert misread not in [button.label for button in chosen.flat_buttons]
        assert chosen.text == offered.text
