"""The classes of phrasing the blind batches 2026-12-02-f (English and the ten first
languages) and 2026-12-02-g (the eleven newer ones) found missing, asserted with new
phrasings written for these tests, never the batches' own. One file a language in
tests/safety/classes_batches_f_g/, so each language's classes are read beside its rules:

    crisis / danger - the full reply of that kind
    softened        - a check (the past, a denial, someone else, a story, an accident)
    urge, contacted - that intent found, and no safety reply
    ordinary        - no safety reply (the same words in everyday talk)
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.content_pack.pack import ContentPack
from tests.helpers.class_phrases import WANTED, assert_gets_what_its_class_wants

FOLDER = Path(__file__).parent / "classes_batches_f_g"


def _phrases() -> dict[str, dict[str, list[str]]]:
    return {
        path.stem: yaml.safe_load(path.read_text("utf-8"))["labels"]
        for path in sorted(FOLDER.glob("*.yaml"))
    }


PHRASES = _phrases()
CASES = [
    (code, label, text)
    for code, labels in PHRASES.items()
    for label, texts in labels.items()
    for text in texts
]


def test_every_file_holds_known_classes_and_both_sides_of_them() -> None:
    """Each language asserts what must be caught and what must be left alone."""
    assert PHRASES, FOLDER
    for code, labels in PHRASES.items():
        assert set(labels) <= set(WANTED), code
        assert labels.get("crisis") or labels.get("danger"), code
        assert labels.get("ordinary") or labels.get("softened"), code


@pytest.mark.parametrize(("code", "label", "text"), CASES)
def test_each_phrase_gets_what_its_class_wants(
    content: ContentPack, code: str, label: str, text: str
) -> None:
    assert_gets_what_its_class_wants(content, code, label, text)
