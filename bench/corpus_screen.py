"""The labelled corpus scored against the safety screen, per language and label.

Run from the repo root:

    .venv/bin/python bench/corpus_screen.py              # every file in the corpus folder
    .venv/bin/python bench/corpus_screen.py de fr        # only these languages
    .venv/bin/python bench/corpus_screen.py --misses de  # and each message that got the wrong reply
    .venv/bin/python bench/corpus_screen.py --record "First contact" --under "Ten languages" de fr

Every message of content/detection/corpus/<language>.yaml goes through the screen's
`detect` with the whole pack, as `steady detect --json` runs it (the user's locale is the
message's language where the pack has that locale, else the pack's default: every
language's rules run either way). What each label should get:

- crisis, danger: the full reply (crisis or danger first); a check at least.
- softened (the same words, but past, negated, someone else's, quoted, an accident): a
  check, not the full reply; none is not wrong, but says the words went unseen.
- urge, contacted: the pause offered (the urge or contacted reply), no safety reply.
- ordinary: nothing; a full reply at most 3% of the time, a check at most 10%.

`--part tuning` or `--part held-out` scores only one part of each file, cut by a hash of
each text (about 3 in 10 messages held out): a rule change tuned on the misses of the
tuning part is measured fairly on the held-out part, whose misses were never read.

`--record HEADING --under TITLE` writes the table as a `#### HEADING` block inside the
`### TITLE` part of the `## Safety screen: first contact` section of bench/RESULTS.md,
replacing an older block of that heading and leaving everything else as it is (several
batches keep their parts of that section side by side).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from bench.common import REPO, machine, shown_command
from bench.results import RESULTS_FILE
from bot.content_pack.loader import load_pack
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen

CORPUS = REPO / "content" / "detection" / "corpus"
SECTION = "Safety screen: first contact"
LABELS = ("crisis", "danger", "softened", "urge", "contacted", "ordinary")
FULL = frozenset({ReplyLevel.CRISIS, ReplyLevel.DANGER})
WANTED = {
    "crisis": FULL,
    "danger": FULL,
    "softened": frozenset({ReplyLevel.CHECK}),
    "urge": frozenset({ReplyLevel.URGE}),
    "contacted": frozenset({ReplyLevel.CONTACTED}),
    "ordinary": frozenset({ReplyLevel.NONE, ReplyLevel.URGE, ReplyLevel.CONTACTED}),
}


@dataclass(frozen=True, slots=True)
class Scored:
    label: str
    text: str
    reply: ReplyLevel


@dataclass(frozen=True, slots=True)
class LanguageScore:
    language: str
    scored: tuple[Scored, ...]

    def of(self, *labels: str) -> list[Scored]:
        return [item for item in self.scored if item.label in labels]

    def count(self, labels: Sequence[str], replies: Iterable[ReplyLevel]) -> tuple[int, int]:
        """(how many of these labels got one of these replies, how many there are)."""
        wanted = frozenset(replies)
        items = self.of(*labels)
        return sum(item.reply in wanted for item in items), len(items)


def read_corpus(language: str) -> dict[str, list[str]]:
    data = yaml.safe_load((CORPUS / f"{language}.yaml").read_text("utf-8"))
    if data.get("language") != language:
        raise SystemExit(f"{language}.yaml names language {data.get('language')!r}")
    labels = data.get("labels") or {}
    unknown = set(labels) - set(LABELS)
    if unknown:
        raise SystemExit(f"{language}.yaml: unknown labels {sorted(unknown)}")
    return {label: [str(text) for text in labels.get(label) or []] for label in LABELS}


HELD_OUT_TENTHS = 3
PARTS = ("all", "tuning", "held-out")


def part_of(text: str) -> str:
    """The part a message falls in: fixed by its text alone, so it never moves."""
    tenth = hashlib.sha256(text.encode("utf-8")).digest()[0] % 10
    return "held-out" if tenth < HELD_OUT_TENTHS else "tuning"


def score(screen: SafetyScreen, language: str, locale: str, part: str = "all") -> LanguageScore:
    scored = [
        Scored(label, text, screen.detect(text, locale).reply)
        for label, texts in read_corpus(language).items()
        for text in texts
        if part == "all" or part_of(text) == part
    ]
    return LanguageScore(language, tuple(scored))


def _cell(counted: tuple[int, int]) -> str:
    hits, total = counted
    return "–" if total == 0 else f"{hits}/{total} ({hits / total:.0%})"


HEADER = (
    "| Language | Crisis+danger: full | full or check | Softened: check | full | none"
    " | Ordinary: full | check | Urge: pause | Contacted: pause |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def row(result: LanguageScore) -> str:
    serious = ("crisis", "danger")
    none = (ReplyLevel.NONE, ReplyLevel.URGE, ReplyLevel.CONTACTED)
    cells = [
        result.count(serious, FULL),
        result.count(serious, FULL | {ReplyLevel.CHECK}),
        result.count(["softened"], [ReplyLevel.CHECK]),
        result.count(["softened"], FULL),
        result.count(["softened"], none),
        result.count(["ordinary"], FULL),
        result.count(["ordinary"], [ReplyLevel.CHECK]),
        result.count(["urge"], [ReplyLevel.URGE]),
        result.count(["contacted"], [ReplyLevel.CONTACTED]),
    ]
    return f"| {result.language} | " + " | ".join(_cell(cell) for cell in cells) + " |"


def table(results: Sequence[LanguageScore]) -> str:
    lines = [HEADER, *(row(result) for result in results)]
    if len(results) > 1:
        everything = LanguageScore("all", tuple(s for result in results for s in result.scored))
        lines.append(row(everything).replace("| all |", "| **all** |"))
    return "\n".join(lines)


def misses(result: LanguageScore) -> str:
    lines = [f"{result.language}:"]
    for item in result.scored:
        if item.reply not in WANTED[item.label]:
            lines.append(f"  [{item.label} -> {item.reply.value}] {item.text}")
    return "\n".join(lines)


def record(heading: str, under: str, body: str, path: Path = RESULTS_FILE) -> None:
    """Put `#### heading` with `body` inside `### under` of the first-contact section."""
    text = path.read_text("utf-8") if path.exists() else ""
    lines = text.splitlines()
    block = [f"#### {heading}", "", *body.strip().splitlines(), ""]

    def end_of(start: int, levels: tuple[str, ...]) -> int:
        for index in range(start + 1, len(lines)):
            if lines[index].startswith(levels):
                return index
        return len(lines)

    section = _find(lines, f"## {SECTION}", 0, len(lines))
    if section is None:
        lines += ["", f"## {SECTION}", ""]
        section = len(lines) - 2
    section_end = end_of(section, ("## ",))
    part = _find(lines, f"### {under}", section, section_end)
    if part is None:
        lines[section_end:section_end] = [f"### {under}", ""]
        part = section_end
        section_end += 2
    part_end = end_of(part, ("## ", "### "))
    old = _find(lines, f"#### {heading}", part, part_end)
    if old is None:
        if part_end > 0 and lines[part_end - 1].strip():
            block.insert(0, "")
        lines[part_end:part_end] = block
    else:
        lines[old : end_of(old, ("## ", "### ", "#### "))] = block
    path.write_text("\n".join(lines).rstrip("\n") + "\n", "utf-8")


def _find(lines: list[str], heading: str, start: int, end: int) -> int | None:
    for index in range(start, end):
        if lines[index].strip() == heading:
            return index
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("languages", nargs="*", help="language codes (default: every file)")
    parser.add_argument("--misses", action="store_true", help="list the wrongly answered")
    parser.add_argument("--part", choices=PARTS, default="all", help="score one part only")
    parser.add_argument("--record", metavar="HEADING", help="write the table to RESULTS.md")
    parser.add_argument("--under", metavar="TITLE", help="the ### part to write it in")
    args = parser.parse_args(argv)
    if args.record and not args.under:
        parser.error("--record needs --under")
    languages = args.languages or sorted(path.stem for path in CORPUS.glob("*.yaml"))
    pack = load_pack(REPO / "content", "en")
    screen = SafetyScreen(pack)
    results = [
        score(screen, code, code if code in pack.locales else pack.default_locale, args.part)
        for code in languages
    ]
    shown = table(results)
    print(shown)
    if args.misses:
        for result in results:
            print(misses(result))
    if args.record:
        argv_shown = ["bench/corpus_screen.py", *(argv if argv is not None else sys.argv[1:])]
        body = f"Command: `{shown_command(argv_shown)}`\n\n{machine().describe()}\n\n{shown}"
        record(args.record, args.under, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
