"""The start index finds exactly what searching with each pattern finds, only sooner."""

from __future__ import annotations

import re

import pytest

from bot.content_pack.pack import ContentPack
from bot.content_pack.pattern_starts import starting_strings
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
