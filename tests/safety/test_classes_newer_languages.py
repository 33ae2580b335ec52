"""The classes of phrasing the blind batch 2026-12-02-c found missing in the eleven newer
languages (Arabic, Chinese, Japanese, Korean, Ukrainian, Swedish, Indonesian, Tagalog,
Romanian, Greek, Vietnamese), asserted with new phrasings, never the batch's own: crisis
and danger get the full reply of their kind, softened words a check, and ordinary talk
that shares their words (an exam that "will kill me", a boil read as "locked in", a cat
left with a neighbour for a trip) nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.content_pack.pack import ContentPack
from bot.safety.rules import Intent, ReplyLevel
from bot.safety.screen import SafetyScreen

PHRASES = yaml.safe_load(
    (Path(__file__).parent / "classes_newer_languages.yaml").read_text("utf-8")
)["languages"]
LANGUAGES = ("ar", "zh", "ja", "ko", "uk", "sv", "id", "tl", "ro", "el", "vi")
# What each class of phrase must get; ordinary talk only needs no safety reply at all.
WANTED = {
    "crisis": {ReplyLevel.CRISIS},
    "danger": {ReplyLevel.DANGER},
    "softened": {ReplyLevel.CHECK},
    "urge": {ReplyLevel.URGE, ReplyLevel.CONTACTED},
    "contacted": {ReplyLevel.CONTACTED},
    "ordinary": {ReplyLevel.NONE, ReplyLevel.URGE, ReplyLevel.CONTACTED},
}
# The pull back and being contacted: their intent found (the flow the router offers).
INTENT = {"urge": Intent.URGE, "contacted": Intent.CONTACTED}
SAFETY_LABELS = ("crisis", "danger", "softened", "ordinary")
CASES = [
    (code, label, text)
    for code in LANGUAGES
    for label, texts in PHRASES[code].items()
    for text in texts or ()
]


def test_every_language_has_every_class() -> None:
    assert set(PHRASES) == set(LANGUAGES)
    for code in LANGUAGES:
        assert set(PHRASES[code]) <= set(WANTED), code
        assert all(PHRASES[code][label] for label in SAFETY_LABELS), code


@pytest.mark.parametrize(("code", "label", "text"), CASES)
def test_each_phrase_gets_what_its_class_wants(
    content: ContentPack, code: str, label: str, text: str
) -> None:
    detection = SafetyScreen(content).detector("en").detect(text)
    assert detection.reply in WANTED[label], (code, label, text, detection.reply)
    if label in INTENT:
        assert INTENT[label] in detection.intents, (code, label, text)
