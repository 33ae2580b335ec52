"""Safety screen benchmark: how long detection takes, by message length, with the rules
alone and with the learned stage behind them, and how long a very long message can hold up
the event loop; also how long the learned model takes to load and `steady detect` to start.

Run from the repo root:

    .venv/bin/python bench/screen.py            # a table, and the "Safety screen" section
    .venv/bin/python bench/screen.py --json     # the same figures, one JSON object last

Texts are realistic mixed chat: sentences from the content pack's own cards and from the
labelled ordinary, urge and contact phrases, joined at random up to each length (100,
1,000, 4,096 and 100,000 characters). Each length is timed on texts without any crisis
words and on texts with one crisis phrase placed at a random point. Every run screens a
fresh text (the rules are compiled once, at load, as in the bot), with the whole detector:
normalising, the second readings, the idioms and every language's rules; then the same
texts through `SafetyScreen.detect`, which adds the learned stage (on every text: the
crisis phrase of a crisis text is found by the rules, and the model still reads the text
for its language), so the two columns compare side by side.

The event-loop figure screens a 100,000-character message the way the router does (in a
worker thread, as every text longer than one piece is) while a heartbeat on the loop
records the longest gap between its ticks.

Each length is timed in three rounds of fresh texts and the round with the lowest p99 is
reported: the machine is shared, and another process's burst only ever adds time.

Targets: a 4,096-character message in at most 5 ms at p99, the model included; the loop
never held up more than 50 ms; `steady detect --json` answers within 1 s of starting. The
exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

import yaml

from bench.common import REPO, commit, machine, print_json_figures, shown_command
from bench.results import write_section
from bench.screen_memory import memory_rows
from bot.content_pack.loader import load_pack
from bot.safety.rules import Detection
from bot.safety.screen import SafetyScreen
from bot.safety.second_stage import MODEL_DIR

Detect = Callable[[str], Detection]

LENGTHS = (100, 1_000, 4_096, 100_000)
RUNS = {100: 400, 1_000: 300, 4_096: 200, 100_000: 12}
ROUNDS = 3
CRISIS_PHRASES = (
    "i want to kill myself",
    "honestly i just want to die",
    "he said he will kill me if i leave",
    "i took all my pills",
)
TARGET_4096_P99_MS = 5.0
TARGET_LOOP_STALL_MS = 50.0
TARGET_DETECT_START_S = 1.0
STAGES = ("rules", "rules + model")


@dataclass
class Timing:
    stage: str
    length: int
    crisis: bool
    runs: int
    p50_ms: float
    p99_ms: float
    max_ms: float


def corpus() -> list[str]:
    pack = load_pack(REPO / "content", "en")
    sentences = [card.text for card in pack.affirmations("en")]
    sentences += [card.text for card in pack.reflections("en")]
    labelled = yaml.safe_load((REPO / "tests/safety/phrases.yaml").read_text("utf-8"))
    sentences += labelled["ordinary"] + labelled["urge"] + labelled["contacted"]
    return sentences


def mixed_text(rng: random.Random, sentences: list[str], length: int, crisis: bool) -> str:
    parts: list[str] = []
    size = 0
    while size < length:
        sentence = rng.choice(sentences)
        parts.append(sentence)
        size += len(sentence) + 1
    text = " ".join(parts)[:length]
    if crisis:
        phrase = f" {rng.choice(CRISIS_PHRASES)}. "
        at = rng.randrange(0, max(1, length - len(phrase)))
        text = (text[:at] + phrase + text[at + len(phrase) :])[:length]
    return text


def percentile(ordered: list[float], fraction: float) -> float:
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def time_detection(
    stages: dict[str, Detect], sentences: list[str], seed: int, all_rounds: list[Timing]
) -> list[Timing]:
    """Each length, with and without a crisis phrase, timed in ROUNDS rounds of fresh texts
    through each stage (the same texts for both, alternating); the round with the lowest
    p99 is kept, since the machine is shared and another process's burst only adds time."""
    rng = random.Random(seed)
    timings: list[Timing] = []
    for length in LENGTHS:
        for crisis in (False, True):
            rounds: dict[str, list[Timing]] = {stage: [] for stage in stages}
            for _ in range(ROUNDS):
                texts = [mixed_text(rng, sentences, length, crisis) for _ in range(RUNS[length])]
                for stage, detect in stages.items():
                    rounds[stage].append(_one_round(stage, detect, texts, length, crisis))
            for stage in stages:
                all_rounds.extend(rounds[stage])
                timings.append(min(rounds[stage], key=lambda timing: timing.p99_ms))
    return timings


