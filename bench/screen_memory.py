"""The memory the learned stage adds to the safety screen: the peak resident size of a fresh
process that builds every language's rules and screens one text, with the rules alone and
with the learned stage, side by side (bench/screen.py reports them with their ratio)."""

from __future__ import annotations

import subprocess
import sys

from bench.common import REPO

_SCRIPT = """
import pathlib, resource, sys
from bot.content_pack.loader import load_detection
from bot.safety.screen import detectors_for
from bot.safety.second_stage import MODEL_DIR, SecondStage
content = pathlib.Path("content")
detector = next(iter(detectors_for(*load_detection(content)).values()))
text = "the bus was late again and i made soup, long day at work " * 70
if sys.argv[1] == "model":
    detection = SecondStage(content / MODEL_DIR).detect(detector, text)
    assert detection.model is not None, "the learned stage did not load"
else:
    detector.detect(text)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def peak_rss_mb(stage: str) -> float:
    """The lowest of three fresh processes' peak resident size, in MB (Linux reports
    ru_maxrss in kB); `stage` is "rules" or "model"."""
    runs = [
        subprocess.run(
            [sys.executable, "-c", _SCRIPT, stage],
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
        ).stdout
        for _ in range(3)
    ]
    return min(float(run) for run in runs)


def memory_rows() -> tuple[list[str], dict[str, float]]:
    """A markdown table of both stages' peak memory and their ratio, and the figures."""
    rules, model = peak_rss_mb("rules"), peak_rss_mb("model")
    rows = [
        "| Peak resident memory | Rules alone | Rules + model | With ÷ without |",
        "|---|---:|---:|---:|",
        f"| A process that builds every language's rules and screens one text"
        f" | {rules:.1f} MB | {model:.1f} MB | {model / rules:.2f}× |",
    ]
    return rows, {"peak_rss_rules_mb": rules, "peak_rss_model_mb": model}
