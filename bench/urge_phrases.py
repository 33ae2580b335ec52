"""The urge and contacted phrases of the twenty languages scored against the screen.

Run from the repo root:

    .venv/bin/python bench/urge_phrases.py            # the table
    .venv/bin/python bench/urge_phrases.py --misses   # and each phrase answered wrongly
    .venv/bin/python bench/urge_phrases.py --record "First contact"

Each phrase of tests/safety/phrases_urge_contacted.yaml goes through the screen's
`detect` with the whole pack under the English locale (every language's rules run
whatever the locale). An urge phrase should get the urge reply (the pause), a contacted
phrase the contacted reply, and a phrase under `not` no reply at all. `--record HEADING`
writes the table as a `#### HEADING` block inside the "Urge and contacted in twenty
languages" part of the first-contact section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

import yaml

from bench.common import REPO, machine, shown_command
from bench.corpus_screen import record
from bot.content_pack.loader import load_pack
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen

PHRASES = REPO / "tests" / "safety" / "phrases_urge_contacted.yaml"
PART = "Urge and contacted in twenty languages (issue 24)"
WANTED = {"urge": ReplyLevel.URGE, "contacted": ReplyLevel.CONTACTED, "not": ReplyLevel.NONE}


@dataclass(frozen=True, slots=True)
class Answered:
    language: str
    kind: str
    text: str
    reply: ReplyLevel

    @property
    def right(self) -> bool:
        return self.reply is WANTED[self.kind]


def answered(screen: SafetyScreen) -> list[Answered]:
    languages = yaml.safe_load(PHRASES.read_text("utf-8"))["languages"]
    return [
        Answered(language, kind, text, screen.detect(text, "en").reply)
        for language, kinds in languages.items()
        for kind, texts in kinds.items()
        for text in texts
    ]


def _cell(items: list[Answered]) -> str:
    right = sum(item.right for item in items)
    return "–" if not items else f"{right}/{len(items)}"


def table(results: list[Answered]) -> str:
    lines = [
        "| Language | Urge: pause | Contacted: pause | Not: nothing | Any safety reply |",
        "|---|---:|---:|---:|---:|",
    ]
    languages = list(dict.fromkeys(item.language for item in results))
    for language in [*languages, "all"]:
        mine = [item for item in results if language in ("all", item.language)]
        cells = [_cell([item for item in mine if item.kind == kind]) for kind in WANTED]
        safety = sum(
            item.reply in (ReplyLevel.CRISIS, ReplyLevel.DANGER, ReplyLevel.CHECK) for item in mine
        )
        name = "**all**" if language == "all" else language
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {safety}/{len(mine)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="list the wrongly answered")
    parser.add_argument("--record", metavar="HEADING", help="write the table to RESULTS.md")
    args = parser.parse_args(argv)
    results = answered(SafetyScreen(load_pack(REPO / "content", "en")))
    shown = table(results)
    print(shown)
    if args.misses:
        for item in results:
            if not item.right:
                print(f"  {item.language} [{item.kind} -> {item.reply.value}] {item.text}")
    if args.record:
        argv_shown = ["bench/urge_phrases.py", *(argv if argv is not None else sys.argv[1:])]
        body = f"Command: `{shown_command(argv_shown)}`\n\n{machine().describe()}\n\n{shown}"
        record(args.record, PART, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