def _one_round(stage: str, detect: Detect, texts: list[str], length: int, crisis: bool) -> Timing:
    spent: list[float] = []
    for text in texts:
        started = time.perf_counter()
        detection = detect(text)
        spent.append((time.perf_counter() - started) * 1000)
        if crisis and not detection.needs_safety_reply:
            raise SystemExit(f"a crisis phrase was missed in a {length}-character text")
    spent.sort()
    p50, p99 = percentile(spent, 0.5), percentile(spent, 0.99)
    return Timing(
        stage, length, crisis, len(spent), round(p50, 3), round(p99, 3), round(spent[-1], 3)
    )


async def longest_loop_stall(detect: Detect, text: str) -> tuple[float, float]:
    """(longest gap between heartbeat ticks, screening time), both in ms, while the text
    is screened in a worker thread as the router screens any text longer than a piece."""
    gaps: list[float] = []
    done = asyncio.Event()

    async def heartbeat() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append((now - last) * 1000)
            last = now

    beating = asyncio.create_task(heartbeat())
    await asyncio.sleep(0.01)
    started = time.perf_counter()
    await asyncio.to_thread(detect, text)
    spent = (time.perf_counter() - started) * 1000
    done.set()
    await beating
    return max(gaps), spent


def model_load_ms() -> tuple[float, float]:
    """(numpy imported and the model loaded, the load alone), in ms: the best of three
    fresh processes, as the first screened message after a start pays them."""
    script = (
        "import time; started = time.perf_counter(); import numpy;"
        " from bot.safety.model import load_model; imported = time.perf_counter();"
        f" load_model(__import__('pathlib').Path({str(REPO / 'content' / MODEL_DIR)!r}));"
        " done = time.perf_counter();"
        " print((done - started) * 1000, (done - imported) * 1000)"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO
        ).stdout.split()
        for _ in range(3)
    ]
    return min(float(run[0]) for run in runs), min(float(run[1]) for run in runs)


