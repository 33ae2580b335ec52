"""The safety screen's rules, scored on the labelled corpus of each language
(content/detection/corpus/<language>.yaml): what each label gets back.

Run from the repo root:

    .venv/bin/python bench/language_corpus.py               # every language with a corpus
    .venv/bin/python bench/language_corpus.py ar zh --misses  # these, listing what was missed

For each language it prints how many crisis and danger messages were caught (the full
reply or a check) and how many got the full reply, what softened mentions got (a full reply
there is an over-reaction, a check is fine), and how often ordinary talk got a full reply
or a check. This is the rules alone, as `Detector.detect` answers; the figures belong in
bench/RESULTS.md under "Safety screen: first contact" when a corpus or its rules change
(the first run of a new corpus, before any rule was written for it, is the one that says
how the rules meet new wording).
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

from bench.common import REPO
from bot.content_pack.loader import load_pack
from bot.safety.rules import Detector, ReplyLevel
from bot.safety.screen import SafetyScreen

CORPUS = REPO / "content" / "detection" / "corpus"
FULL = frozenset({ReplyLevel.CRISIS, ReplyLevel.DANGER})
CAUGHT = FULL | {ReplyLevel.CHECK}


@dataclass(frozen=True)
class Score:
    language: str
    replies: dict[str, Counter[ReplyLevel]]  # label -> how often each reply was given
    misses: dict[str, list[str]]  # label -> the messages that got the wrong kind of reply

    def share(self, labels: tuple[str, ...], levels: frozenset[ReplyLevel]) -> tuple[int, int]:
        got = sum(self.replies[label][level] for label in labels for level in levels)
        return got, sum(sum(self.replies[label].values()) for label in labels)


def score(detector: Detector, path: Path) -> Score:
    data = yaml.safe_load(path.read_text("utf-8"))
    replies: dict[str, Counter[ReplyLevel]] = {}
    misses: dict[str, list[str]] = {}
    for label, texts in data["labels"].items():
        replies[label] = Counter()
        misses[label] = []
        for text in texts:
            reply = detector.detect(text).reply
            replies[label][reply] += 1
            if _wrong(label, reply):
                misses[label].append(f"[{reply.value}] {text}")
    return Score(data["language"], replies, misses)


def _wrong(label: str, reply: ReplyLevel) -> bool:
    if label in ("crisis", "danger"):
        return reply not in FULL
    if label in ("softened", "ordinary"):
        return reply in FULL or (label == "ordinary" and reply is ReplyLevel.CHECK)
    return reply is not ReplyLevel(label)


def _percent(pair: tuple[int, int]) -> str:
    got, total = pair
    return f"{got}/{total} ({got / total:.0%})" if total else "-"


def table(scores: list[Score]) -> str:
    rows = [
        "| Language | Crisis + danger caught | … full reply | Softened: full | "
        "Ordinary: full | Ordinary: check | Urge / contacted recognised |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    totals: Counter[str] = Counter()
    for item in scores:
        figures = {
            "caught": item.share(("crisis", "danger"), CAUGHT),
            "full": item.share(("crisis", "danger"), FULL),
            "softened": item.share(("softened",), FULL),
            "ordinary_full": item.share(("ordinary",), FULL),
            "ordinary_check": item.share(("ordinary",), frozenset({ReplyLevel.CHECK})),
        }
        urge = item.share(("urge",), frozenset({ReplyLevel.URGE}))
        contacted = item.share(("contacted",), frozenset({ReplyLevel.CONTACTED}))
        pause = (urge[0] + contacted[0], urge[1] + contacted[1])
        figures["pause"] = pause
        for name, (got, total) in figures.items():
            totals[f"{name}/got"] += got
            totals[f"{name}/total"] += total
        rows.append(
            f"| {item.language} | {_percent(figures['caught'])} | {_percent(figures['full'])} | "
            f"{_percent(figures['softened'])} | {_percent(figures['ordinary_full'])} | "
            f"{_percent(figures['ordinary_check'])} | {_percent(figures['pause'])} |"
        )
    if len(scores) > 1:

        def total(name: str) -> str:
            return _percent((totals[f"{name}/got"], totals[f"{name}/total"]))

        rows.append(
            f"| all | {total('caught')} | {total('full')} | {total('softened')} | "
            f"{total('ordinary_full')} | {total('ordinary_check')} | {total('pause')} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("languages", nargs="*", help="language codes (default: every corpus)")
    parser.add_argument("--misses", action="store_true", help="list what each label missed")
    arguments = parser.parse_args()
    paths = sorted(CORPUS.glob("*.yaml"))
    if arguments.languages:
        paths = [CORPUS / f"{code}.yaml" for code in arguments.languages]
    detector = SafetyScreen(load_pack(REPO / "content", "en")).detector("en")
    scores = [score(detector, path) for path in paths]
    print(table(scores))
    if arguments.misses:
        for item in scores:
            for label, missed in item.misses.items():
                for text in missed:
                    print(f"{item.language} {label}: {text}")


if __name__ == "__main__":
    main()
