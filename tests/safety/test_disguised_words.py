"""Words disguised with look-alike letters or reversed by an override still reach the rules,
and text really written in another script is left as it is."""

from __future__ import annotations

import pytest

from bot.content_pack.pack import ContentPack
from bot.safety.normalise import as_displayed, normalise
from bot.safety.rules import Intent
from bot.safety.screen import SafetyScreen


@pytest.mark.parametrize(
    "disguised",
    [
        "i want to kіll myself",  # Cyrillic і
        "і wаnt tо ԁіе",  # most letters Cyrillic, a few Latin
        "I WANT TO DΙΕ",  # Greek capitals Iota and Epsilon
        "i want to \u202eeid",  # shown as "die"
        "i want to \u202eflesym llik\u202c tonight",  # shown as "kill myself"
        "i want to \u202e\u202ea\u202c flesym llik\u202c",  # nested: "kill myself a"
        "I WANT TO KILL ΜYSELF",  # Greek capital Mu, which case-folds to a "u" look-alike
        "I WANT TO EΝD IT",  # Greek capital Nu
        "I WILL ΗANG MYSELF",  # Greek capital Eta
        "і ԝаηт то ԁіе",  # every letter a look-alike: no Latin letter at all
    ],
)
def test_disguised_crisis_words_are_found(content: ContentPack, disguised: str) -> None:
    assert Intent.CRISIS in SafetyScreen(content).detector("en").detect(disguised).intents


def test_words_in_their_own_script_are_left_alone() -> None:
    assert normalise("Мне очень плохо") == "мне очень плохо"
    assert normalise("Καλημέρα") == "καλημερα"  # accents go, letters stay Greek


@pytest.mark.parametrize(
    "ordinary",
    [
        "Мне очень плохо сегодня, но я справлюсь",  # Russian, read as itself
        "my friend Маша said hi and we had tea",  # an English message with a Cyrillic name
        "Καλημέρα, τι κάνεις;",
    ],
)
def test_other_scripts_raise_no_false_alarm(content: ContentPack, ordinary: str) -> None:
    assert SafetyScreen(content).detector("en").detect(ordinary).intents == frozenset()


def test_the_displayed_order_only_exists_with_an_override() -> None:
    assert as_displayed("plain text") is None
    assert as_displayed("a \u202ecba\u202c d") == "a abc d"
    assert as_displayed("\u202eba\nc") == "ab\nc"  # a line end closes the override


@pytest.mark.parametrize(
    "hidden",
    [
        "i want to ki\x00ll myself",  # a NUL inside the word
        "i want to k\u200dill myself",  # a zero-width joiner
        "i want to ki\u00adll myself",  # a soft hyphen
        "i want to \u2066kill\u2069 myself",  # an isolate
        "k i l l m y s e l f",  # letters spaced apart
        "i want to k.i.l.l myself",  # dotted
        "thinking about s-u-i-c-i-d-e",  # dashed
        "i want to d i e",
        "K. I. L. L. MYSELF",
        "i want to \u202e\u202eeid\u202c\u202c",  # two nested overrides: shown as "die"
        "i want to \u202eflesym \u202d\u202c\u202e\u202cllik\u202c",  # nested pushes and pops
    ],
)
def test_split_and_spelled_out_crisis_words_are_found(content: ContentPack, hidden: str) -> None:
    assert Intent.CRISIS in SafetyScreen(content).detector("en").detect(hidden).intents


@pytest.mark.parametrize(
    "ordinary",
    [
        "i got an a in my exam",
        "my initials are j. r. r. like tolkien",
        "the u.s.a. trip was lovely",
        "plan a, b or c for the weekend",
        "rated it 5 s t a r s",
        "e.g. the bus, i.e. the slow one",
        "we went to the b&b in the lake district",
    ],
)
def test_single_letters_in_ordinary_text_raise_no_alarm(
    content: ContentPack, ordinary: str
) -> None:
    assert not SafetyScreen(content).detector("en").detect(ordinary).needs_safety_reply


def test_the_displayed_order_follows_nested_levels() -> None:
    # Inside two right-to-left overrides a run is turned three times: reversed once.
    assert as_displayed("\u202e\u202eba\u202c\u202c") == "ab"
    # A left-to-right override inside a right-to-left one keeps its own order.
    assert as_displayed("\u202e\u202dab\u202c\u202c") == "ab"
    assert as_displayed("x \u202e\u202eab\u202c c\u202c") == "x c ba"
