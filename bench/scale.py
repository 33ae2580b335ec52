"""Scale benchmark: SQLite against PostgreSQL with one worker, PostgreSQL with 1, 2 and 4
workers on one database, a `kill -9` of a worker in the middle of a dispatch, memory
flat in users (bench/scale_memory.py), and Telegram with several workers: the round
trip per update on each backend, a webhook stream across 1, 2 and 4 workers and the
poller's take-over after `kill -9` (bench/scale_platforms.py).

Run from the repo root with a PostgreSQL server to use (`.ci/postgres.sh` starts one):

    STEADY_BENCH_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python bench/scale.py

The database is the dispatch benchmark's (100,000 users in 20 time zones, 10,000 due in
the same minute), built once in SQLite and copied into a fresh PostgreSQL database for
each run. SQLite and PostgreSQL with one worker run three rounds, one after the other in
each, and their medians are compared. Every worker is a process of its own (`--worker`):
the bot's own services, outbox and dispatcher (`open_services`, `build_dispatcher`), an
injected clock and an adapter that records each user it was given. The parent starts the
workers, waits until each is ready, tells them all to tick at once, and times until every
one has sent all it claimed; it then checks that each due user got exactly one check-in.

The kill run gives the adapter 20 ms per send, so a dispatch takes seconds; once the
first worker has sent 2,000 it is killed with SIGKILL. The other worker's clock is then
moved past the outbox lease and it takes over what the dead one claimed and never began
to send. Counted: check-ins sent, sent twice (must be 0), lost (must be no more than the
rows whose attempt had started, "on the wire": those are never sent again).

Prints the tables, writes them to the "Scale" section of bench/RESULTS.md; `--json`
prints the figures as the last line. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import asyncpg

from bench.common import REPO, Check, machine, print_json_figures, shown_command
from bench.dispatch import DUE_AT, PLANNED_AT, prepare_database
from bench.results import write_section
from bench.scale_memory import MemoryFigures, measure_memory, memory_checks, memory_report
from bench.scale_platforms import (
    PlatformFigures,
    measure_platforms,
    platform_checks,
    platform_report,
)
from bench.scale_workers import (
    RecordingSends,
    postgres_copy,
    postgres_server,
    scheduled_sending,
    worker_settings,
)
from bot.app import open_services
from bot.core.clock import ManualClock
from bot.delivery.outbox import OUTBOX_LEASE
from bot.storage.crypto import generate_key_text

SECTION = "Scale"
USERS = 100_000
DUE = 10_000
KILL_AFTER_SENDS = 2_000
SLOW_SEND_S = 0.020
TARGET_POSTGRES_RATIO = 1.5  # PostgreSQL's hand-over within 1.5x of SQLite's
COMPARED_ROUNDS = 3  # SQLite then PostgreSQL, 1 worker each: the medians are compared


# --- the worker child ----------------------------------------------------------------------


async def run_worker(args: argparse.Namespace) -> None:
    """Start, say "ready", tick on "go", say "done"; on "advance", take over and send."""
    settings = worker_settings(args.database_url, args.sqlite, args.key, args.data_dir)
    clock = ManualClock(PLANNED_AT)
    adapter = RecordingSends(args.send_delay)
    started = time.perf_counter()
    async with open_services(settings, clock) as services:
        outbox, dispatcher = scheduled_sending(
            services, clock, adapter, sole_worker=args.database_url is None
        )
        await outbox.start()
        print(f"ready {time.perf_counter() - started:.6f}", flush=True)
        lines = asyncio.StreamReader()
        loop = asyncio.get_running_loop()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(lines), sys.stdin)
        while command := (await lines.readline()).decode().strip():
            if command == "go":
                clock.set(DUE_AT)
                began = time.time()
                report = await dispatcher.tick()
                await outbox.drain()
                print(f"done {began:.6f} {time.time():.6f} {report.started}", flush=True)
            elif command == "advance":
                clock.set(DUE_AT + OUTBOX_LEASE)
                taken = await outbox.keep_leases()
                await outbox.drain()
                print(f"took {taken}", flush=True)
            elif command == "quit":
                break
        await outbox.stop()


# --- the parent ----------------------------------------------------------------------------


@dataclass
class Worker:
    process: asyncio.subprocess.Process
    startup_s: float = 0.0
    sent: list[str] | None = None

    async def command(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{text}\n".encode())
        await self.process.stdin.drain()

    async def until(self, word: str) -> list[str]:
        """Read lines until one starting with `word`; record every "sent" on the way."""
        assert self.process.stdout is not None
        if self.sent is None:
            self.sent = []
        while True:
            line = (await self.process.stdout.readline()).decode().strip()
            if not line:
                raise RuntimeError(f"worker ended before {word!r}")
            kind, *rest = line.split()
            if kind == "sent":
                self.sent.append(rest[0])
            elif kind == word:
                return rest


async def start_worker(target: Target, send_delay: float = 0.0) -> Worker:
    command = [sys.executable, "-m", "bench.scale", "--worker", "--key", target.key]
    command += [f"--send-delay={send_delay}"]
    command += ["--data-dir", tempfile.mkdtemp(prefix="worker-", dir=target.folder)]
    if target.database_url is not None:
        command += ["--database-url", target.database_url]
    else:
        command += ["--sqlite", str(target.sqlite_path)]
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=REPO,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=1 << 20,
    )
    worker = Worker(process)
    [startup] = await worker.until("ready")
    worker.startup_s = float(startup)
    return worker


async def stop_workers(workers: Sequence[Worker]) -> None:
    for worker in workers:
        if worker.process.returncode is None:
            await worker.command("quit")
    for worker in workers:
        await worker.process.wait()


@dataclass
class Target:
    """One database to run workers on: a SQLite file, or a PostgreSQL database."""

    key: str
    folder: Path  # the run's own: workers' data folders go in it
    sqlite_path: Path | None = None
    database_url: str | None = None


@dataclass
class Dispatch:
    workers: int
    backend: str
    startup_s: float  # the slowest worker's
    handed_over_s: float  # go until the last worker has sent all it claimed
    sent: int
    distinct: int
    twice: int


async def dispatch(target: Target, workers: int, backend: str) -> Dispatch:
    started = [await start_worker(target) for _ in range(workers)]
    try:
        for worker in started:
            await worker.command("go")
        ends = [await worker.until("done") for worker in started]
    finally:
        await stop_workers(started)
    began = min(float(end[0]) for end in ends)
    finished = max(float(end[1]) for end in ends)
    counts = Counter(user for worker in started for user in worker.sent or [])
    return Dispatch(
        workers=workers,
        backend=backend,
        startup_s=max(worker.startup_s for worker in started),
        handed_over_s=finished - began,
        sent=sum(counts.values()),
        distinct=len(counts),
        twice=sum(1 for count in counts.values() if count > 1),
    )


@dataclass
class Kill:
    sent_before_kill: int
    taken_over: int
    sent: int
    distinct: int
    twice: int
    lost: int
    on_the_wire: int


async def kill_mid_dispatch(target: Target) -> Kill:
    doomed = await start_worker(target, SLOW_SEND_S)
    survivor = await start_worker(target, SLOW_SEND_S)
    try:
        await doomed.command("go")
        await survivor.command("go")
        assert doomed.process.stdout is not None
        doomed.sent = []
        while len(doomed.sent) < KILL_AFTER_SENDS:
            line = (await doomed.process.stdout.readline()).decode().split()
            if line and line[0] == "sent":
                doomed.sent.append(line[1])
        doomed.process.send_signal(signal.SIGKILL)
        await doomed.process.wait()
        # What it printed before it died is in the pipe still: count it too.
        rest = await doomed.process.stdout.read()
        doomed.sent += [
            line.split()[1] for line in rest.decode().splitlines() if line.startswith("sent ")
        ]
        await survivor.until("done")
        await survivor.command("advance")
        [taken] = await survivor.until("took")
    finally:
        await stop_workers([survivor])
    counts = Counter([*doomed.sent, *(survivor.sent or [])])
    assert target.database_url is not None
    connection = await asyncpg.connect(target.database_url)
    try:
        wire = int(
            await connection.fetchval("SELECT COUNT(*) FROM outbox WHERE attempt_at IS NOT NULL")
        )
    finally:
        await connection.close()
    return Kill(
        sent_before_kill=KILL_AFTER_SENDS,
        taken_over=int(taken),
        sent=sum(counts.values()),
        distinct=len(counts),
        twice=sum(1 for count in counts.values() if count > 1),
        lost=DUE - len(counts),
        on_the_wire=wire,
    )


@dataclass
class Figures:
    # SQLite's and PostgreSQL's 1-worker median runs of `compared`, then PostgreSQL with
    # 2 and 4 workers.
    runs: list[Dispatch]
    compared: list[tuple[Dispatch, Dispatch]]  # each round: (SQLite, PostgreSQL)
    kill: Kill
    memory: MemoryFigures
    platforms: PlatformFigures


async def run_all(server: str, folder: Path) -> Figures:
    key = generate_key_text()
    template = folder / "template" / "steady.db"
    template.parent.mkdir()
    await prepare_database(template, USERS, DUE)
    compared = [
        await compare_once(template, server, key, folder / f"round-{number}")
        for number in range(COMPARED_ROUNDS)
    ]
    runs = [_median(run for run, _ in compared), _median(run for _, run in compared)]
    for workers in (2, 4):
        async with postgres_copy(template, server, key, _data_dir(folder)) as url:
            runs.append(
                await dispatch(Target(key, folder, database_url=url), workers, "PostgreSQL")
            )
    async with postgres_copy(template, server, key, _data_dir(folder)) as url:
        kill = await kill_mid_dispatch(Target(key, folder, database_url=url))
    for part in ("memory", "platforms"):
        (folder / part).mkdir()
    memory = await measure_memory(server, folder / "memory")
    platforms = await measure_platforms(server, folder / "platforms")
    return Figures(runs, compared, kill, memory, platforms)


async def compare_once(
    template: Path, server: str, key: str, folder: Path
) -> tuple[Dispatch, Dispatch]:
    """One worker on a fresh SQLite copy, then on a fresh PostgreSQL copy, back to back:
    the rounds alternate, so a busy moment of the machine falls on both alike."""
    sqlite_copy = folder / "sqlite" / "steady.db"
    sqlite_copy.parent.mkdir(parents=True)
    shutil.copy(template, sqlite_copy)
    on_sqlite = await dispatch(Target(key, folder, sqlite_path=sqlite_copy), 1, "SQLite")
    async with postgres_copy(template, server, key, _data_dir(folder)) as url:
        on_postgres = await dispatch(Target(key, folder, database_url=url), 1, "PostgreSQL")
    return on_sqlite, on_postgres


def _data_dir(folder: Path) -> Path:
    return Path(tempfile.mkdtemp(prefix="copy-", dir=folder))


def _median(runs: Iterable[Dispatch]) -> Dispatch:
    ordered = sorted(runs, key=lambda run: run.handed_over_s)
    return ordered[len(ordered) // 2]


def checks(figures: Figures) -> list[Check]:
    runs, kill = figures.runs, figures.kill
    sqlite, postgres = runs[0], runs[1]
    ratio = postgres.handed_over_s / sqlite.handed_over_s
    found = [
        Check(
            f"PostgreSQL, 1 worker: 10,000 due handed over, against SQLite (medians of"
            f" {len(figures.compared)} rounds)",
            f"≤ {TARGET_POSTGRES_RATIO}x",
            f"{ratio:.2f}x ({postgres.handed_over_s:.3f} s against {sqlite.handed_over_s:.3f} s)",
            ratio <= TARGET_POSTGRES_RATIO,
        )
    ]
    groups: dict[tuple[str, int], list[Dispatch]] = {}
    for run in [*(run for pair in figures.compared for run in pair), *runs[2:]]:
        groups.setdefault((run.backend, run.workers), []).append(run)
    for (backend, workers), group in groups.items():
        found.append(
            Check(
                f"{backend}, {workers} worker{'s' if workers > 1 else ''}"
                f" ({len(group)} run{'s' if len(group) > 1 else ''}):"
                " each due user sent exactly one check-in",
                f"{DUE:,} sent, none twice",
                "; ".join(
                    f"{run.sent:,} sent to {run.distinct:,} users, {run.twice} twice"
                    for run in group
                ),
                all(run.sent == run.distinct == DUE and run.twice == 0 for run in group),
            )
        )
    found.append(
        Check(
            "kill -9 mid-dispatch: none sent twice, none lost but those on the wire",
            "0 twice, lost ≤ on the wire",
            f"{kill.sent:,} sent, {kill.twice} twice, {kill.lost} lost,"
            f" {kill.on_the_wire} on the wire",
            kill.twice == 0 and kill.lost <= kill.on_the_wire,
        )
    )
    return [*found, *memory_checks(figures.memory), *platform_checks(figures.platforms)]


def report(figures: Figures, found: Sequence[Check], command: str) -> str:
    runs, kill = figures.runs, figures.kill
    host = machine(["asyncpg", "aiosqlite", "python-telegram-bot"])
    lines = [
        host.describe(),
        "",
        f"Command: `{command}`",
        "",
        "| Backend | Workers | Run | Start-up (s, slowest) | 10,000 due handed over (s)"
        " | Sent | Twice |",
        "|---|---|---|---|---|---|---|",
    ]
    listed = [
        (run, f"round {number}") for number, pair in enumerate(figures.compared, 1) for run in pair
    ]
    for run, label in [*listed, *((run, "") for run in runs[2:])]:
        lines.append(
            f"| {run.backend} | {run.workers} | {label} | {run.startup_s:.3f}"
            f" | {run.handed_over_s:.3f} | {run.sent:,} | {run.twice} |"
        )
    lines += [
        "",
        f"SQLite and PostgreSQL with 1 worker ran {len(figures.compared)} rounds, one after"
        " the other in each, on fresh copies of the database; the target compares their"
        f" medians: {runs[1].handed_over_s:.3f} s against {runs[0].handed_over_s:.3f} s.",
    ]
    lines += [
        "",
        f"kill -9 of one of two workers after it sent {kill.sent_before_kill:,}: the other"
        f" took over {kill.taken_over:,} unsent rows once their lease ran out;"
        f" {kill.sent:,} sent to {kill.distinct:,} users, {kill.twice} twice, {kill.lost} lost,"
        f" {kill.on_the_wire} rows on the wire (attempt started, never sent again).",
        "",
        "### Memory flat in users",
        "",
        *memory_report(figures.memory),
        "",
        "### Telegram with several workers",
        "",
        *platform_report(figures.platforms),
        "",
        "### Targets",
        "",
        "| Target | Limit | Measured | Result |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {check.name} | {check.limit} | {check.measured} | {_result(check)} |" for check in found
    ]
    lines += [
        "",
        "How to read it: every worker is a process of its own on the same machine, so with"
        " more workers than cores they share the CPUs; the figure shows that the claims,"
        " the outbox rows and the let-go rounds stay correct under contention, not what"
        " more machines would add. Start-up is open_services (content pack, key check,"
        " database pool) to the outbox started.",
    ]
    return "\n".join(lines)


def _result(check: Check) -> str:
    return "pass" if check.passed else "FAIL"


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--key", help=argparse.SUPPRESS)
    parser.add_argument("--database-url", help=argparse.SUPPRESS)
    parser.add_argument("--sqlite", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--send-delay", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        asyncio.run(run_worker(args))
        return 0
    server = postgres_server()
    if not server:
        print("set STEADY_BENCH_POSTGRES_URL to a PostgreSQL server to use", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="steady-scale-"))
    try:
        figures = asyncio.run(run_all(server, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    found = checks(figures)
    runs, kill = figures.runs, figures.kill
    text = report(figures, found, shown_command(["bench/scale.py", *argv]))
    print(text)
    write_section(SECTION, text)
    if args.json:
        shown: dict[str, float | int | None] = {
            f"{run.backend.lower()}_{run.workers}_handed_over_s": run.handed_over_s for run in runs
        }
        shown["postgres_share_of_sqlite"] = runs[1].handed_over_s / runs[0].handed_over_s
        shown["postgres_round_trip_share"] = figures.platforms.postgres_ratio
        for backend in ("SQLite", "PostgreSQL"):
            shown[f"rss_ratio_{backend.lower()}_ticked"] = figures.memory.ratio(backend, "ticked")
        shown.update(
            kill_sent=kill.sent,
            kill_twice=kill.twice,
            kill_lost=kill.lost,
            kill_on_the_wire=kill.on_the_wire,
        )
        print_json_figures(
            shown,
            {
                "postgres_share_of_sqlite": TARGET_POSTGRES_RATIO,
                "postgres_round_trip_share": TARGET_POSTGRES_RATIO,
            },
            machine().commit,
        )
    return 0 if all(check.passed for check in found) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
