"""The eleven languages added last (Arabic, Chinese, Japanese, Korean, Ukrainian, Swedish,
Indonesian, Tagalog, Romanian, Greek, Vietnamese): their rules catch a crisis or danger
said plainly in each, answer softened mentions with no more than a check, and leave the
everyday exaggerations of each language alone.

The phrases (phrases_new_languages.yaml) were written after the rules, apart from the
labelled corpus, in four rounds, each scored before any change (2026-12-02; the file's
header has the figures: 102/110, then 62/121 on paraphrases of the issue's classes, then
15/55 with 10 of 88 hard negatives flagged, then 22/99 with 4 of 66 flagged on classes
not yet written for). Each round's misses were covered as classes of phrasing, so this
set now asserts the rules and no longer measures how they meet new wording.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from bot.content_pack.ids import Msg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.safety.normalise import normalise
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen
from bot.safety.starts import StartIndex
from tests.helpers.conversation import Conversation

HERE = Path(__file__).parent
DETECTION = HERE.parents[1] / "content" / "detection"
PHRASES = yaml.safe_load((HERE / "phrases_new_languages.yaml").read_text("utf-8"))["languages"]
LANGUAGES = ("ar", "zh", "ja", "ko", "uk", "sv", "id", "tl", "ro", "el", "vi")
FULL = frozenset({ReplyLevel.CRISIS, ReplyLevel.DANGER})


def test_every_new_language_has_its_phrases() -> None:
    assert set(PHRASES) == set(LANGUAGES)
    for code in LANGUAGES:
        sets = PHRASES[code]
        assert len(sets["full"]) >= 25 and len(sets["softened"]) >= 4, code
        assert len(sets["ordinary"]) >= 12, code


@pytest.mark.parametrize("code", LANGUAGES)
def test_crisis_and_danger_get_the_full_reply(content: ContentPack, code: str) -> None:
    detector = SafetyScreen(content).detector("en")
    missed = [text for text in PHRASES[code]["full"] if detector.detect(text).reply not in FULL]
    assert missed == []


@pytest.mark.parametrize("code", LANGUAGES)
def test_softened_mentions_get_no_more_than_a_check(content: ContentPack, code: str) -> None:
    detector = SafetyScreen(content).detector("en")
    softened = PHRASES[code]["softened"]
    assert [text for text in softened if detector.detect(text).reply in FULL] == []


@pytest.mark.parametrize("code", LANGUAGES)
def test_everyday_talk_gets_no_safety_reply(content: ContentPack, code: str) -> None:
    detector = SafetyScreen(content).detector("en")
    ordinary = PHRASES[code]["ordinary"]
    assert [text for text in ordinary if detector.detect(text).needs_safety_reply] == []


@pytest.mark.parametrize(
    ("text", "level"),
    [
        # Arabic with its short vowels, a tatweel and hamza seats, as some keyboards send it
        ("أُرِيدُ أَنْ أَمُوتَ", ReplyLevel.CRISIS),
        ("بدي امـــوت", ReplyLevel.CRISIS),
        ("ana 3ayza amoot", ReplyLevel.CRISIS),
        # Chinese in simplified and traditional characters; 想死你了 is "I miss you so"
        ("我想自杀", ReplyLevel.CRISIS),
        ("我想自殺", ReplyLevel.CRISIS),
        ("想死你了", ReplyLevel.NONE),
        ("我不会自杀的", ReplyLevel.CHECK),
        # Japanese in half-width katakana, and the Japanese negation after the verb
        ("ｼﾆﾀｲ", ReplyLevel.CRISIS),
        ("自殺なんて考えたこともない", ReplyLevel.NONE),
        # Korean with and without its spaces
        ("그냥죽고싶다", ReplyLevel.CRISIS),
        ("죽고 싶지 않아", ReplyLevel.NONE),
        # Ukrainian: the negation and the year survive the look-alike reading
        ("я ніколи не вбʼю себе", ReplyLevel.CHECK),
        ("у 2015 році я намагалась покінчити з собою", ReplyLevel.CHECK),
        # Greek with accents and final sigma, and Greeklish with digits for letters
        ("Θέλω να αυτοκτονήσω", ReplyLevel.CRISIS),
        ("8elw na pe8anw", ReplyLevel.CRISIS),
        # Vietnamese with and without its marks; từ từ (slowly) reads "tu tu" too
        ("Tôi muốn tự tử", ReplyLevel.CRISIS),
        ("toi muon tu tu", ReplyLevel.CRISIS),
        ("từ từ thôi em", ReplyLevel.NONE),
        # Romanian with both forms of its s and t
        ("vreau să mă sinucid", ReplyLevel.CRISIS),
        ("Vreau sã mã sinucid", ReplyLevel.CRISIS),
    ],
)
def test_each_script_is_read_as_people_type_it(
    content: ContentPack, text: str, level: ReplyLevel
) -> None:
    assert SafetyScreen(content).detector("en").detect(text).reply is level


@pytest.mark.parametrize(
    ("text", "language", "intro"),
    [
        ("بدي موت", "ar", SafetyMsg.SAFETY_CRISIS_INTRO),
        ("我不想活了", "zh", SafetyMsg.SAFETY_CRISIS_INTRO),
        ("彼に殴られた", "ja", SafetyMsg.SAFETY_DANGER_INTRO),
        ("tha me skotwsei", "el", SafetyMsg.SAFETY_DANGER_INTRO),
    ],
)
@pytest.mark.parametrize("locale", ["en", "es"])
def test_a_crisis_in_a_new_language_is_answered_in_that_language(
    content: ContentPack, text: str, language: str, intro: Msg, locale: str
) -> None:
    """Whatever the user's locale, the reply is written in the language they wrote in."""
    found = SafetyScreen(content).screen(text, locale, "MX", is_group=False)
    assert found is not None
    own = content.reply_languages[language].text(intro)
    assert found.replies[0].text.startswith(own)
    assert not found.replies[0].text.startswith(content.text(locale, intro))


