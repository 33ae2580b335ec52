"""Memory flat in users: a worker's RSS with 1,000,000 users within 10% of its RSS with 10,000.

Run from the repo root with a PostgreSQL server to use (`.ci/postgres.sh` starts one):

    STEADY_BENCH_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python -m bench.scale_memory

Two databases are built as the dispatch benchmark builds them (`prepare_database`):
10,000 users and 1,000,000 users, each with the same 5,000 check-ins due at one minute,
so only the number of users differs. Each is used as it is (SQLite) and copied into a
fresh PostgreSQL database. On each of the four a worker runs in a fresh process of its
own (`--worker`): the bot's own services, outbox and dispatcher, as bench/scale.py's
workers, with an injected clock. It reports its resident set size (VmRSS, what it holds
now; VmHWM, its peak so far, for context) once started, with nothing due yet, and again
after one tick that claimed the due check-ins and an outbox that sent them all.

Nothing per user should stay in a worker's memory: the ratio 1M / 10k of each reading
must be at most 1.10. Prints a table; it never writes bench/RESULTS.md. Exit status 1
when a target is missed.
"""

from __future__ import annotations

import _sqlite3
import argparse
import asyncio
import contextlib
import ctypes
import functools
import gc
import json
import math
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import asyncpg

from bench.common import REPO, Check, shown_command
from bench.dispatch import DUE_AT, MB, PLANNED_AT, prepare_database
from bench.scale_workers import (
    RecordingSends,
    postgres_copy,
    postgres_server,
    scheduled_sending,
    worker_settings,
)
from bot.app import open_services
from bot.core.clock import ManualClock
from bot.storage.crypto import generate_key_text
from bot.storage.db import Database
from bot.storage.queries import to_epoch

FEW_USERS = 10_000
MANY_USERS = 1_000_000
# The same at both sizes: the tick's own work (5 chunks of 1,000 claimed, 5,000 sent)
# is then the same, and only what the worker holds per user could tell them apart.
DUE = 5_000
TARGET_RATIO = 1.10
BACKENDS = ("SQLite", "PostgreSQL")
WORKER_TIMEOUT_S = 120.0  # a guard against a hung child, never a wait for it to be ready


# --- what a worker measures ----------------------------------------------------------------


def _status_mb(field_name: str) -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field_name + ":"):
                return int(line.split()[1]) * 1024 / MB
    raise RuntimeError(f"{field_name} not in /proc/self/status")


@functools.cache
def _sqlite_library() -> ctypes.CDLL:
    """The SQLite library the sqlite3 module is linked with (dlopen finds the one loaded)."""
    return ctypes.CDLL(_sqlite3.__file__)


def sqlite_heap_mb() -> float:
    """SQLite's own `sqlite3_memory_used()`: every byte its allocator holds now, page
    caches included; NaN where the library does not export it."""
    try:
        used = _sqlite_library().sqlite3_memory_used
    except (AttributeError, OSError):
        return math.nan
    used.restype = ctypes.c_int64
    return int(used()) / MB


@dataclass(frozen=True)
class Reading:
    """One moment of a worker's memory, in decimal MB (and blocks)."""

    rss_mb: float  # VmRSS: resident now
    peak_mb: float  # VmHWM: the most resident since the process began
    sqlite_heap_mb: float  # SQLite's allocator, page caches included (near 0 on PostgreSQL)
    python_blocks: int  # objects and buffers Python's allocator holds

    @classmethod
    def now(cls) -> Reading:
        # Collected first, so garbage that a later collection would have freed anyway
        # is not counted in one reading and not in another by chance.
        gc.collect()
        return cls(
            rss_mb=_status_mb("VmRSS"),
            peak_mb=_status_mb("VmHWM"),
            sqlite_heap_mb=sqlite_heap_mb(),
            python_blocks=sys.getallocatedblocks(),
        )


# --- the worker child ----------------------------------------------------------------------


def report_line(kind: str, **values: object) -> None:
    print(f"{kind} {json.dumps(values)}", flush=True)


