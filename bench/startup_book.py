"""Start-up with and without the book of compiled detection patterns, side by side.

Run from the repo root:

    .venv/bin/python bench/startup_book.py

A start reads the content pack and builds the safety screen; most of that was parsing and
compiling the detection patterns of 22 languages in Python. With the book the data folder
keeps (bot/content_pack/pattern_book.py) a restart builds them from their compiled code
instead. Each run is a fresh process, taken in turns (without, with, without, ...) so the
load of a shared machine falls on both alike:

* the pack loaded and the screen built, as `open_services` does it (`loaded_pack`), in
  an empty data folder (the first start of an install: everything compiled, the book
  written) and in a folder holding the book (a restart);
* `steady detect --json`, start to answer, in the same two kinds of folder.

It prints a table, writes the "Start-up: the book of compiled patterns" section of
bench/RESULTS.md (unless --no-write) and, with --json, one JSON object last.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import REPO, machine, print_json_figures, shown_command
from bench.results import write_section

SECTION = "Start-up: the book of compiled patterns"
RUNS = 5


def child(data_dir: Path) -> None:
    """One start's pack and screen, timed: wall and CPU seconds, as JSON."""
    started = time.perf_counter()
    from bot.app import loaded_pack  # noqa: PLC0415 (the imports are not the start)
    from bot.config import Settings  # noqa: PLC0415

    imported, imported_cpu = time.perf_counter(), time.process_time()
    os.environ["STEADY_DATA_DIR"] = str(data_dir)
    os.environ["STEADY_CONTENT_DIR"] = str(REPO / "content")
    _, book = loaded_pack(Settings(_env_file=None))
    loaded, loaded_cpu = time.perf_counter(), time.process_time()
    forms = len(book.forms)
    book.keep()  # as open_services does, once the folder may be written
    print(
        json.dumps(
            {
                "imports_s": imported - started,
                "load_s": loaded - imported,
                "load_cpu_s": loaded_cpu - imported_cpu,
                "book_forms": forms,
            }
        )
    )


def _one_load(data_dir: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.startup_book", "--child", str(data_dir)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    figures: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return figures


def _one_detect(data_dir: Path) -> float:
    environment = os.environ | {"STEADY_DATA_DIR": str(data_dir)}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bot", "detect", "--json", "i cant do this anymore"],
        capture_output=True,
        check=True,
        cwd=REPO,
        env=environment,
    )
    return time.perf_counter() - started


def measure(runs: int) -> dict[str, list[float]]:
    """Each figure's values, without the book (a fresh empty folder each time) and with it
    (a folder where a first start wrote it), in turns."""
    found: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        kept = Path(folder) / "kept"
        kept.mkdir()
        _one_load(kept)  # the first start of this folder: the book written
        for number in range(runs):
            for with_book in (False, True):
                where = kept if with_book else Path(folder) / f"empty-{number}"
                where.mkdir(exist_ok=True)
                suffix = "with" if with_book else "without"
                figures = _one_load(where)
                found.setdefault(f"load_s_{suffix}", []).append(figures["load_s"])
                found.setdefault(f"load_cpu_s_{suffix}", []).append(figures["load_cpu_s"])
                empty = Path(folder) / f"detect-{number}-{suffix}"
                empty.mkdir()
                found.setdefault(f"detect_s_{suffix}", []).append(
                    _one_detect(kept if with_book else empty)
                )
    return found


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", type=Path, help="child mode: one start in this data folder")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child)
        return 0
    before = machine()
    found = measure(args.runs)
    medians = {name: statistics.median(values) for name, values in found.items()}
    rows = [
        ("Pack loaded and screen built (wall)", "load_s"),
        ("Pack loaded and screen built (CPU)", "load_cpu_s"),
        ("`steady detect --json`, start to answer", "detect_s"),
    ]
    lines = [
        "| Median of fresh processes | Without the book (s) | With the book (s) | Without ÷ with |",
        "|---|---:|---:|---:|",
    ]
    for label, name in rows:
        without, with_book = medians[f"{name}_without"], medians[f"{name}_with"]
        lines.append(f"| {label} | {without:.3f} | {with_book:.3f} | {without / with_book:.2f}× |")
    spread = "; ".join(
        f"{name}: " + ", ".join(f"{value:.3f}" for value in values)
        for name, values in found.items()
    )
    body = "\n".join(
        [
            f"Command, from the repo root: `{shown_command(['bench/startup_book.py', *argv])}`",
            "",
            before.describe(),
            "",
            *lines,
            "",
            f"{args.runs} runs of each, in fresh processes taken in turns (without, with, ...),"
            " so the load of this shared machine falls on both alike; the ratio is the"
            " figure to compare, the seconds move with the load. Without the book: an empty"
            " data folder, as at the first start of an install (every detection pattern"
            " parsed and compiled in Python, the book then written). With it: a restart,"
            " building each pattern from its compiled code with `_sre.compile`, and reading"
            " the screen's index (its rules by their beginnings) instead of building it.",
            "",
            f"Every value, in order: {spread}.",
        ]
    )
    print(body)
    if not args.no_write:
        write_section(SECTION, body)
    if args.json:
        print_json_figures(medians, {}, before.commit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
