"""What every benchmark shares: where and how it ran, its targets, its percentiles."""

from __future__ import annotations

import contextlib
import math
import os
import platform
import shlex
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Machine:
    cpus: int
    cpu_model: str
    python: str
    sqlite: str
    system: str
    date: str
    libraries: dict[str, str] = field(default_factory=dict)
    commit: str = "unknown"

    def describe(self) -> str:
        """One line for RESULTS.md: when, on what, with which versions, at which commit."""
        versions = "".join(f", {name} {number}" for name, number in self.libraries.items())
        return (
            f"Run {self.date} on {self.cpus} CPUs ({self.cpu_model}), {self.system},"
            f" Python {self.python}, SQLite {self.sqlite}{versions}. Commit {self.commit}."
        )


def machine(libraries: Sequence[str] = ()) -> Machine:
    model = "unknown CPU"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return Machine(
        cpus=len(os.sched_getaffinity(0)),
        cpu_model=model,
        python=platform.python_version(),
        sqlite=sqlite3.sqlite_version,
        system=f"{platform.system()} {platform.release()}",
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        libraries={name: version(name) for name in libraries},
        commit=commit(),
    )


def commit() -> str:
    """The short hash of HEAD, marked when the code that runs differs from it.

    Changes to Markdown files (RESULTS.md among them) do not count: they run nothing.
    """
    head = _git("rev-parse", "--short", "HEAD")
    if not head:
        return "unknown"
    changed = _git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)*.md")
    return f"{head}, with uncommitted changes" if changed else head


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], check=False, capture_output=True, text=True, cwd=REPO)
    return done.stdout.strip() if done.returncode == 0 else ""


def shown_command(argv: Sequence[str]) -> str:
    """The command as a reader would type it: .venv/bin/python when run as documented."""
    executable = Path(sys.executable)
    shown = str(executable.relative_to(REPO)) if executable.is_relative_to(REPO) else "python"
    return shlex.join([shown, *argv])


@dataclass(frozen=True)
class Check:
    """One target of a benchmark: what it is, its limit, what was measured, and whether met."""

    name: str
    limit: str
    measured: str
    passed: bool


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (the smallest value with `fraction` of all at or below it),
    in any order; NaN when there are none."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = math.ceil(fraction * len(ordered))
    return ordered[min(len(ordered), max(1, rank)) - 1]
