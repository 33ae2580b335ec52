"""The start index finds exactly what searching with each pattern finds, only sooner."""

from __future__ import annotations

import re

import pytest

from bot.content_pack.pack import ContentPack
from bot.content_pack.pattern_starts import starting_strings
from bot.content_pack.patterns import read
from bot.safety.normalise import normalise
from bot.safety.screen import SafetyScreen
from bot.safety.starts import StartIndex
from tests.helpers.phrase_files import phrases_of


def test_every_rule_matches_through_the_index_as_it_does_by_search(content: ContentPack) -> None:
    detector = SafetyScreen(content).detector("en")
    patterns = [rule.pattern for rule in detector.rules] + list(detector.exceptions)
    index = StartIndex.of(patterns)
    assert len(index.searched) < len(patterns) // 10  # nearly every rule is indexed
    texts = [normalise(text) for text in phrases_of("phrases", "holdout")]
    assert len(texts) > 1000
    for text in texts:
        found = index.matches(text)
        for number, pattern in enumerate(patterns):
            searched = pattern.search(text)
            indexed = found.get(number)
            assert (searched is None) == (indexed is None), (pattern.pattern[:60], text)
            if searched is not None and indexed is not None:
                assert indexed[0].span() == searched.span()


@pytest.mark.parametrize(
    ("pattern", "starts"),
    [
        (r"\bkill(?:s|ed)?\b", {"kill", "kills", "killed"}),
        (r"(?<!\w)(?=\w)(?:k ?m ?s\b|sui)", {"k m s", "k ms", "km s", "kms", "sui"}),
        (r"\b[kc]ill", {"kill", "cill"}),
    ],
)
def test_the_starts_of_a_pattern_are_read_from_it(pattern: str, starts: set[str]) -> None:
    assert starting_strings(pattern) == starts


@pytest.mark.parametrize("pattern", [r"kill", r"\b\w+ me", r"(?i)\bkill", r"\b.ill"])
def test_a_pattern_that_may_start_anywhere_is_searched_in_full(pattern: str) -> None:
    assert starting_strings(pattern) is None
    index = StartIndex.of([re.compile(pattern)])
    assert index.searched == (0,)
    assert bool(index.matches("skill me kill")) is True


def test_a_pattern_searched_in_full_before_finds_what_a_search_finds(
    content: ContentPack,
) -> None:
    """The rules once searched in full (their beginnings unknown, or known only past a
    look ahead for a letter), and those still searched but only where a text holds a
    string every match holds, find exactly the matches a search finds, one after another."""
    detector = SafetyScreen(content).detector("en")
    patterns = [rule.pattern for rule in detector.rules] + list(detector.exceptions)
    index = StartIndex.of(patterns)
    assert index.in_turn  # some are listed at words now
    assert index.required  # and some of the rest are skipped where they cannot match
    phrases = [normalise(text) for text in phrases_of("phrases", "holdout", "fresh_multilingual")]
    texts = phrases + [" ".join(phrases[at : at + 40]) for at in range(0, len(phrases), 40)]
    for text in texts:
        found = index.matches(text)
        for number in (*index.in_turn, *index.searched):
            searched = [hit.span() for hit in patterns[number].finditer(text)]
            assert [hit.span() for hit in found.get(number, [])] == searched, (
                patterns[number].pattern[:60],
                text,
            )


def test_every_match_holds_one_of_its_patterns_required_strings(content: ContentPack) -> None:
    detector = SafetyScreen(content).detector("en")
    patterns = [rule.pattern for rule in detector.rules] + list(detector.exceptions)
    texts = [normalise(text) for text in phrases_of("phrases", "holdout", "fresh_multilingual")]
    checked = 0
    for pattern in patterns:
        required = read(pattern.pattern).required
        if required is None:
            continue
        for text in texts:
            for hit in pattern.finditer(text):
                assert any(part in hit.group() for part in required), (pattern.pattern[:60], hit)
                checked += 1
    assert checked > 1000


@pytest.mark.parametrize(
    ("pattern", "required"),
    [
        (r"\b(?:he|she) (?:will|gonna) kill me\b", {" kill me"}),
        (r"\bkill(?:s|ed)? (?:my|the) (?:dog|cat)", {"kill"}),
        (r"\b(?:rope|noose)\b", {"rope", "noose"}),
        (r"\bi (?:really )?want to die", {"want to die"}),
        (r"(?i)\bkill me", None),
        (r"\b\w+ me", {" me"}),
        (r"\bx?y?", None),
    ],
)
def test_the_strings_a_pattern_requires_are_read_from_it(
    pattern: str, required: set[str] | None
) -> None:
    found = read(pattern).required
    assert (None if found is None else set(found)) == required


def test_a_pattern_taken_in_turn_finds_no_match_inside_another() -> None:
    """(?<!\\w)(?=\\w) says a match begins with a letter, so "'s" never begins one; its
    matches are taken as a search takes them: "b c" begins inside "a b" and is not found
    ("it's here" holds one: its "s" begins a word)."""
    pattern = re.compile(r"(?<!\w)(?=\w)(?:a b|b c|'?s here)")
    index = StartIndex.of([pattern])
    assert index.in_turn == (0,) and index.searched == ()
    found = index.matches("a b c, s here and it's here")
    assert [hit.group() for hit in found[0]] == ["a b", "s here", "s here"]
    assert [hit.group() for hit in found[0]] == [
        hit.group() for hit in pattern.finditer("a b c, s here and it's here")
    ]


def test_a_pattern_one_of_whose_beginnings_is_not_spelled_out_is_searched_in_full() -> None:
    """A beginning such as \\d is no string to list: the pattern is searched, so a match
    that begins with a digit ("2 km") is found, as a search finds it."""
    pattern = re.compile(r"(?<!\w)(?=\w)(?:dying (?:my|her) hair|\d+ ?kms?\b|'s on)")
    index = StartIndex.of([pattern])
    assert index.in_turn == () and index.searched == (0,)
    text = "dying my hair, then a walk of 2 km"
    assert [hit.group() for hit in index.matches(text)[0]] == ["dying my hair", "2 km"]


def test_a_pattern_that_never_follows_a_latin_letter_is_tried_only_where_one_begins() -> None:
    """Chinese typed in Latin letters opens with (?<![a-z]): its beginnings are listed,
    and found after a space, a digit or another script's letter, never inside a word."""
    pattern = re.compile(r"(?<![a-z])(?:ta ?yao|wo ?xiang) ?(?:sha|si)")
    index = StartIndex.of([pattern])
    assert index.searched == () and index.in_turn == (0,)
    text = "wo xiang si. 3ta yao sha! data yao sha, 他ta yao si"
    found = index.matches(text)
    assert [hit.group() for hit in found[0]] == ["wo xiang si", "ta yao sha", "ta yao si"]
    assert [hit.span() for hit in found[0]] == [hit.span() for hit in pattern.finditer(text)]
