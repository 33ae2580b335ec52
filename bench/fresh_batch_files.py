"""The fresh batches of labelled phrases: where they live, what each file holds, how to read one.

A batch is a folder `tests/safety/fresh/<date>/` with one `<language>.yaml` a language.
It is written blind (before reading any rule) and scored before any fix, so its first
score says how the screen meets wording nobody predicted; it is never tuned on.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

import yaml

FRESH_FOLDER = Path(__file__).resolve().parent.parent / "tests" / "safety" / "fresh"

ENGLISH = ("en",)
# The languages the screen had rules for before issue 24, besides English.
FIRST_LANGUAGES = ("es", "de", "fr", "pt", "it", "nl", "pl", "ru", "tr", "hi")
# The languages issue 24 adds.
NEW_LANGUAGES = ("ar", "zh", "ja", "ko", "uk", "sv", "id", "tl", "ro", "el", "vi")
LANGUAGES = ENGLISH + FIRST_LANGUAGES + NEW_LANGUAGES

# crisis and danger want the full reply; softened at most a check; urge and contacted
# want their intent found; ordinary talk wants nothing.
LABELS = ("crisis", "danger", "softened", "urge", "contacted", "ordinary")

# The least a batch holds per label: English is the larger set.
ENGLISH_MINIMUM = {
    "crisis": 60,
    "danger": 50,
    "softened": 40,
    "urge": 20,
    "contacted": 20,
    "ordinary": 80,
}
LANGUAGE_MINIMUM = {
    "crisis": 25,
    "danger": 20,
    "softened": 15,
    "urge": 8,
    "contacted": 8,
    "ordinary": 30,
}

# A focused batch covers one group of languages only (English with the ten first ones, or
# the eleven new ones) and is written smaller, to meet a group's new wording quickly: its
# figures are read for the group first, each language's resting on a few phrases.
FOCUSED_GROUPS = (ENGLISH + FIRST_LANGUAGES, NEW_LANGUAGES)
FOCUSED_MINIMUM = {
    "crisis": 8,
    "danger": 7,
    "softened": 5,
    "urge": 2,
    "contacted": 2,
    "ordinary": 5,
}


def minimum(language: str, focused: bool = False) -> dict[str, int]:
    if focused:
        return FOCUSED_MINIMUM
    return ENGLISH_MINIMUM if language in ENGLISH else LANGUAGE_MINIMUM


def batch_languages(folder: Path) -> set[str]:
    return {path.stem for path in folder.glob("*.yaml")}


def is_focused(folder: Path) -> bool:
    """A batch of exactly one language group, not all of them."""
    return any(batch_languages(folder) == set(group) for group in FOCUSED_GROUPS)


@dataclass(frozen=True)
class LanguageFile:
    """One language of a batch, as written."""

    path: Path
    language: str
    written: str
    labels: dict[str, tuple[str, ...]]


class BatchFileError(ValueError):
    """A batch file that cannot be read as a language's labelled phrases."""


def batch_folders(root: Path = FRESH_FOLDER) -> list[Path]:
    """Every batch, oldest first (the folders are named by date, so names sort by age)."""
    if not root.is_dir():
        return []
    return sorted(path for path in root.iterdir() if path.is_dir() and any(path.glob("*.yaml")))


def newest_batch(root: Path = FRESH_FOLDER) -> Path | None:
    folders = batch_folders(root)
    return folders[-1] if folders else None


def read_language(path: Path) -> LanguageFile:
    """One `<language>.yaml`: its language, its date and its phrases by label."""
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise BatchFileError(f"{path.name}: cannot be read ({error})") from None
    if not isinstance(loaded, dict) or not isinstance(loaded.get("labels"), dict):
        raise BatchFileError(f"{path.name}: wants `language`, `written` and `labels`")
    labels: dict[str, tuple[str, ...]] = {}
    for label, phrases in loaded["labels"].items():
        if label not in LABELS:
            raise BatchFileError(f"{path.name}: unknown label {label!r}")
        if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
            raise BatchFileError(f"{path.name}: {label} must be a list of texts")
        labels[label] = tuple(phrases)
    return LanguageFile(
        path=path,
        language=str(loaded.get("language", "")),
        written=str(loaded.get("written", "")),
        labels=labels,
    )


def read_batch(folder: Path) -> list[LanguageFile]:
    """Every language file of a batch, in the order of LANGUAGES, then any others by name."""
    files = {path.stem: path for path in folder.glob("*.yaml")}
    order = [name for name in LANGUAGES if name in files]
    order += sorted(set(files) - set(LANGUAGES))
    return [read_language(files[name]) for name in order]


def same_phrase(text: str) -> str:
    """A phrase as compared for duplicates: case, width and spacing do not make it new."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())
