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
from tests.helpers.class_phrases import WANTED, assert_gets_what_its_class_wants

PHRASES = yaml.safe_load(
    (Path(__file__).parent / "classes_newer_languages.yaml").read_text("utf-8")
)["languages"]
LANGUAGES = ("ar", "zh", "ja", "ko", "uk", "sv", "id", "tl", "ro", "el", "vi")
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
    assert_gets_what_its_class_wants(content, code, label, text)