async def run_worker(args: argparse.Namespace) -> None:
    """Start as bench/scale.py's worker does, read; tick at the due minute, drain, read."""
    settings = worker_settings(args.database_url, args.sqlite, args.key, args.data_dir)
    clock = ManualClock(PLANNED_AT)
    adapter = RecordingSends(0.0)  # prints "sent <user>" for each: the parent counts them
    async with open_services(settings, clock) as services:
        outbox, dispatcher = scheduled_sending(
            services, clock, adapter, sole_worker=args.database_url is None
        )
        await outbox.start()
        try:
            cache = await sqlite_cache_kib(services.db) if args.database_url is None else None
            report_line("started", reading=asdict(Reading.now()), cache_kib=cache)
            clock.set(DUE_AT)
            report = await dispatcher.tick()
            await outbox.drain()
            report_line("ticked", reading=asdict(Reading.now()), claimed=report.claimed)
        finally:
            await outbox.stop()


async def sqlite_cache_kib(db: Database) -> int:
    """The most page cache one of the worker's SQLite connections may hold, in KiB: the
    bot sets no cache_size, so each has the library's default."""
    cache = await db.fetch_one("PRAGMA cache_size")
    page = await db.fetch_one("PRAGMA page_size")
    assert cache is not None and page is not None
    # Negative: a size in KiB; positive: a number of pages (SQLite's convention).
    size = int(cache[0])
    return -size if size < 0 else size * int(page[0]) // 1024


# --- the parent: databases -----------------------------------------------------------------


@dataclass(frozen=True)
class Sizes:
    few: int = FEW_USERS
    many: int = MANY_USERS
    due: int = DUE


@dataclass(frozen=True)
class Target:
    """One database a worker runs on: a SQLite file, or a PostgreSQL database."""

    backend: str
    users: int
    sqlite_path: Path | None = None
    database_url: str | None = None


async def database_size_mb(target: Target, due: int) -> float:
    """The database's size on disk; refuses one that does not hold what the figures
    claim (checked here, not in the worker, whose reads would fill its page cache)."""
    if target.sqlite_path is not None:
        return target.sqlite_path.stat().st_size / MB
    connection = await asyncpg.connect(target.database_url)
    try:
        users = await connection.fetchval("SELECT COUNT(*) FROM users")
        due_now = await connection.fetchval(
            "SELECT COUNT(*) FROM checkin_slots WHERE next_due_at <= $1", to_epoch(DUE_AT)
        )
        size = await connection.fetchval("SELECT pg_database_size(current_database())")
    finally:
        await connection.close()
    assert (users, due_now) == (target.users, due), (users, due_now)
    return int(size) / MB


# --- the parent: workers -------------------------------------------------------------------


@dataclass
class WorkerRun:
    backend: str
    users: int
    due: int
    database_mb: float
    started: Reading
    ticked: Reading
    claimed: int
    sent: int  # messages the adapter was given
    distinct: int  # users they went to
    cache_kib: int | None  # SQLite: each connection's page cache bound


async def run_one_worker(target: Target, key: str, due: int, data_dir: Path) -> WorkerRun:
    """A fresh child process for one reading pair; stopped, whatever happens."""
    database_mb = await database_size_mb(target, due)
    command = [sys.executable, "-m", "bench.scale_memory", "--worker", "--key", key]
    command += ["--data-dir", str(data_dir)]
    if target.database_url is not None:
        command += ["--database-url", target.database_url]
    else:
        command += ["--sqlite", str(target.sqlite_path)]
    process = await asyncio.create_subprocess_exec(
        *command, cwd=REPO, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE
    )
    try:
        lines = await asyncio.wait_for(worker_lines(process), WORKER_TIMEOUT_S)
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        await process.wait()
    if process.returncode != 0:
        raise RuntimeError(f"{target.backend} worker with {target.users:,} users failed")
    sent = Counter(lines.sent)
    return WorkerRun(
        backend=target.backend,
        users=target.users,
        due=due,
        database_mb=database_mb,
        started=lines.readings["started"],
        ticked=lines.readings["ticked"],
        claimed=lines.claimed,
        sent=sum(sent.values()),
        distinct=len(sent),
        cache_kib=lines.cache_kib,
    )


@dataclass
class WorkerLines:
    readings: dict[str, Reading] = field(default_factory=dict)
    sent: list[str] = field(default_factory=list)
    claimed: int = 0
    cache_kib: int | None = None


