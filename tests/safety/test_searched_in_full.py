"""The screen's index lists nearly every rule by the beginnings of its matches; a rule it
cannot list is searched through the whole of every message. A few small ones cost little,
but one stop's new rules, each with a single alternative that could begin anywhere, were
searched in full whole and made a 4,096-character message seven times slower to screen
(bench/screen.py). Such alternatives go in a rule of their own (`<id>-in-full`)."""

from __future__ import annotations

from bot.content_pack.pack import ContentPack
from bot.safety.screen import SafetyScreen

# Characters of pattern searched through every message, all rules together; the rules of
# 2026-12-02 held 68,000 before their alternatives were split, 11,000 after.
MOST_SEARCHED_CHARACTERS = 15_000


def test_the_rules_searched_in_full_stay_few_and_small(content: ContentPack) -> None:
    book = SafetyScreen(content).detector("en").book
    searched = {
        book.rules[number].id: len(book.rules[number].pattern.pattern)
        for number in book.rule_index.searched
    }
    assert sum(searched.values()) <= MOST_SEARCHED_CHARACTERS, sorted(
        searched.items(), key=lambda item: -item[1]
    )
