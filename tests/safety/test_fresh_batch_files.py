"""The fresh batches are well-formed: every language, every label at its size, no phrase
twice, none empty. Only their form is checked here: how the screen scores them is a
measurement (bench/fresh_batch.py), never a test, so nobody tunes on them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.fresh_batch_files import (
    FOCUSED_GROUPS,
    LABELS,
    LANGUAGES,
    BatchFileError,
    batch_folders,
    batch_languages,
    is_focused,
    minimum,
    read_batch,
    read_language,
    same_phrase,
)

BATCHES = batch_folders()


def test_there_is_a_batch() -> None:
    assert BATCHES, "no batch under tests/safety/fresh/"


@pytest.mark.parametrize("folder", BATCHES, ids=lambda folder: folder.name)
def test_every_language_is_in_the_batch(folder: Path) -> None:
    """All 22 languages, or exactly one group of them in a focused batch."""
    wanted = [set(LANGUAGES), *(set(group) for group in FOCUSED_GROUPS)]
    assert batch_languages(folder) in wanted, sorted(batch_languages(folder))


@pytest.mark.parametrize("folder", BATCHES, ids=lambda folder: folder.name)
def test_each_file_names_its_language_and_the_batch_date(folder: Path) -> None:
    for file in read_batch(folder):
        assert file.language == file.path.stem, file.path.name
        assert file.written == folder.name, file.path.name


@pytest.mark.parametrize("folder", BATCHES, ids=lambda folder: folder.name)
def test_each_label_meets_its_size(folder: Path) -> None:
    short = [
        f"{file.language} {label}: {len(file.labels.get(label, ()))} < {least}"
        for file in read_batch(folder)
        for label, least in minimum(file.language, is_focused(folder)).items()
        if len(file.labels.get(label, ())) < least
    ]
    assert not short, short
    assert all(set(file.labels) == set(LABELS) for file in read_batch(folder))


@pytest.mark.parametrize("folder", BATCHES, ids=lambda folder: folder.name)
def test_no_phrase_is_empty(folder: Path) -> None:
    empty = [
        f"{file.language} {label} #{index}"
        for file in read_batch(folder)
        for label, phrases in file.labels.items()
        for index, phrase in enumerate(phrases)
        if not phrase.strip()
    ]
    assert not empty, empty


@pytest.mark.parametrize("folder", BATCHES, ids=lambda folder: folder.name)
def test_no_phrase_is_there_twice_within_or_across_labels(folder: Path) -> None:
    """Across every language too: a phrase counted twice would weigh twice."""
    seen = Counter(
        same_phrase(phrase)
        for file in read_batch(folder)
        for phrases in file.labels.values()
        for phrase in phrases
    )
    twice = sorted(phrase for phrase, count in seen.items() if count > 1)
    assert not twice, twice


def test_only_a_batch_of_one_whole_group_is_focused(tmp_path: Path) -> None:
    """A batch missing a language of its group is neither whole nor focused: it fails the
    first check rather than passing at the smaller size."""
    for language in FOCUSED_GROUPS[1]:
        (tmp_path / f"{language}.yaml").write_text("language: x\n", encoding="utf-8")
    assert is_focused(tmp_path)
    (tmp_path / "vi.yaml").unlink()
    assert not is_focused(tmp_path)
    assert batch_languages(tmp_path) not in [set(LANGUAGES), *map(set, FOCUSED_GROUPS)]


def test_a_file_that_is_not_a_batch_file_is_refused(tmp_path: Path) -> None:
    """The checks above rest on the reader: it must refuse what they could not judge."""
    wrong = {
        "list.yaml": "- just a list\n",
        "label.yaml": "language: en\nwritten: 2026-12-02\nlabels:\n  panic: [a]\n",
        "texts.yaml": "language: en\nwritten: 2026-12-02\nlabels:\n  crisis: [1, 2]\n",
        "broken.yaml": "language: [en\n",
    }
    for name, text in wrong.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        with pytest.raises(BatchFileError):
            read_language(tmp_path / name)