async def test_in_a_conversation_a_crisis_in_korean_is_answered_first(
    chat: Conversation, content: ContentPack
) -> None:
    await chat.send("진짜 죽고 싶어")
    korean = content.reply_languages["ko"].text(SafetyMsg.SAFETY_CRISIS_INTRO)
    assert chat.last[0].text.startswith(korean)


def _literal_letters(pattern: str) -> set[str]:
    """The non-ASCII characters a pattern is written with."""
    return {ch for ch in pattern if ord(ch) > 127}


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_letter_of_a_rule_is_written_as_normalising_leaves_it(code: str) -> None:
    """A rule only ever sees normalised text: a "ة", an accent, a final "ς" or a "й" in a
    pattern could never match anything."""
    data = yaml.safe_load((DETECTION / f"{code}.yaml").read_text("utf-8"))
    patterns = [item["pattern"] for item in data.get("exceptions", []) + data["rules"]]
    patterns += [value for value in (data.get("context") or {}).values()]
    unreadable = {
        letter
        for pattern in patterns
        for letter in _literal_letters(pattern)
        if normalise(f"a{letter}a") != f"a{letter}a"
    }
    assert unreadable == set()


def test_the_index_finds_in_these_scripts_what_a_search_finds(content: ContentPack) -> None:
    detector = SafetyScreen(content).detector("en")
    patterns = [rule.pattern for rule in detector.rules] + list(detector.exceptions)
    index = StartIndex.of(patterns)
    texts = [
        normalise(text) for sets in PHRASES.values() for group in sets.values() for text in group
    ]
    for path in sorted((DETECTION / "corpus").glob("*.yaml")):
        labels = yaml.safe_load(path.read_text("utf-8"))["labels"]
        texts += [normalise(text) for group in labels.values() for text in group]
    assert len(texts) > 2000
    for text in texts:
        found = index.matches(text)
        for number, pattern in enumerate(patterns):
            searched: re.Match[str] | None = pattern.search(text)
            assert (searched is None) == (number not in found), (pattern.pattern[:60], text)
            if searched is not None:
                assert found[number][0].span() == searched.span()
