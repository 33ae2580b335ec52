"""Write-lock benchmark: how long the single SQLite writer is held at a time.

Run from the repo root:

    .venv/bin/python bench/write_lock.py

SQLite has one writer. While a transaction holds it, every other write waits: the
step of a reply, a saved check-in, a claim of due work. This measures the longest
single hold (BEGIN to COMMIT, as `Database.write_holds` times it) of:

* the tick with 10,000 check-ins due (100,000 users, the dispatch benchmark's data),
  claimed and handed to a null adapter;
* the daily retention purge over 5,000,000 check-ins of 1,000,000 users, spread over
  400 days, a tenth of the users keeping less than the operator's 180 days;
* the daily purge of 5,000,000 sent-message records spread over 60 days (kept: 30);
* a group's move to its new chat id with those 1,000,000 users (a Telegram group
  upgraded to a supergroup), and the 2-second write of new sent-message records.

Target: no hold longer than 0.1 s. With `--json` the last line printed is one JSON
object with every figure and its target. The figures go to the "Write lock" section
of bench/RESULTS.md. The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.common import Check, Machine, machine, percentile, shown_command
from bench.dispatch import (
    DEFAULT_DUE,
    DEFAULT_USERS,
    DUE_AT,
    PLANNED_AT,
    NullAdapter,
    bench_settings,
    first_open,
    prepare_database,
)
from bench.results import write_section
from bot.adapters.telegram.adapter import DELETE_WINDOW
from bot.app import open_services, scheduled_delivery
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.delivery.sent_log import SentLog
from bot.engine.router import Router
from bot.reminders.chat_moves import follow_chat_move
from bot.storage import sent_messages
from bot.storage.batching import AIM_SECONDS
from bot.storage.db import Database
from bot.storage.queries import to_epoch
from bot.storage.retention import purge_expired

SECTION = "Write lock"
TARGET_HOLD_S = 0.1
RETENTION_DAYS = 180
HISTORY_DAYS = 400
SENT_DAYS = 60
DAY_S = 86_400
NOW = DUE_AT  # the instant the housekeeping runs at


@dataclass
class WriteLockResult:
    commit: str
    tick_due: int
    tick_users: int
    tick_write_hold_s: float
    tick_handed_over: int
    retention_users: int
    retention_checkins: int
    retention_purged: int
    retention_write_hold_s: float
    retention_total_s: float
    retention_trips: int
    retention_holds: str  # every hold of the purge: count, p50, p99, max, over the target
    retention_checkpoint_hold_s: float  # the last: old rows copied out of the log
    sent_rows: int
    sent_purged: int
    sent_purge_write_hold_s: float
    sent_purge_total_s: float
    sent_purge_holds: str
    chat_move_users: int
    chat_move_write_hold_s: float
    sent_flush_write_hold_s: float
    fill_s: float
    max_write_hold_s: float
    target_tick_write_hold_s: float = TARGET_HOLD_S
    target_retention_write_hold_s: float = TARGET_HOLD_S
    target_sent_purge_write_hold_s: float = TARGET_HOLD_S
    target_chat_move_write_hold_s: float = TARGET_HOLD_S
    target_sent_flush_write_hold_s: float = TARGET_HOLD_S
    target_max_write_hold_s: float = TARGET_HOLD_S


# --- filling ---------------------------------------------------------------------------------


def fill_history(path: Path, users: int, checkins: int, sent: int) -> None:
    """Users, check-ins and sent-message records, generated inside SQLite (a recursive
    CTE per table), with the indexes the migrations made."""
    now = to_epoch(NOW)
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA synchronous=OFF")
        connection.execute("BEGIN")
        # Quicker to build the indexes once the rows are in: kept as the migrations made
        # them, dropped, and made again after.
        indexes = [
            str(row[0])
            for row in connection.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
                " AND tbl_name IN ('users', 'checkins', 'sent_messages')"
            )
        ]
        names = connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
            " AND tbl_name IN ('users', 'checkins', 'sent_messages')"
        ).fetchall()
        for (name,) in names:
            connection.execute(f'DROP INDEX "{name}"')
        # Every tenth user keeps less: 7, 30 or 90 days; the rest follow the operator.
        connection.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
            " INSERT INTO users (id, platform, platform_user_id, chat_id, locale, created_at,"
            " keep_days)"
            " SELECT i, 'telegram', 'u' || i, CASE WHEN i % 1000 = 0 THEN '-100' ELSE 'c' || i"
            " END, 'en', ?, CASE i % 10 WHEN 1 THEN 7 WHEN 2 THEN 30 WHEN 3 THEN 90 END FROM n",
            (users, now - HISTORY_DAYS * DAY_S),
        )
        # In answer order, as they are written: each row a user's, ages over 400 days.
        connection.execute(
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
            " INSERT INTO checkins (user_id, answered_at, mood, urge)"
            " SELECT 1 + (i * 7919) % ?, ? - ((? - i) * ?) / ?, 1 + i % 5, 'none' FROM n",
            (checkins - 1, users, now, checkins, HISTORY_DAYS * DAY_S, checkins),
        )
        connection.execute(
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
            " INSERT INTO sent_messages (user_id, chat_id, message_id, sent_at)"
            " SELECT 1 + (i * 7919) % ?, 'c', 'm' || i, ? - ((? - i) * ?) / ? FROM n",
            (sent - 1, users, now, sent, SENT_DAYS * DAY_S, sent),
        )
        for sql in indexes:
            connection.execute(sql)
        connection.execute("COMMIT")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


# --- measuring -------------------------------------------------------------------------------


class HoldLog:
    """Every writer hold, as `Database` times it, kept in order."""

    def __init__(self, db: Database) -> None:
        self.holds: list[float] = []
        timed = db._held

        def held(since: float) -> None:
            timed(since)
            self.holds.append(db.write_holds.last)

        db._held = held  # type: ignore[method-assign]

    def spread(self, first: int) -> str:
        """Holds from index `first` on: how many, p50, p99, max, and how many over target."""
        holds = self.holds[first:]
        over = sum(1 for hold in holds if hold > TARGET_HOLD_S)
        return (
            f"{len(holds):,} holds, p50 {1000 * percentile(holds, 0.5):.1f} ms,"
            f" p99 {1000 * percentile(holds, 0.99):.1f} ms,"
            f" max {1000 * max(holds, default=0.0):.1f} ms, {over} over {TARGET_HOLD_S} s"
        )


async def longest_hold(
    db: Database, work: Callable[[], Awaitable[Any]]
) -> tuple[float, Any, float]:
    """The longest writer hold while `work` runs, what it returned, and its total time."""
    db.write_holds.reset()
    started = time.perf_counter()
    result = await work()
    return db.write_holds.reset(), result, time.perf_counter() - started


async def measure_tick(folder: Path) -> tuple[float, int]:
    db_path = folder / "tick.db"
    await prepare_database(db_path, DEFAULT_USERS, DEFAULT_DUE)
    await first_open(db_path)
    settings = bench_settings(db_path)
    clock = ManualClock(PLANNED_AT)
    adapter = NullAdapter()
    async with open_services(settings, clock) as services:
        router = Router(services)
        async with scheduled_delivery(settings, router, {adapter.platform: adapter}) as delivery:
            await delivery.runner.stop()  # only the measured tick claims
            clock.set(DUE_AT)

            async def tick() -> None:
                await delivery.dispatcher.tick()
                await delivery.outbox.drain()

            hold, _, _ = await longest_hold(services.db, tick)
    return hold, adapter.sent


async def run(folder: Path, commit: str, users: int, checkins: int, sent: int) -> WriteLockResult:
    tick_hold, handed_over = await measure_tick(folder)
    history = folder / "history.db"
    db = await Database.open(history)  # the schema, by the migrations
    await db.close()
    started = time.perf_counter()
    fill_history(history, users, checkins, sent)
    fill_s = time.perf_counter() - started
    db = await Database.open(history)
    log_of = HoldLog(db)
    try:
        trips_before = db.hops
        retention_hold, purged, retention_s = await longest_hold(
            db, lambda: purge_expired(db, NOW, RETENTION_DAYS)
        )
        retention_trips = db.hops - trips_before
        retention_spread = log_of.spread(0)
        retention_checkpoint = log_of.holds[-1]  # it ends with one (old rows out of the log)
        sent_first = len(log_of.holds)
        cutoff = NOW - DELETE_WINDOW.kept
        sent_hold, sent_purged, sent_s = await longest_hold(
            db, lambda: sent_messages.purge_older_than(db, cutoff)
        )
        sent_spread = log_of.spread(sent_first)
        move_hold, _, _ = await longest_hold(
            db, lambda: follow_chat_move(db, "telegram", "-100", "-1000100")
        )
        log = SentLog(db, ManualClock(NOW), "telegram", DELETE_WINDOW)
        for n in range(50):  # what two seconds of a busy bot send
            log.remember(Address("telegram", f"c{n + 1}", f"u{n + 1}"), f"new{n}")
        flush_hold, _, _ = await longest_hold(db, log.flush)
    finally:
        await db.close()
    holds = (tick_hold, retention_hold, sent_hold, move_hold, flush_hold)
    return WriteLockResult(
        commit=commit,
        tick_due=DEFAULT_DUE,
        tick_users=DEFAULT_USERS,
        tick_write_hold_s=tick_hold,
        tick_handed_over=handed_over,
        retention_users=users,
        retention_checkins=checkins,
        retention_purged=purged.checkins,
        retention_write_hold_s=retention_hold,
        retention_total_s=retention_s,
        retention_trips=retention_trips,
        retention_holds=retention_spread,
        retention_checkpoint_hold_s=retention_checkpoint,
        sent_rows=sent,
        sent_purged=sent_purged,
        sent_purge_write_hold_s=sent_hold,
        sent_purge_total_s=sent_s,
        sent_purge_holds=sent_spread,
        chat_move_users=users,
        chat_move_write_hold_s=move_hold,
        sent_flush_write_hold_s=flush_hold,
        fill_s=fill_s,
        max_write_hold_s=max(holds),
    )


# --- reporting -------------------------------------------------------------------------------


def checks(result: WriteLockResult) -> list[Check]:
    def hold(name: str, seconds: float) -> Check:
        return Check(name, f"≤ {TARGET_HOLD_S} s", f"{seconds:.4f} s", seconds <= TARGET_HOLD_S)

    return [
        hold(f"Tick, {result.tick_due:,} due", result.tick_write_hold_s),
        hold(
            f"Retention purge, {result.retention_checkins:,} check-ins",
            result.retention_write_hold_s,
        ),
        hold(f"Sent-message purge, {result.sent_rows:,} records", result.sent_purge_write_hold_s),
        hold(f"Group move, {result.chat_move_users:,} users", result.chat_move_write_hold_s),
        hold("New sent-message records (every 2 s)", result.sent_flush_write_hold_s),
    ]


def render(
    result: WriteLockResult, found: Sequence[Check], argv: Sequence[str], host: Machine
) -> str:
    met = all(check.passed for check in found)
    rows = "\n".join(
        f"| {c.name} | {c.limit} | {c.measured} | {'pass' if c.passed else 'MISSED'} |"
        for c in found
    )
    return f"""Command, from the repo root: `{shown_command(["bench/write_lock.py", *argv])}`