async def worker_lines(process: asyncio.subprocess.Process) -> WorkerLines:
    """Everything the worker printed, until it closed its output (it has ended)."""
    assert process.stdout is not None
    found = WorkerLines()
    async for raw in process.stdout:
        kind, _, rest = raw.decode().strip().partition(" ")
        if kind == "sent":
            found.sent.append(rest)
        elif kind in ("started", "ticked"):
            values = json.loads(rest)
            found.readings[kind] = Reading(**values["reading"])
            found.claimed = int(values.get("claimed", found.claimed))
            found.cache_kib = values.get("cache_kib", found.cache_kib)
    await process.wait()
    return found


# --- the parent: the whole measurement -----------------------------------------------------


@dataclass
class MemoryFigures:
    sizes: Sizes
    runs: list[WorkerRun]
    prepare_s: dict[int, float]  # users -> seconds to build their SQLite database
    seconds: float  # the whole measurement

    def run(self, backend: str, users: int) -> WorkerRun:
        return next(r for r in self.runs if r.backend == backend and r.users == users)

    def ratio(self, backend: str, moment: str) -> float:
        """RSS with many users over RSS with few, at `moment` ("started" or "ticked")."""
        many = getattr(self.run(backend, self.sizes.many), moment)
        few = getattr(self.run(backend, self.sizes.few), moment)
        return float(many.rss_mb / few.rss_mb)


async def measure_memory(server: str, folder: Path) -> MemoryFigures:
    """The four worker runs (SQLite and PostgreSQL, 10,000 and 1,000,000 users)."""
    return await measure(server, folder, Sizes())


async def measure(server: str, folder: Path, sizes: Sizes) -> MemoryFigures:
    began = time.perf_counter()
    key = generate_key_text()
    runs: list[WorkerRun] = []
    prepare_s: dict[int, float] = {}
    for users in (sizes.few, sizes.many):
        sqlite_path = folder / f"users-{users}" / "steady.db"
        sqlite_path.parent.mkdir(parents=True)
        data_dir = folder / f"data-{users}"
        data_dir.mkdir()
        print(f"preparing {users:,} users, {sizes.due:,} due …", file=sys.stderr)
        prepare_s[users] = (await prepare_database(sqlite_path, users, sizes.due)).seconds
        print(f"copying {users:,} users into PostgreSQL …", file=sys.stderr)
        async with postgres_copy(sqlite_path, server, key, data_dir) as url:
            # The copy is taken before the SQLite run uses up the file's due slots.
            postgres = Target("PostgreSQL", users, database_url=url)
            for target in (Target("SQLite", users, sqlite_path=sqlite_path), postgres):
                print(f"worker on {target.backend}, {users:,} users …", file=sys.stderr)
                runs.append(await run_one_worker(target, key, sizes.due, data_dir))
        shutil.rmtree(sqlite_path.parent)  # a million users take some 200 MB of disk
    return MemoryFigures(sizes, runs, prepare_s, time.perf_counter() - began)


# --- the figures' checks and report ---------------------------------------------------------


MOMENTS = {"started": "after start", "ticked": "after a tick"}


def memory_checks(figures: MemoryFigures) -> list[Check]:
    sizes = figures.sizes
    found = []
    for backend in BACKENDS:
        few, many = figures.run(backend, sizes.few), figures.run(backend, sizes.many)
        for moment, words in MOMENTS.items():
            ratio = figures.ratio(backend, moment)
            found.append(
                Check(
                    f"{backend}: worker RSS {words}, {sizes.many:,} users against {sizes.few:,}",
                    f"≤ {TARGET_RATIO:.2f}x",
                    f"{ratio:.3f}x ({getattr(many, moment).rss_mb:.1f} MB against"
                    f" {getattr(few, moment).rss_mb:.1f} MB)",
                    ratio <= TARGET_RATIO,
                )
            )
        # A tick that sent nothing would pass the memory target for nothing.
        found.append(
            Check(
                f"{backend}: each tick sent every due user one check-in",
                f"{sizes.due:,} sent, none twice, at both sizes",
                "; ".join(
                    f"{r.users:,} users: {r.sent:,} sent to {r.distinct:,}" for r in (few, many)
                ),
                all(r.sent == r.distinct == r.claimed == sizes.due for r in (few, many)),
            )
        )
    return found


