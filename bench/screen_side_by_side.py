"""The safety screen of another commit and of this tree, timed side by side on the same
texts, so a shared machine's load weighs on both alike.

Run from the repo root:

    .venv/bin/python bench/screen_side_by_side.py 8aaa1e3      # that commit against this tree

The other commit's files are taken with `git archive` into a temporary folder; a process
for each side builds its screen once, then the two are asked in turn, round after round,
to screen the same fresh texts (bench/screen.py's mixed chat, 4,096 characters, half with
a crisis phrase) through `SafetyScreen.detect`, the model included. Each round's p50 and
p99 are read, and the figures are the median over the rounds of each side's, with the
ratio of this tree's to the other's.
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
        spent = []
        for text in texts:
            started = time.perf_counter()
            screen.detect(text, "en")
            spent.append((time.perf_counter() - started) * 1000)
        print(json.dumps(sorted(spent)), flush=True)


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


def round_of(process: subprocess.Popen[str], seed: int) -> tuple[float, float]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"{seed}\n")
    process.stdin.flush()
    spent = json.loads(process.stdout.readline())
    return spent[len(spent) // 2], spent[round(0.99 * (len(spent) - 1))]


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
        rounds: dict[str, list[tuple[float, float]]] = {"other": [], "this": []}
        for seed in range(ROUNDS):
            for name, process in sides.items():
                rounds[name].append(round_of(process, seed))
        for process in sides.values():
            process.communicate("")
    figures = {
        name: (
            statistics.median(p50 for p50, _ in found),
            statistics.median(p99 for _, p99 in found),
        )
        for name, found in rounds.items()
    }
    (old_50, old_99), (new_50, new_99) = figures["other"], figures["this"]
    print(f"4,096 characters, rules and model, median of {ROUNDS} rounds of {TEXTS} texts:")
    print(f"  {args.commit}: p50 {old_50:.2f} ms, p99 {old_99:.2f} ms")
    print(f"  this tree: p50 {new_50:.2f} ms, p99 {new_99:.2f} ms")
    print(f"  this ÷ that: p50 {new_50 / old_50:.2f}×, p99 {new_99 / old_99:.2f}×")
    print(json.dumps({"commit": args.commit, "other": figures["other"], "this": figures["this"]}))
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        worker()
    else:
        raise SystemExit(main())
