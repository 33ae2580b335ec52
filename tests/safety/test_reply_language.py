"""A crisis is answered in the language it was written in, when the pack speaks it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.content_pack.ids import SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.safety.rules import Detection
from bot.safety.screen import SafetyScreen
from bot.safety.text_language import Vocabularies
from tests.helpers.conversation import Conversation


def intro_of(screen: SafetyScreen, text: str, locale: str) -> str:
    found = screen.screen(text, locale, "MX", is_group=False)
    assert found is not None, text
    return found.replies[0].text


def test_spanish_crisis_words_from_an_english_app_get_the_spanish_reply(
    content: ContentPack,
) -> None:
    screen = SafetyScreen(content)
    spanish = content.text("es", SafetyMsg.SAFETY_CRISIS_INTRO)
    assert intro_of(screen, "quiero morirme", "en").startswith(spanish)
    assert intro_of(screen, "ya no quiero vivir", "es").startswith(spanish)


def test_english_crisis_words_from_a_spanish_app_get_the_english_reply(
    content: ContentPack,
) -> None:
    english = content.text("en", SafetyMsg.SAFETY_CRISIS_INTRO)
    assert intro_of(SafetyScreen(content), "i want to die", "es").startswith(english)


def test_words_in_a_reply_language_get_the_reply_in_it(content: ContentPack) -> None:
    german = content.reply_languages["de"].text(SafetyMsg.SAFETY_CRISIS_INTRO)
    assert intro_of(SafetyScreen(content), "ich will nicht mehr leben", "en").startswith(german)
    assert intro_of(SafetyScreen(content), "ich will nicht mehr leben", "es").startswith(german)


async def test_in_a_conversation_the_spanish_crisis_reply_comes_first(
    chat: Conversation, content: ContentPack
) -> None:
    await chat.send("quiero morirme")
    assert chat.last[0].text.startswith(content.text("es", SafetyMsg.SAFETY_CRISIS_INTRO))


@dataclass(frozen=True)
class LearnedDetection(Detection):
    """A detection as a learned stage may give it: with the language it read."""

    language: str = ""


@pytest.mark.parametrize(
    ("text", "app", "expected"),
    [
        ("je veux mourir", None, "fr"),
        ("quero morrer", None, "pt"),
        ("voglio morire", None, "it"),
        ("ik wil dood", None, "nl"),
        ("chcę umrzeć", None, "pl"),
        ("я хочу умереть", None, "ru"),
        ("ölmek istiyorum", None, "tr"),
        # Hindi typed in Latin letters is answered in Latin letters, which readers of
        # Urdu who do not read Devanagari can read too.
        ("mujhe marna hai", None, "hi-latn"),
        ("ich will nicht mehr leben", "de-AT", "de"),
        ("i want to die", "de", "en"),  # English words: English, whatever the phone says
        # A word that matches the English rule first ("suicid-"), in a message whose other
        # words are another language's: that language.
        ("je veux me suicider", None, "fr"),
        ("je pense au suicide tous les jours", None, "fr"),
        ("quiero suicidarme", None, "es"),
        ("pienso en el suicidio", None, "es"),
        ("voglio suicidarmi", None, "it"),
        ("quero me suicidar", None, "pt"),
        ("penso em suicídio", None, "pt"),
        ("i think about suicide", "fr", "en"),
    ],
)
def test_the_reply_is_in_the_language_the_words_were_written_in(
    content: ContentPack, text: str, app: str | None, expected: str
) -> None:
    screen = SafetyScreen(content)
    assert screen.reply_locale(screen.detect(text, "en"), "en", app) == expected


@pytest.mark.parametrize(
    ("text", "locale", "app", "expected"),
    [
        # Words several languages share: the user's own locale among them, then the app's.
        ("suicidio", "es", None, "es"),
        ("suicidio", "en", "it", "it"),
        ("suicide", "en", "fr", "en"),  # the English word itself: English
        ("mi amiga quiere suicidarse", "en", None, "es"),  # the check, too
    ],
)
def test_words_several_languages_share_follow_the_user(
    content: ContentPack, text: str, locale: str, app: str | None, expected: str
) -> None:
    screen = SafetyScreen(content)
    assert screen.reply_locale(screen.detect(text, locale), locale, app) == expected


def test_a_learned_stage_may_name_the_language(content: ContentPack) -> None:
    screen = SafetyScreen(content)
    plain = screen.detect("help", "en")
    for named, expected in (("ja", "ja"), ("AR", "ar"), ("xx", "en"), ("", "en")):
        learned = LearnedDetection(plain.normalised, plain.matches, language=named)
        assert screen.reply_locale(learned, "en") == expected


def test_sos_follows_a_phone_the_bot_has_no_locale_for(content: ContentPack) -> None:
    screen = SafetyScreen(content)
    assert screen.sos_language("en", "de-DE") == "de"
    assert screen.sos_language("en", "ja") == "ja"
    assert screen.sos_language("en", "en-GB") == "en"
    assert screen.sos_language("es", "de") == "es"  # a locale someone has stays theirs
    assert screen.sos_language("en", "xx") == "en"
    assert screen.sos_language("en", None) == "en"


def test_a_script_the_words_are_written_in_picks_the_reply_of_that_script(
    content: ContentPack,
) -> None:
    screen = SafetyScreen(content)
    devanagari = LearnedDetection("मुझे मरना है", (), language="hi")
    assert screen.reply_locale(devanagari, "en") == "hi"
    latin = LearnedDetection("mujhe marna hai", (), language="hi")
    assert screen.reply_locale(latin, "en") == "hi-latn"
    # A locale keeps its own script: Spanish is not "es-latn".
    assert screen.reply_locale(LearnedDetection("quiero morir", (), language="es"), "en") == "es"


def test_a_second_screen_on_the_same_pack_reads_no_vocabulary_again(
    content: ContentPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A start builds a screen as it loads the pack and the router another on it: the
    languages' words are read from the pack once, and the second answers alike."""
    first = SafetyScreen(content)
    read: list[ContentPack] = []
    original = Vocabularies.of

    def counted(pack: ContentPack) -> Vocabularies:
        read.append(pack)
        return original(pack)

    monkeypatch.setattr(Vocabularies, "of", counted)
    second = SafetyScreen(content)
    assert read == []
    assert intro_of(second, "quiero morirme", "en") == intro_of(first, "quiero morirme", "en")