def memory_report(figures: MemoryFigures) -> list[str]:
    sizes = figures.sizes
    lines = [
        "| Backend | Users | Database (MB) | RSS after start (MB) | RSS after tick (MB)"
        " | Peak RSS (MB) | SQLite heap after start / tick (MB) | Python blocks after tick |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in figures.runs:
        lines.append(
            f"| {run.backend} | {run.users:,} | {run.database_mb:.1f} | {run.started.rss_mb:.1f}"
            f" | {run.ticked.rss_mb:.1f} | {run.ticked.peak_mb:.1f}"
            f" | {run.started.sqlite_heap_mb:.2f} / {run.ticked.sqlite_heap_mb:.2f}"
            f" | {run.ticked.python_blocks:,} |"
        )
    for backend in BACKENDS:
        lines.append(
            f"| {backend} | ratio {sizes.many // sizes.few:,}x users | |"
            f" {figures.ratio(backend, 'started'):.3f}x | {figures.ratio(backend, 'ticked'):.3f}x"
            " | | | |"
        )
    cache = next((r.cache_kib for r in figures.runs if r.cache_kib is not None), None)
    cache_words = "unknown" if cache is None else f"{cache:,} KiB"
    lines += [
        "",
        "How to read it:",
        "",
        "- Each row is a worker in a fresh process of its own (the bot's open_services,"
        " Outbox and dispatcher, as in the scale runs) on a database of"
        f" {sizes.few:,} or {sizes.many:,} users with the same {sizes.due:,} check-ins due;"
        " the SQLite file is the one built, the PostgreSQL database a fresh copy of it."
        f" {_built(figures)}",
        "- RSS after start is read once the outbox has started, nothing due yet; RSS after"
        " tick once one tick has claimed every due check-in and the outbox has sent them"
        " all. Both are VmRSS (resident now) after a garbage collection; the target is a"
        f" ratio of at most {TARGET_RATIO:.2f} between the two sizes, for each. Peak RSS is"
        " VmHWM, the most the process held at any moment up to the second reading.",
        "- SQLite heap is what SQLite's allocator holds (sqlite3_memory_used), page caches"
        f" above all. Each connection's cache is bounded (cache_size: {cache_words}, the"
        " library's default; the bot sets none) and a worker opens three (writer, reader,"
        " the event loop's own reader), so it stops growing with the file. On PostgreSQL"
        " the pages are cached in the server, not in the worker.",
        "- Python blocks counts the objects and buffers Python's allocator holds: anything"
        " kept per user (a cache, a query reading every user) would grow it with the users.",
    ]
    return lines


def _built(figures: MemoryFigures) -> str:
    files = " and ".join(f"{s:.1f} s for {users:,}" for users, s in figures.prepare_s.items())
    return (
        f"Building the SQLite files took {files} users (outside every reading); the whole"
        f" measurement, copies and workers included, {figures.seconds:.1f} s."
    )


# --- running it -----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--few", type=int, default=FEW_USERS, help="users in the small database")
    parser.add_argument("--many", type=int, default=MANY_USERS, help="users in the large one")
    parser.add_argument("--due", type=int, default=DUE, help="check-ins due, at both sizes")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--key", help=argparse.SUPPRESS)
    parser.add_argument("--database-url", help=argparse.SUPPRESS)
    parser.add_argument("--sqlite", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        asyncio.run(run_worker(args))
        return 0
    server = postgres_server()
    if not server:
        print("set STEADY_BENCH_POSTGRES_URL to a PostgreSQL server to use", file=sys.stderr)
        return 2
    sizes = Sizes(args.few, args.many, args.due)
    with tempfile.TemporaryDirectory(prefix="steady-memory-") as folder:
        figures = asyncio.run(measure(server, Path(folder), sizes))
    found = memory_checks(figures)
    print(f"Command: `{shown_command(['-m', 'bench.scale_memory', *(argv or [])])}`")
    print(f"Measured in {figures.seconds:.1f} s.\n")
    print("\n".join(memory_report(figures)))
    print("\n| Target | Limit | Measured | Result |\n|---|---|---|---|")
    for check in found:
        result = "pass" if check.passed else "FAIL"
        print(f"| {check.name} | {check.limit} | {check.measured} | {result} |")
    return 0 if all(check.passed for check in found) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
