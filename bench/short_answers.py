"""How often the learned stage would raise ordinary talk to the "are you safe?" check.

Run from the repo root:

    .venv/bin/python bench/short_answers.py            # the figures, as markdown
    .venv/bin/python bench/short_answers.py --show     # also each raised message, scored

Three kinds of harmless text, each screened as the bot screens a private message of an
English-locale user, with the learned stage allowed to raise (every language's rules run
first, whatever the locale):

- the short answers people type at the bot's own steps (tests/safety/short_answers.yaml:
  times, days, dates, places, numbers, yes and no, moods, names), kept out of the corpus;
- the ordinary talk of the corpus (content/detection/corpus/), by split: the training
  split was learned from, so only validation and test say anything about unseen talk;
- the ordinary talk of a fresh batch (tests/safety/fresh/<date>/), with the batch's crisis
  and danger messages the model raised, by length (how many a gate on length would lose).

A check counts when the model raised it (the rules gave none); the rules' own checks of
the same texts are counted apart. This is a measurement: nothing is written to
bench/RESULTS.md (its section is kept by hand, before and after a change, side by side).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from bench.common import REPO, machine, shown_command
from bench.fresh_batch_files import newest_batch, read_batch
from bot.content_pack.loader import load_pack
from bot.safety.corpus import LANGUAGE_GROUPS, Split, read_corpus, split_of
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen

SHORT_ANSWERS = REPO / "tests" / "safety" / "short_answers.yaml"
LOCALE = "en"
RULES_REPLIES = (ReplyLevel.CHECK, ReplyLevel.CRISIS, ReplyLevel.DANGER)
DANGEROUS = ("crisis", "danger")
# Lengths (in words) of the crisis and danger messages the model raised: how many a gate
# that let it raise only from a certain length would give up.
LENGTHS = ((1, 2), (3, 3), (4, 5), (6, 1000))


@dataclass(frozen=True, slots=True)
class Read:
    language: str
    kind: str  # a short answer's category, a corpus split, or a batch label
    text: str
    raised: bool  # the model raised it to a check (the rules left it below one)
    rules_check: bool  # the rules themselves gave a check or more
    score: float


def read_text(screen: SafetyScreen, language: str, kind: str, text: str) -> Read:
    detection = screen.detect(text, LOCALE)
    verdict = detection.model
    return Read(
        language=language,
        kind=kind,
        text=text,
        raised=verdict is not None and verdict.raised,
        rules_check=detection.reply in RULES_REPLIES and not (verdict and verdict.raised),
        score=0.0 if verdict is None else verdict.score,
    )


def short_answers(screen: SafetyScreen, path: Path) -> list[Read]:
    data = yaml.safe_load(path.read_text("utf-8"))
    return [
        read_text(screen, language, kind, text)
        for language, kinds in data.items()
        for kind, texts in kinds.items()
        for text in texts
    ]


def corpus_ordinary(screen: SafetyScreen) -> list[Read]:
    corpus, problems = read_corpus(REPO / "content")
    if problems:
        raise SystemExit("\n".join(str(problem) for problem in problems))
    return [
        read_text(screen, example.language, split_of(example.language, example.text).value, text)
        for example in corpus.examples
        if example.label == "ordinary"
        for text in [example.text]
    ]


def batch(screen: SafetyScreen, folder: Path) -> list[Read]:
    return [
        read_text(screen, file.language, label, text)
        for file in read_batch(folder)
        for label, texts in file.labels.items()
        if label in ("ordinary", *DANGEROUS)
        for text in texts
    ]


def group_of(language: str) -> str:
    for name, languages in LANGUAGE_GROUPS.items():
        if language in languages:
            return name
    return "other"


def rate(reads: Iterable[Read]) -> str:
    found = list(reads)
    raised = sum(read.raised for read in found)
    share = 100 * raised / len(found) if found else 0.0
    return f"{share:.1f}% ({raised}/{len(found)})"


def words(text: str) -> int:
    """Words as the reader counts them; a character of a script written without spaces
    (CJK, kana, Hangul syllables) counts as a third of a word, rounded up."""
    wide = sum(1 for char in text if "\u2e80" <= char <= "\u9fff" or "\uac00" <= char <= "\ud7af")
    return len(text.split()) + (wide + 2) // 3


def report(answers: list[Read], ordinary: list[Read], fresh: list[Read], batch_name: str) -> str:
    lines = ["Short answers at the bot's steps (`tests/safety/short_answers.yaml`):", ""]
    lines += ["| Language | Kind | Raised to a check by the model |", "|---|---|---:|"]
    for language in dict.fromkeys(read.language for read in answers):
        own = [read for read in answers if read.language == language]
        for kind in dict.fromkeys(read.kind for read in own):
            lines.append(f"| {language} | {kind} | {rate(r for r in own if r.kind == kind)} |")
        lines.append(f"| {language} | **all** | **{rate(own)}** |")
    lines += ["", "Ordinary talk of the corpus, by split (training was learned from):", ""]
    lines += ["| Group | Train | Validation | Test |", "|---|---:|---:|---:|"]
    for name in [*LANGUAGE_GROUPS, "all"]:
        own = [read for read in ordinary if name == "all" or group_of(read.language) == name]
        cells = [rate(r for r in own if r.kind == split.value) for split in Split]
        lines.append(f"| {name} | {' | '.join(cells)} |")
    lines += ["", f"Fresh batch {batch_name}, read before (not a blind measure any more):", ""]
    lines += [
        "| Group | Ordinary: raised to a check | Crisis + danger: raised by the model |",
        "|---|---:|---:|",
    ]
    for name in [*LANGUAGE_GROUPS, "all"]:
        own = [read for read in fresh if name == "all" or group_of(read.language) == name]
        talk = [read for read in own if read.kind == "ordinary"]
        dangerous = [read for read in own if read.kind in DANGEROUS]
        lines.append(f"| {name} | {rate(talk)} | {rate(dangerous)} |")
    raised = [read for read in fresh if read.kind in DANGEROUS and read.raised]
    lengths = Counter(
        next(f"{low}-{high}" for low, high in LENGTHS if low <= words(read.text) <= high)
        for read in raised
    )
    shown = ", ".join(f"{span} words: {lengths.get(span, 0)}" for span in _spans())
    lines += ["", f"Crisis and danger the model raised, by length: {shown}."]
    return "\n".join(lines)


def _spans() -> list[str]:
    return [f"{low}-{high}" for low, high in LENGTHS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=Path, help="a fresh batch (default: the newest)")
    parser.add_argument("--show", action="store_true", help="print each raised message")
    args = parser.parse_args(argv)
    screen = SafetyScreen(load_pack(REPO / "content", LOCALE), model_raises=True)
    if screen.second_stage.model() is None:
        raise SystemExit(f"the learned stage did not load: {screen.second_stage.status.reason}")
    folder = args.batch or newest_batch()
    if folder is None:
        raise SystemExit("no fresh batch found")
    answers = short_answers(screen, SHORT_ANSWERS)
    ordinary = corpus_ordinary(screen)
    fresh = batch(screen, folder)
    print(f"Command, from the repo root: `{shown_command(['bench/short_answers.py'])}`\n")
    print(machine().describe() + "\n")
    print(report(answers, ordinary, fresh, folder.name))
    if args.show:
        print("\nRaised (language, kind, score | text):")
        for read in [*answers, *ordinary, *fresh]:
            if read.raised:
                text = read.text.replace("\n", " / ")
                print(f"{read.language} {read.kind} {read.score:.3f} | {text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