def detect_start() -> tuple[float, bool]:
    """(seconds from starting `steady detect --json` to its answer, the best of three;
    whether it imported no platform library). It runs where the bot keeps its data, as an
    operator runs it: a first run writes the book of compiled patterns there
    (bot/content_pack/pattern_book.py), and the three timed runs read it."""
    spent = []
    with tempfile.TemporaryDirectory() as data:
        environment = os.environ | {"STEADY_DATA_DIR": data}
        for _ in range(4):
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "bot", "detect", "--json", "i cant do this anymore"],
                capture_output=True,
                check=True,
                cwd=REPO,
                env=environment,
            )
            spent.append(time.perf_counter() - started)
    spent = spent[1:]  # the first wrote the book (bench/startup_book.py compares the two)
    listing = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", "detect", "--json", "hello"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    ).stderr
    imported = {line.split("|")[-1].strip().split(".")[0] for line in listing.splitlines()}
    return min(spent), not imported & {"telegram", "discord", "aiohttp", "apscheduler"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--no-write", action="store_true", help="leave bench/RESULTS.md alone")
    args = parser.parse_args(argv)

    screen = SafetyScreen(load_pack(REPO / "content", "en"))
    detector = screen.detector("en")
    if screen.second_stage.model() is None:
        raise SystemExit(f"the learned stage did not load: {screen.second_stage.status.reason}")
    stages: dict[str, Detect] = {
        STAGES[0]: detector.detect,
        STAGES[1]: lambda text: screen.detect(text, "en"),
    }
    sentences = corpus()
    all_rounds: list[Timing] = []
    timings = time_detection(stages, sentences, args.seed, all_rounds)
    rng = random.Random(args.seed + 1)
    stalls = [
        asyncio.run(longest_loop_stall(stages[STAGES[1]], mixed_text(rng, sentences, 100_000, c)))
        for c in (False, True, False)
    ]
    stall_ms = round(max(gap for gap, _ in stalls), 1)
    at_4096 = {
        stage: max(t.p99_ms for t in timings if t.length == 4_096 and t.stage == stage)
        for stage in STAGES
    }
    with_model = at_4096[STAGES[1]]
    load_ms, load_alone_ms = model_load_ms()
    start_s, no_platform = detect_start()
    size = (REPO / "content" / MODEL_DIR / "safety_model.npz").stat().st_size
    checks = [
        ("4,096 characters, p99, rules and model", f"≤ {TARGET_4096_P99_MS:g} ms",
         f"{with_model:.2f} ms", with_model <= TARGET_4096_P99_MS),
        ("Longest event-loop stall, 100,000 characters", f"≤ {TARGET_LOOP_STALL_MS:g} ms",
         f"{stall_ms:.1f} ms", stall_ms <= TARGET_LOOP_STALL_MS),
        ("`steady detect --json`, start to answer", f"≤ {TARGET_DETECT_START_S:g} s",
         f"{start_s:.2f} s", start_s <= TARGET_DETECT_START_S),
        ("`steady detect` imports no platform library", "none", "none" if no_platform
         else "some", no_platform),
    ]  # fmt: skip
    met = all(ok for *_, ok in checks)
    memory, memory_figures = memory_rows()
    model = (load_ms, load_alone_ms, size)
    body = "\n".join(_report(timings, all_rounds, at_4096, stalls, checks, met, model, memory))
    if not args.no_write:
        write_section("Safety screen", body)
    print(body)
    if args.json:
        found, targets = figures(timings, at_4096, stall_ms)
        found |= {"model_load_ms": load_ms, "detect_start_s": start_s, "model_bytes": size}
        found |= memory_figures
        print_json_figures(found, targets | {"detect_start_s": TARGET_DETECT_START_S}, commit())
    return 0 if met else 1


def _report(
    timings: list[Timing],
    all_rounds: list[Timing],
    at_4096: dict[str, float],
    stalls: list[tuple[float, float]],
    checks: list[tuple[str, str, str, bool]],
    met: bool,
    model: tuple[float, float, int],
    memory: list[str],
) -> list[str]:
    by_text: dict[tuple[int, bool], dict[str, Timing]] = {}
    for t in timings:
        by_text.setdefault((t.length, t.crisis), {})[t.stage] = t
    rows = []
    for (length, crisis), stages in by_text.items():
        alone, both = stages[STAGES[0]], stages[STAGES[1]]
        rows.append(
            f"| {length:,} | {'yes' if crisis else 'no'} | {alone.runs} | {alone.p50_ms:.2f} |"
            f" {alone.p99_ms:.2f} | {both.p50_ms:.2f} | {both.p99_ms:.2f} | {both.max_ms:.2f} |"
            f" {both.p50_ms / alone.p50_ms:.2f}× |"
        )
    every = {
        stage: ", ".join(
            f"{t.p99_ms:.2f}" for t in all_rounds if t.length == 4_096 and t.stage == stage
        )
        for stage in STAGES
    }
    load_ms, load_alone_ms, size = model
    return [
        f"Command, from the repo root: `{shown_command(['bench/screen.py'])}`",
        "",
        machine().describe(),
        "",
        f"**Result: {'all targets met' if met else 'a target was missed'}.**",
        "",
        f"Each cell is the quietest of {ROUNDS} rounds (the one with the lowest p99); both"
        " stages screen the same texts.",
        "",
        "| Characters | Crisis phrase | Runs | Rules p50 (ms) | Rules p99 (ms) |"
        " Rules + model p50 (ms) | Rules + model p99 (ms) | Rules + model max (ms) |"
        " p50 with ÷ without |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        "| Target | Limit | Measured | Result |",
        "|---|---|---|---|",
        *(f"| {name} | {limit} | {measured} | {'pass' if ok else 'FAIL'} |"
          for name, limit, measured, ok in checks),
        "",
        f"The learned model: {size / 1000:,.0f} kB on disk"
        f" (content/detection/model/safety_model.npz); numpy imported and the model loaded"
        f" in {load_ms:.0f} ms, of which {load_alone_ms:.0f} ms reading and checking it"
        " (the best of three fresh processes). The bot starts loading it at start-up in a"
        " worker thread and does not wait for it (the first screened message does, if it"
        " comes first). At 4,096 characters the p99 was"
        f" {at_4096[STAGES[0]]:.2f} ms with the rules alone and {at_4096[STAGES[1]]:.2f} ms"
        " with the model.",
        "",
        *memory,
        "",
        "How to read it:",
        "",
        "- Each run screens a new text: the rules column with `Detector.detect` (normalising,"
        " the second readings, the idioms, the rules of every language with their context"
        " cues), the other with `SafetyScreen.detect`, which adds the learned stage (hashed"
        " n-grams of every segment, scored per window). Texts are sentences from the content"
        " pack and the labelled ordinary, urge and contact phrases, joined at random; a"
        " crisis text has one crisis phrase at a random place.",
        "- Texts longer than 4,096 characters are screened in overlapping pieces of that"
        " size, and the router screens them in a worker thread, so the loop runs between"
        " pieces; the stall figure is the longest gap a 1 ms heartbeat on the loop saw while"
        " three 100,000-character texts went through both stages"
        f" ({', '.join(f'{spent:.0f}' for _, spent in stalls)} ms each).",
        "- `steady detect` start: the best of three runs of `python -m bot detect --json`,"
        " from starting the process to its exit, in a data folder where a first run wrote"
        " the book of compiled patterns; it reads only the detection rules and the"
        " model, and `python -X importtime` shows it imports no platform library.",
        "- The machine is shared with other work, so the p99 and max columns carry its noise:"
        f" the p99 of every round at 4,096 characters was {every[STAGES[0]]} ms (rules) and"
        f" {every[STAGES[1]]} ms (rules + model).",
    ]  # fmt: skip


def figures(
    timings: list[Timing], at_4096: dict[str, float], stall_ms: float
) -> tuple[dict[str, float | int], dict[str, float]]:
    """Every figure by name (`p99_4096_plain_ms`, `p99_4096_plain_rules_ms`, ...) and the
    targets."""
    found: dict[str, float | int] = {}
    for t in timings:
        name = f"{t.length}_{'crisis' if t.crisis else 'plain'}"
        if t.stage == STAGES[0]:
            name += "_rules"
        found[f"runs_{name}"] = t.runs
        found[f"p50_{name}_ms"] = t.p50_ms
        found[f"p99_{name}_ms"] = t.p99_ms
        found[f"max_{name}_ms"] = t.max_ms
    found["p99_4096_ms"] = at_4096[STAGES[1]]  # the worse of plain and crisis, with the model
    found["p99_4096_rules_ms"] = at_4096[STAGES[0]]
    found["loop_stall_ms"] = stall_ms
    return found, {"p99_4096_ms": TARGET_4096_P99_MS, "loop_stall_ms": TARGET_LOOP_STALL_MS}


if __name__ == "__main__":
    raise SystemExit(main())
