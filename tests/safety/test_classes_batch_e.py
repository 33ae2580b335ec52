"""The classes of phrasing the blind batch 2026-12-02-e found missing in the eleven newer
languages, asserted with new phrasings, never the batch's own
(tests/safety/classes_batch_e.yaml): not being here after a day, a letter left for the
family, belongings given away, means bought together or named by brand, the point of it
all asked alone; a child struck or pushed, a weapon shown with a threat, a phone's
location used to follow, a threat to burn the house or to take the children abroad, a
pillow held on the face; a negated wish and a film scene get a check; everyday talk
that shares their words (a letter for Mother's Day, a car warmed up in the garage, a
week off work) gets no safety reply; the pull back and being contacted in the words
the batch used for them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.content_pack.pack import ContentPack
from tests.helpers.class_phrases import WANTED, assert_gets_what_its_class_wants

PHRASES = yaml.safe_load((Path(__file__).parent / "classes_batch_e.yaml").read_text("utf-8"))[
    "languages"
]
LANGUAGES = ("ar", "zh", "ja", "ko", "uk", "sv", "id", "tl", "ro", "el", "vi")
CASES = [
    (code, label, text)
    for code, labels in PHRASES.items()
    for label, texts in labels.items()
    for text in texts
]


def test_every_language_of_the_batch_has_its_classes() -> None:
    assert set(PHRASES) == set(LANGUAGES)
    for code in LANGUAGES:
        assert set(PHRASES[code]) <= set(WANTED), code
        assert PHRASES[code].get("crisis") or PHRASES[code].get("danger"), code
        assert PHRASES[code].get("ordinary"), code


@pytest.mark.parametrize(("code", "label", "text"), CASES)
def test_each_phrase_gets_what_its_class_wants(
    content: ContentPack, code: str, label: str, text: str
) -> None:
    assert_gets_what_its_class_wants(content, code, label, text)