{host.describe()}

The longest single hold of the SQLite writer (BEGIN to COMMIT, timed by
`Database.write_holds`) while each job ran. While one transaction holds it, every
other write waits, a user's reply among them. The machine was shared and busy: the
figures are noisy.

**Result: {"all targets met" if met else "a target was missed"}.**

| Writer held by | Limit | Longest hold | Result |
|---|---|---|---|
{rows}

How to read it:

- Tick: {result.tick_users:,} users, {result.tick_due:,} of them due in the same minute
  (the dispatch benchmark's data), claimed, started and handed to a null adapter
  ({result.tick_handed_over:,} handed over).
- Retention: {result.retention_checkins:,} check-ins of {result.retention_users:,} users over
  {HISTORY_DAYS} days, operator's retention {RETENTION_DAYS} days, every tenth user keeping
  7, 30 or 90 days; {result.retention_purged:,} purged in {result.retention_total_s:.1f} s
  ({result.retention_trips:,} trips to the database thread), in batches of row ids
  sized to hold the writer about {1000 * AIM_SECONDS:.0f} ms each: {result.retention_holds}; the
  checkpoint at its end (deleted rows out of the write-ahead log)
  {result.retention_checkpoint_hold_s:.4f} s.
  One transaction over all of them held the writer 10.4-11.2 s before.
- Sent messages: {result.sent_rows:,} records over {SENT_DAYS} days, those older than
  {DELETE_WINDOW.kept.days} days purged daily ({result.sent_purged:,}, in
  {result.sent_purge_total_s:.1f} s; {result.sent_purge_holds}), found by the index on
  `sent_at`. Writing new
  records (every 2 s) no longer purges: {result.sent_flush_write_hold_s:.4f} s.
- Group move: the users of one chat among {result.chat_move_users:,}, found by the index on
  (platform, chat_id); 0.25 s with every user read before.
- Filling the data ({result.fill_s:.1f} s, recursive CTE inserts) is not measured.
"""


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--checkins", type=int, default=5_000_000)
    parser.add_argument("--sent", type=int, default=5_000_000)
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--no-write", action="store_true", help="leave RESULTS.md alone")
    return parser.parse_args(argv)


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    host = machine()  # before the run: the code measured is the code of this commit
    with tempfile.TemporaryDirectory(prefix="steady-write-lock-") as folder:
        result = asyncio.run(run(Path(folder), host.commit, args.users, args.checkins, args.sent))
    found = checks(result)
    shown = [argument for argument in argv if argument != "--json"]
    report = render(result, found, shown, host)
    print(report)
    if not args.no_write:
        write_section(SECTION, report)
    if args.json:
        print(json.dumps(asdict(result)))
    return 0 if all(check.passed for check in found) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
