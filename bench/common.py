"""What every benchmark shares: where and how it ran, its targets, its percentiles, its
figures as JSON, and a probe of how long the event loop was held up."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import platform
import shlex
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
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
    # The load average (1, 5 and 15 minutes) when the figures were taken: on a machine
    # other work shares, every timing reads slower by about as much as it is busy.
    load_average: tuple[float, float, float] | None = None

    def describe(self) -> str:
        """One line for RESULTS.md: when, on what, with which versions, at which commit,
        under what load."""
        versions = "".join(f", {name} {number}" for name, number in self.libraries.items())
        load = (
            ""
            if self.load_average is None
            else " Load average " + " / ".join(f"{value:.2f}" for value in self.load_average) + "."
        )
        return (
            f"Run {self.date} on {self.cpus} CPUs ({self.cpu_model}), {self.system},"
            f" Python {self.python}, SQLite {self.sqlite}{versions}. Commit {self.commit}.{load}"
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
        load_average=os.getloadavg(),
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


Figure = float | int | str | bool | None


def json_figures(
    figures: Mapping[str, Figure], targets: Mapping[str, float], commit_hash: str
) -> str:
    """One JSON object: every figure under its own name, each target as `target_<name>`,
    the commit the code ran at, and whether every target was met.

    A target is an upper bound on the figure of the same name. A figure that is not
    a finite number (not measured, say) is written as null, and misses its target.
    """
    unknown = sorted(set(targets) - set(figures))
    if unknown:
        raise ValueError(f"targets without a figure: {', '.join(unknown)}")
    shown: dict[str, Figure] = {"commit": commit_hash}
    for name, value in figures.items():
        shown[name] = _finite(value)
    met = True
    for name, limit in targets.items():
        shown[f"target_{name}"] = limit
        value = shown[name]
        met = met and isinstance(value, int | float) and value <= limit
    shown["all_targets_met"] = met
    return json.dumps(shown, allow_nan=False, sort_keys=False)


def print_json_figures(
    figures: Mapping[str, Figure], targets: Mapping[str, float], commit_hash: str
) -> None:
    """Print `json_figures(...)` as the last line of the output (flushed, so it is last)."""
    print(json_figures(figures, targets, commit_hash), flush=True)


def _finite(value: Figure) -> Figure:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class LoopStallProbe:
    """A task that asks to wake every `period` seconds and notes the most it woke late:
    the longest the event loop was held by other work (a tick, say) meanwhile.

    `now` and `sleep` are the loop's own by default; tests give their own.
    """

    def __init__(
        self,
        period: float = 0.010,
        now: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.period = period
        self.longest_s = 0.0
        self.wakes = 0
        self._now = now
        self._sleep = sleep
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="loop-stall-probe")

    async def stop(self) -> float:
        """Stop probing; the longest stall seen, in seconds."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        return self.longest_s

    async def _run(self) -> None:
        now = self._now or asyncio.get_running_loop().time
        last = now()
        while True:
            await self._sleep(self.period)
            woke = now()
            self.wakes += 1
            self.longest_s = max(self.longest_s, woke - last - self.period)
            last = woke
