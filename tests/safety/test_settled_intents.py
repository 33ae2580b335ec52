"""A reading or piece of a message after the first matches only the rules of the intents
not yet settled in full: what the screen finds is exactly what matching every rule in
every reading and piece finds (the rule a match is named after, full or softened)."""

from __future__ import annotations

import re

import pytest

from bot.content_pack.pack import ContentPack
from bot.safety.rules import PIECE, Detector, Intent
from bot.safety.screen import SafetyScreen
from tests.helpers.phrase_files import phrases_of


def _every_rule(
    self: Detector, screened: str, words: object, settled_in_full: frozenset[Intent]
) -> dict[int, list[re.Match[str]]]:
    return self.book.rule_index.matches(screened)


def _verdicts(detector: Detector, texts: list[str]) -> list[object]:
    return [
        [(match.intent, match.rule_id, match.full) for match in detector.detect(text).matches]
        for text in texts
    ]


def test_passing_over_settled_intents_finds_what_every_rule_finds(
    content: ContentPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    phrases = phrases_of("phrases", "holdout", "fresh_multilingual", "phrases_urge_contacted")
    # Long messages (several pieces) mixing every kind of phrase, and messages read a
    # second time with chat spellings written out ("k" is "que") or spelled-out letters
    # joined, after words that settle an intent in the first reading.
    long = [" ".join(phrases[at : at + 300]) for at in range(0, len(phrases), 300)]
    assert any(len(text) > 2 * PIECE for text in long)
    second_readings = [
        f"{first} k {then}" for first, then in zip(phrases[::7], phrases[3::7], strict=False)
    ] + [f"{first}. k i l l m y s e l f" for first in phrases[::11]]
    # A crisis word found only in the second reading ("kiero" is "quiero") after an
    # English rule settled the urge in the first: its context is read with the English
    # cues too ("never" just before it), as when every rule is matched.
    read_with_cues = [
        "i miss him so much i want to text him. i would never kiero morirme",
        "i want to text him. i dont kiero morirme",
    ]
    texts = [*long, *second_readings, *read_with_cues]
    detector = SafetyScreen(content).detector("en")
    found = _verdicts(detector, texts)
    monkeypatch.setattr(Detector, "_hits", _every_rule)
    assert found == _verdicts(detector, texts)
    assert any(len(verdict) > 1 for verdict in found)  # intents settled before the last piece
