"""The labelled corpus the learned safety stage learns from, and how it is split.

Format (fixed: several people add messages to it at once). One file per language,
`content/detection/corpus/<language>.yaml`, its name the language's code:

```yaml
language: en          # the same code as the file's name
labels:
  crisis: ["...", ...]      # suicide, self-harm, wanting to die: about the writer, now
  danger: [...]             # danger from another person, now
  softened: [...]           # the same words softened: the past, a negation, someone
                            # else, a quote or a title, an accident, talk about the
                            # topic, the news
  urge: [...]               # the pull to reach out to the person, or to go back
  contacted: [...]          # the person got in touch
  ordinary: [...]           # everything else, hard negatives included: hyperbole,
                            # gaming, cooking accidents, grief for someone who died
```

Messages are strings only, with no ids; a message may span lines (a YAML block). A label
may be left out. Unknown keys or labels, items that are not strings, empty strings and
duplicates (the same message twice in a file, in one label or two, compared as the
screen reads them: normalised) are errors, which `steady content check` reports as
`file:line: problem`.

The split into training, validation and test is not stored: it is derived from a stable
hash (SHA-256) of each language and message, 70/15/15, so adding messages never moves
another message, and nobody adding messages has to think about splits.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from bot.content_pack.findings import Finding
from bot.content_pack.yaml_lines import LocatedYaml, YamlSyntaxError, load_located
from bot.safety.normalise import normalise

_Report = Callable[[int, str], None]  # a problem on a line of the file being read

CORPUS_DIR = Path("detection") / "corpus"  # inside the content folder
LABELS = ("crisis", "danger", "softened", "urge", "contacted", "ordinary")
DANGEROUS = frozenset({"crisis", "danger"})  # what must get the full reply or a check
HARMLESS = frozenset({"urge", "contacted", "ordinary"})  # what a check would be wrong for
# The languages as the issue that added them groups them: English, the ten first
# languages beside it, and the eleven added with the learned stage.
LANGUAGE_GROUPS = {
    "en": ("en",),
    "first ten": ("es", "de", "fr", "pt", "it", "nl", "pl", "ru", "tr", "hi"),
    "new eleven": ("ar", "zh", "ja", "ko", "uk", "sv", "id", "tl", "ro", "el", "vi"),
}
_KEYS = frozenset({"language", "labels"})
# Percent of messages in training and in validation; the rest is the test split.
TRAIN_PERCENT = 70
VALIDATION_PERCENT = 15


class Split(StrEnum):
    TRAIN = "train"
    VALIDATION = "validation"
    TEST = "test"


def split_of(language: str, text: str) -> Split:
    """Where a message belongs, for good: from its language and its text alone."""
    digest = hashlib.sha256(f"{language}\n{text}".encode()).digest()
    bucket = int.from_bytes(digest[:8], "big") % 100
    if bucket < TRAIN_PERCENT:
        return Split.TRAIN
    if bucket < TRAIN_PERCENT + VALIDATION_PERCENT:
        return Split.VALIDATION
    return Split.TEST


@dataclass(frozen=True, slots=True)
class Example:
    language: str
    label: str
    text: str

    @property
    def split(self) -> Split:
        return split_of(self.language, self.text)

    @property
    def dangerous(self) -> bool:
        return self.label in DANGEROUS


@dataclass(frozen=True)
class Corpus:
    examples: tuple[Example, ...]

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(sorted({example.language for example in self.examples}))

    def of(self, split: Split, language: str | None = None) -> tuple[Example, ...]:
        return self.of_languages(split, None if language is None else (language,))

    def of_languages(self, split: Split, languages: tuple[str, ...] | None) -> tuple[Example, ...]:
        """The split's messages in these languages (None: in every language)."""
        return tuple(
            example
            for example in self.examples
            if example.split is split and (languages is None or example.language in languages)
        )

    @property
    def digest(self) -> str:
        """SHA-256 of what the messages say, not of how the files are laid out: a comment
        or a reordering changes nothing, a message added, removed or relabelled does."""
        rows = sorted((example.language, example.label, example.text) for example in self.examples)
        return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()


def read_corpus(content_dir: Path) -> tuple[Corpus, list[Finding]]:
    """Every corpus file's messages, and every problem found in them. A file with a
    problem still gives its well-formed messages, so one typo never hides the rest."""
    folder = content_dir / CORPUS_DIR
    examples: list[Example] = []
    problems: list[Finding] = []
    if folder.is_dir():
        for path in sorted(folder.glob("*.yaml")):
            found, wrong = _read_file(path)
            examples += found
            problems += wrong
    return Corpus(tuple(examples)), problems


def _read_file(path: Path) -> tuple[list[Example], list[Finding]]:
    problems: list[Finding] = []

    def problem(line: int, message: str) -> None:
        problems.append(Finding(f"{path}:{line}", message))

    try:
        located = load_located(path.read_text("utf-8"))
    except YamlSyntaxError as error:
        problem(error.line, error.message)
        return [], problems
    except UnicodeDecodeError:
        problem(1, "not UTF-8 text")
        return [], problems
    data = located.data
    if not isinstance(data, dict):
        problem(1, "expected `language:` and `labels:`")
        return [], problems
    for key in sorted(set(data) - _KEYS, key=str):
        problem(located.line_of((key,)), f"unknown key {key!r} (expected language, labels)")
    language = data.get("language")
    if language != path.stem:
        problem(located.line_of(("language",)), f"language must be {path.stem!r}, as the file")
    labels = data.get("labels")
    if not isinstance(labels, dict):
        problem(located.line_of(("labels",)), "labels must map each label to a list of messages")
        return [], problems
    return _messages(path.stem, labels, located, problem), problems


def _messages(
    language: str, labels: dict[object, object], located: LocatedYaml, problem: _Report
) -> list[Example]:
    examples: list[Example] = []
    first_seen: dict[str, int] = {}
    for label, items in labels.items():
        if label not in LABELS:
            wanted = ", ".join(LABELS)
            problem(located.line_of(("labels", str(label))), f"unknown label {label!r} ({wanted})")
            continue
        if not isinstance(items, list):
            problem(located.line_of(("labels", label)), f"{label}: expected a list of messages")
            continue
        for index, text in enumerate(items):
            line = located.line_of(("labels", label, index))
            if not isinstance(text, str):
                problem(line, f"{label}: a message must be a string, not {type(text).__name__}")
                continue
            key = normalise(text)
            if not key:
                problem(line, f"{label}: empty message")
                continue
            if key in first_seen:
                problem(line, f"{label}: the same message as on line {first_seen[key]}")
                continue
            first_seen[key] = line
            examples.append(Example(language, label, text))
    return examples
