"""Fresh batch score: how the safety screen meets labelled phrases written blind.

Run from the repo root:

    .venv/bin/python bench/fresh_batch.py                     # the newest batch
    .venv/bin/python bench/fresh_batch.py tests/safety/fresh/2026-12-02 --run "first contact"
    .venv/bin/python bench/fresh_batch.py --json              # the figures, one JSON object last
    .venv/bin/python bench/fresh_batch.py --show-misses       # also list what was missed

Every phrase of the batch is screened as the bot screens a private message of an
English-locale user (`SafetyScreen.screen`, then `SafetyScreen.detect` when the screen sends
nothing, as the router does; every language's rules run whatever the locale). For each
language and label it counts the full reply (crisis or danger), the check and nothing, and
for urge and contacted whether their intent was found. A check raised by a learned stage
counts as a check.

The run is written as its own subsection of "Safety screen: first contact" in
bench/RESULTS.md (the same batch, run and commit replaces its earlier subsection; every
other subsection stays). `--run` names the run: "first contact" for the score taken before
any fix, anything else ("after the learned stage") for a later score of the same batch.

This is a measurement, not a test: the exit status is 0 whatever the figures (2 when the
batch cannot be read). The batch is never tuned on.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bench.common import REPO, Figure, _git, json_figures, machine, shown_command
from bench.fresh_batch_files import LABELS, BatchFileError, newest_batch, read_batch
from bench.fresh_batch_report import bar_figures, figures, run_heading, run_text, write_run
from bench.fresh_batch_scoring import Screened, screen_batch
from bot.content_pack.loader import load_pack
from bot.safety.screen import SafetyScreen

# The code a score depends on: the screen and the rules it reads.
SCREEN_PATHS = ("bot/safety", "content")


def scored_code(commit_hash: str) -> str:
    """Which screen was scored: the last commit that changed it, and whether it has changed
    since without a commit."""
    last = _git("log", "-1", "--format=%h", "--", *SCREEN_PATHS) or "unknown"
    changed = _git("status", "--porcelain", "--", *SCREEN_PATHS)
    branch = _git("rev-parse", "--abbrev-ref", "HEAD") or "unknown"
    note = ", with uncommitted changes to them" if changed else ""
    return (
        f"`bot/safety/` and `content/` as last changed at {last}{note}"
        f" (branch {branch}, HEAD {commit_hash})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, help="a batch (default: the newest)")
    parser.add_argument("--run", default="rescore", help='what this run is: "first contact"...')
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--no-write", action="store_true", help="leave bench/RESULTS.md alone")
    parser.add_argument("--show-misses", action="store_true", help="print what was missed")
    # The same rules without the learned stage: its "before", scored on the same commit.
    parser.add_argument("--rules-alone", action="store_true", help="leave the learned stage out")
    args = parser.parse_args(argv)

    folder = args.folder or newest_batch()
    if folder is None or not folder.is_dir():
        print(f"fresh_batch: no batch folder at {folder}", file=sys.stderr)
        return 2
    try:
        files = read_batch(folder)
    except BatchFileError as error:
        print(f"fresh_batch: {folder.name}/{error}", file=sys.stderr)
        return 2
    pack = load_pack(REPO / "content", "en")
    # A pack read from no folder has no learned stage: the rules screen alone.
    screen = SafetyScreen(replace(pack, folder=None) if args.rules_alone else pack)
    items = screen_batch(screen, files)

    host = machine()
    argv_shown = ["bench/fresh_batch.py", _shown_folder(folder), "--run", args.run]
    argv_shown += ["--rules-alone"] if args.rules_alone else []
    heading = run_heading(folder.name, args.run, host.commit)
    body = run_text(
        items,
        command=shown_command(argv_shown),
        machine_line=host.describe(),
        code=scored_code(host.commit),
    )
    if not args.no_write:
        write_run(heading, body)
    print(f"### {heading}\n\n{body}")
    if args.show_misses:
        print(misses_text(items))
    if args.json:
        found: dict[str, Figure] = {"batch": folder.name, "run": args.run}
        found.update(figures(items))
        measured, targets = bar_figures(items)
        found.update(measured)
        print(json_figures(found, targets, host.commit), flush=True)
    return 0


def _shown_folder(folder: Path) -> str:
    resolved = folder.resolve()
    return str(resolved.relative_to(REPO)) if resolved.is_relative_to(REPO) else str(folder)


def misses_text(items: list[Screened]) -> str:
    """For whoever studies the misses (never RESULTS.md): each phrase that did not get what
    its label wants, with what it got."""
    wanted: dict[str, Callable[[Screened], bool]] = {
        "crisis": lambda item: item.outcome.value == "full" and item.level == "crisis",
        "danger": lambda item: item.outcome.value == "full" and item.level == "danger",
        "softened": lambda item: item.outcome.value == "check",
        "urge": lambda item: item.offer == "urge",
        "contacted": lambda item: item.offer == "contacted",
        "ordinary": lambda item: item.outcome.value == "nothing" and item.offer is None,
    }
    lines = ["", "Misses (label: what it got | the phrase):"]
    for label in LABELS:
        for item in items:
            if item.label == label and not wanted[label](item):
                got = f"{item.outcome.value}/{item.level}" + (
                    f" offer {item.offer}" if item.offer else ""
                )
                text = item.text.replace("\n", " / ")
                lines.append(f"{item.language} {label}: {got} | {text}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
