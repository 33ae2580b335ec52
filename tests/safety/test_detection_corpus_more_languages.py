"""The labelled corpus of the ten first languages besides English: every file names its
language, holds every label, at least 400 messages, text only, each message once."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

CORPUS = Path(__file__).resolve().parents[2] / "content" / "detection" / "corpus"
LANGUAGES = ("es", "de", "fr", "pt", "it", "nl", "pl", "ru", "tr", "hi")
LABELS = ("crisis", "danger", "softened", "urge", "contacted", "ordinary")
MINIMUM = 400


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_corpus_of_a_language_is_whole(code: str) -> None:
    data = yaml.safe_load((CORPUS / f"{code}.yaml").read_text("utf-8"))
    assert data["language"] == code
    labels = data["labels"]
    assert set(labels) == set(LABELS)
    texts = [text for label in LABELS for text in labels[label]]
    assert all(isinstance(text, str) and text.strip() for text in texts)
    assert all(labels[label] for label in LABELS)
    assert len(texts) >= MINIMUM
    assert len(set(texts)) == len(texts)
