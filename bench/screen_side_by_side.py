"""The safety screen of another commit and of this tree, timed side by side on the same
texts, so a shared machine's load weighs on both alike.

Run from the repo root:

    .venv/bin/python bench/screen_side_by_side.py 8aaa1e3      # that commit against this tree

The other commit's files are taken with `git archive` into a temporary folder; a process
for each side builds its screen once, then the two are asked in turn, round after round,
to screen the same fresh texts (bench/screen.py's mixed chat, 4,096 characters, half with
a crisis phrase) through `SafetyScreen.detect`, the model included. Each round's p50 and
p99 are read, of the time taken and of the CPU time the screening thread used (which
a busy machine inflates less: it leaves out the time spent waiting for a core), and the
figures are the median over the rounds of each side's, with this tree's over the other's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LENGTH = 4_096
TEXTS = 100  # a round
ROUNDS = 7


def worker() -> None:
    """One side: build the screen, then for each seed read from stdin, screen that
    round's texts and print the sorted timings as one JSON line."""
    import random  # noqa: PLC0415

    from bench.screen import corpus, mixed_text  # noqa: PLC0415
    from bot.content_pack.loader import load_pack  # noqa: PLC0415
    from bot.safety.screen import SafetyScreen  # noqa: PLC0415

    screen = SafetyScreen(load_pack(Path.cwd() / "content", "en"))
    if screen.second_stage.model() is None:
        raise SystemExit("the learned stage did not load")
    sentences = corpus()
    for text in [mixed_text(random.Random(0), sentences, LENGTH, True)] * 20:
        screen.detect(text, "en")  # warm: each side's kept lookups and caches
    print("ready", flush=True)
    for line in sys.stdin:
        rng = random.Random(int(line))
        texts = [mixed_text(rng, sentences, LENGTH, n % 2 == 1) for n in range(TEXTS)]
        spent, used = [], []
        for text in texts:
            started, cpu = time.perf_counter(), time.thread_time()
            screen.detect(text, "en")
            spent.append((time.perf_counter() - started) * 1000)
            used.append((time.thread_time() - cpu) * 1000)
        print(json.dumps([sorted(spent), sorted(used)]), flush=True)


def side(folder: Path) -> subprocess.Popen[str]:
    env = os.environ | {"PYTHONPATH": str(folder), "PYTHONHASHSEED": "0"}
    process = subprocess.Popen(
        [sys.executable, str(folder / "bench" / "screen_side_by_side.py"), "--worker"],
        cwd=folder,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    return process


def round_of(process: subprocess.Popen[str], seed: int) -> tuple[float, float, float, float]:
    """(p50, p99) of the time taken, then of the CPU time used, in ms."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"{seed}\n")
    process.stdin.flush()
    spent, used = json.loads(process.stdout.readline())
    at_99 = round(0.99 * (len(spent) - 1))
    return spent[len(spent) // 2], spent[at_99], used[len(used) // 2], used[at_99]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", help="the commit to time this tree against")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temporary:
        other = Path(temporary)
        archive = subprocess.run(
            ["git", "archive", args.commit], cwd=REPO, capture_output=True, check=True
        ).stdout
        with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
            tar.extractall(other, filter="data")
        # This very script runs the other side's screen too (it may not be in that commit).
        (other / "bench" / "screen_side_by_side.py").write_text(Path(__file__).read_text())
        sides = {"other": side(other), "this": side(REPO)}
        rounds: dict[str, list[tuple[float, float, float, float]]] = {"other": [], "this": []}
        for seed in range(ROUNDS):
            for name, process in sides.items():
                rounds[name].append(round_of(process, seed))
        for process in sides.values():
            process.communicate("")
    # Each figure the median over the rounds: p50, p99 taken, p50, p99 of CPU time.
    figures = {
        name: [statistics.median(found[at] for found in rounds[name]) for at in range(4)]
        for name in rounds
    }
    old, new = figures["other"], figures["this"]
    print(f"4,096 characters, rules and model, median of {ROUNDS} rounds of {TEXTS} texts (ms):")
    print("  | Screen | p50 | p99 | p50 CPU | p99 CPU |")
    for name, found in ((args.commit, old), ("this tree", new)):
        print(f"  | {name} | " + " | ".join(f"{value:.2f}" for value in found) + " |")
    ratios = [n / o for n, o in zip(new, old, strict=True)]
    print("  | this ÷ that | " + " | ".join(f"{ratio:.2f}×" for ratio in ratios) + " |")
    print(json.dumps({"commit": args.commit, "other": old, "this": new}))
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        worker()
    else:
        raise SystemExit(main())
