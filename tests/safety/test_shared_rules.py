"""Every locale screens every language's rules from one compiled book, read in its own
order: the user's own locale's rules first, so where two languages' rules match the same
words the reply is in the user's language."""

from __future__ import annotations

from dataclasses import replace

from bot.content_pack.ids import SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import DetectionFile
from bot.safety.rules import Intent, ReplyLevel
from bot.safety.screen import SafetyScreen


def test_every_locale_reads_one_book_of_every_file_and_tries_all_its_rules(
    content: ContentPack,
) -> None:
    screen = SafetyScreen(content)
    detectors = [screen.detector(locale) for locale in content.locales]
    assert len(detectors) == 2
    book = detectors[0].book
    assert all(detector.book is book for detector in detectors)  # compiled once, not per locale
    assert len(book.files) == len(content.locales) + len(content.languages)
    for detector in detectors:
        assert sorted(detector.order) == list(range(len(book.rules)))
        intents = [rule.intent for rule in detector.rules]
        assert intents == sorted(intents, key=list(Intent).index)  # the most urgent first


def with_spanish_rule_for(content: ContentPack, words: str) -> ContentPack:
    """The pack, with a Spanish-locale crisis rule matching the same words as an English one."""
    spanish = content.locales["es"]
    rule = {
        "id": "es-loc-test-same-words",
        "intent": "crisis",
        "pattern": rf"\b{words}\b",
        "note": "matches what an English rule matches",
    }
    data = spanish.detection.model_dump(exclude_none=True)
    detection = DetectionFile.model_validate({**data, "rules": [*data["rules"], rule]})
    locales = {**content.locales, "es": replace(spanish, detection=detection)}
    return replace(content, locales=locales)


def test_where_two_locales_rules_match_the_same_words_each_user_is_answered_in_their_own(
    content: ContentPack,
) -> None:
    # A word no one language owns (English and French both write it): words that are
    # plainly one language's are answered in it (tests/safety/test_reply_language.py).
    words = "suicide"
    screen = SafetyScreen(with_spanish_rule_for(content, words))
    english = screen.detect(words, "en")
    spanish = screen.detect(words, "es")
    assert english.reply is spanish.reply is ReplyLevel.CRISIS
    assert english.matches[0].rule_id != "es-loc-test-same-words"
    assert spanish.matches[0].rule_id == "es-loc-test-same-words"
    for locale in ("en", "es"):
        found = screen.screen(words, locale, "MX", is_group=False)
        assert found is not None
        intro = content.text(locale, SafetyMsg.SAFETY_CRISIS_INTRO)
        assert found.replies[0].text.startswith(intro), locale
