"""Every verdict the safety screen gives on the repository's own phrases, written one per
line: what a change meant only to make the screen faster must leave exactly as it was.

Run from the repo root, before and after such a change, and compare the two files:

    .venv/bin/python bench/screen_verdicts.py before.jsonl
    .venv/bin/python bench/screen_verdicts.py after.jsonl
    cmp before.jsonl after.jsonl

It runs with a fixed PYTHONHASHSEED (it starts itself again with one when none is set):
which rule a match is named by can follow the order of a set of strings, and that order
changes with Python's hash seed from one process to the next.

The phrases are every string of every labelled file (tests/safety/*.yaml, the fresh
batches under tests/safety/fresh/, the training corpus under content/detection/corpus/),
each screened as written, and long messages made of them (every twenty phrases of a file
joined into one message, and those blocks joined up to 100,000 characters), so the long
path (pieces, many matches and their contexts in one text) is held to the same. Each is
screened in the locale of its file's language where the pack has that locale, and in
English. A line holds the reply level, every rule that matched (intent, rule, full or
softened), the learned stage's language, score and whether it raised the reply, and the
language the reply would be written in: everything the user would see follow from it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from bench.common import REPO
from bot.content_pack.loader import load_pack
from bot.core.clock import ManualClock
from bot.safety.screen import SafetyScreen

SOURCES = ("tests/safety/*.yaml", "tests/safety/fresh/*/*.yaml", "content/detection/corpus/*.yaml")
HASH_SEED = "0"
BLOCK = 20  # phrases joined into one long message
LONGEST = 100_000
TODAY = datetime(2026, 12, 2, 12, tzinfo=UTC)  # a year's being past depends on the day


def strings(data: Any) -> Iterator[str]:
    """Every string in a parsed YAML document, in document order."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from strings(value)
    elif isinstance(data, list):
        for item in data:
            yield from strings(item)


def messages(path: Path) -> Iterator[str]:
    phrases = list(dict.fromkeys(strings(yaml.safe_load(path.read_text("utf-8")))))
    yield from phrases
    blocks = [" ".join(phrases[at : at + BLOCK]) for at in range(0, len(phrases), BLOCK)]
    yield from blocks[1:] if len(blocks) > 1 else ()
    joined = "\n".join(blocks)
    if len(joined) > 4096:
        yield joined[:LONGEST]


def language_of(path: Path) -> str | None:
    data = yaml.safe_load(path.read_text("utf-8"))
    found = data.get("language") if isinstance(data, dict) else None
    return found if isinstance(found, str) else path.stem if len(path.stem) == 2 else None


def verdict(screen: SafetyScreen, text: str, locale: str) -> dict[str, Any]:
    detection = screen.detect(text, locale)
    model = detection.model
    return {
        "text": hashlib.sha256(text.encode("utf-8")).hexdigest()[:16],
        "locale": locale,
        "reply": detection.reply.value,
        "matches": [[m.intent.value, m.rule_id, m.full] for m in detection.matches],
        "model": None if model is None else [model.language, model.score, model.raised],
        "leans_danger": detection.check_leans_danger,
        "reply_language": screen.reply_locale(detection, locale),
    }


def main(argv: list[str] | None = None) -> int:
    if os.environ.get("PYTHONHASHSEED") != HASH_SEED:
        env = os.environ | {"PYTHONHASHSEED": HASH_SEED}
        return subprocess.run([sys.executable, *sys.argv], env=env, check=False).returncode
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path, help="where to write the verdicts, one a line")
    args = parser.parse_args(argv)
    content = load_pack(REPO / "content", "en")
    # A fixed day: the verdicts must not change with the date they are taken on.
    screen = SafetyScreen(content, clock=ManualClock(TODAY))
    if screen.second_stage.model() is None:
        raise SystemExit("the learned stage did not load: its verdicts would not be compared")
    count = 0
    with args.output.open("w", encoding="utf-8") as out:
        for pattern in SOURCES:
            for path in sorted(REPO.glob(pattern)):
                own = language_of(path)
                locales = ["en", *([own] if own in content.locales and own != "en" else [])]
                for text in messages(path):
                    for locale in locales:
                        line = {"file": str(path.relative_to(REPO))}
                        line |= verdict(screen, text, locale)
                        out.write(json.dumps(line, ensure_ascii=False) + "\n")
                        count += 1
    print(f"{count} verdicts written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
