"""Dispatch benchmark: 100,000 schedules in 20 time zones, 10,000 of them due in the same minute.

Run from the repo root:

    .venv/bin/python bench/dispatch.py

It prepares a database in a temporary folder, then runs each variant in a
fresh child process of its own so one variant's memory never shows up in the
other's figures:

* `--variant steady`: the bot as it starts in production (open_services, a
  Router, scheduled_delivery with its Outbox, Dispatcher and TickRunner), an
  injected ManualClock and a null adapter. The clock is moved to the due
  minute and one tick is timed until the adapter has all 10,000 messages.
  A task that asks to wake every 10 ms measures the longest the event loop
  was held up (a reply would have waited that long) from the due minute until
  every message is handed over; that is also run once with 50,000 due.
* `--variant apscheduler`: the baseline, one APScheduler 3.11 cron job per
  user, the way python-telegram-bot's JobQueue.run_daily schedules them, with
  no misfire grace (`misfire_grace_time=None`), so every due job runs however
  late and its hand-over time is comparable.

Each child prints one JSON line; this script prints a table and writes it,
with the command and the commit, to the "Dispatch" section of bench/RESULTS.md.
With `--json` its last line is one JSON object with every figure and its
target (`target_<figure>`). The exit status is 1 when a target is missed.

To profile the tick: `--keep-db DIR --prepare-only`, copy DIR/prepared (a run
uses up its due slots), then `--variant steady --db COPY/steady.db --profile`;
the profile goes to stderr and the timings of that run are not representative.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import logging
import math
import os
import pstats
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from apscheduler.events import EVENT_JOB_MISSED, JobExecutionEvent
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger

from bench.common import (
    REPO,
    Check,
    LoopStallProbe,
    Machine,
    machine,
    print_json_figures,
    shown_command,
)
from bench.results import write_section
from bot.app import open_services, scheduled_delivery
from bot.config import Settings
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.platform import SentMessage
from bot.core.replies import Reply
from bot.engine.router import Router
from bot.safety.second_stage import ModelState, stage_for
from bot.scheduling.planner import plan_slot
from bot.scheduling.rules import ALL_DAYS
from bot.scheduling.runner import TickRunner
from bot.storage.db import Database
from bot.storage.queries import to_epoch
from bot.storage.users import User, get_user, weekdays_from_mask, weekdays_to_mask

SECTION = "Dispatch"

# Spread round the globe, with the half- and three-quarter-hour offsets that
# catch "every zone is whole hours" assumptions (St John's, Tehran, Kolkata,
# Kathmandu, Adelaide).
ZONES = (
    "Pacific/Honolulu",
    "America/Anchorage",
    "America/Los_Angeles",
    "America/Denver",
    "America/Chicago",
    "America/New_York",
    "America/St_Johns",
    "America/Sao_Paulo",
    "Atlantic/Azores",
    "Europe/London",
    "Europe/Berlin",
    "Africa/Cairo",
    "Europe/Moscow",
    "Asia/Tehran",
    "Asia/Dubai",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    "Asia/Shanghai",
    "Australia/Adelaide",
    "Pacific/Auckland",
)

DEFAULT_USERS = 100_000
DEFAULT_DUE = 10_000
DEFAULT_STALL_DUE = 50_000  # the loop-stall figure is also taken at this many due

# The due minute T. It lies far in the real future on purpose: TickRunner
# plans its wake-up job from the real wall clock (datetime.now) while the
# dispatcher reads the injected ManualClock. With T in the real past the
# runner would see "due already" and re-tick in a tight loop; with T years
# ahead it plans no wake-up at all, and its interval job next fires
# STEADY_TICK_SECONDS after start. Early March: no zone above changes its
# clocks within days of it, so no DST rule muddles the figures.
DUE_AT = datetime(2036, 3, 4, 12, 0, tzinfo=UTC)
# Every slot is planned as the running bot would have left it at this instant,
# and the ManualClock starts here: 30 s before T, so nothing is due yet.
PLANNED_AT = DUE_AT - timedelta(seconds=30)
CREATED_AT = DUE_AT - timedelta(days=30)

SEED = 20_360_304
INSERT_CHUNK = 25_000
MINUTES_PER_DAY = 24 * 60
MB = 1_000_000  # decimal megabytes, the unit of the 60 MB target

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")

TARGET_STARTUP_S = 1.0
TARGET_RSS_INCREASE_MB = 60.0
TARGET_DUE_S = 1.0
TARGET_BASELINE_RATIO = 5.0  # Steady at most a fifth of the per-job baseline
TARGET_LOOP_STALL_S = 0.1  # no reply waits longer than this behind scheduling work
STALL_PROBE_PERIOD_S = 0.010

# The baseline's 10,000 due jobs fire on the real clock (APScheduler has no
# injectable one), this many seconds after its child begins: enough for its
# start-up (about 20 s with 100k jobs on the 2-core machine) to finish first,
# short enough not to wait real minutes.
DEFAULT_BASELINE_LEAD_S = 45.0
BASELINE_DUE_TIMEOUT_S = 60.0


# --- measurements --------------------------------------------------------------------------


def _status_kb(field_name: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field_name} not in /proc/self/status")


def rss_mb() -> float:
    """Resident set size now, from the kernel (VmRSS), in decimal MB."""
    return _status_kb("VmRSS") * 1024 / MB


def peak_rss_mb() -> float:
    """Highest resident set size since start or since `reset_peak_rss` (VmHWM)."""
    return _status_kb("VmHWM") * 1024 / MB


def reset_peak_rss() -> bool:
    """Restart the kernel's peak-RSS mark, so the next peak is the due handling's own."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return True


@dataclass
class Prepared:
    users: int
    slots: int
    due: int
    due_per_zone: int
    seconds: float


@dataclass
class SteadyResult:
    schedules: int
    startup_s: float
    rss_after_imports_mb: float
    rss_after_start_mb: float
    rss_increase_mb: float
    due: int
    handed_over: int
    due_to_handed_over_s: float
    tick_s: float  # claim, advance and open the check-ins: the dispatcher's tick alone
    delivery_s: float  # outbox workers to the adapter, after the tick returned
    queries_per_tick: int
    startup_queries: int  # key check, first tick, wake-up planning
    claimed: int
    started: int
    peak_rss_during_due_mb: float
    peak_reset_worked: bool
    still_due_after_tick: int
    max_loop_stall_s: float  # the longest a 10 ms probe woke late, due until handed over
    # Whether the learned stage's thread had finished loading the model when the bot was
    # ready; either way it is waited for before RSS and the tick are measured.
    model_loaded_at_ready: bool = False


@dataclass
class BaselineResult:
    schedules: int
    startup_s: float
    rss_after_imports_mb: float
    rss_before_start_mb: float  # after imports and loading its 100k input rows
    rss_after_start_mb: float
    rss_increase_mb: float
    due: int
    due_measured: bool
    due_note: str
    executed: int = 0
    missed: int = 0
    due_to_done_s: float | None = None
    first_late_s: float | None = None


# --- preparing the database -----------------------------------------------------------------


def wall_minute(instant: datetime, zone: str) -> str:
    return f"{instant.astimezone(ZoneInfo(zone)):%H:%M}"


def is_due(index: int, users: int, due: int) -> bool:
    """Every `stride`-th user of each zone, until `due // len(ZONES)` per zone.

    Strided rather than the first ids, so the due rows are scattered across the
    table as they would be in a real database, not packed into its first pages.
    """
    per_zone_index = index // len(ZONES)
    stride = users // due
    return per_zone_index % stride == 0 and per_zone_index // stride < due // len(ZONES)


def local_times(users: int, due: int) -> list[str]:
    """Each user's check-in time: T's wall time for the due ones, any other minute for the rest."""
    rng = random.Random(SEED)
    due_minutes = {zone: wall_minute(DUE_AT, zone) for zone in ZONES}
    times = []
    for index in range(users):
        zone = ZONES[index % len(ZONES)]
        if is_due(index, users, due):
            times.append(due_minutes[zone])
            continue
        minute = rng.randrange(MINUTES_PER_DAY)
        if f"{minute // 60:02d}:{minute % 60:02d}" == due_minutes[zone]:  # only chosen ones at T
            minute = (minute + 1) % MINUTES_PER_DAY
        times.append(f"{minute // 60:02d}:{minute % 60:02d}")
    return times


def user_row(index: int, created: int) -> tuple[Any, ...]:
    """An onboarded user of platform "bench", checking in every day, in zone index % 20."""
    user_id = index + 1
    zone = ZONES[index % len(ZONES)]
    days = weekdays_to_mask(ALL_DAYS)
    return (user_id, "bench", f"u{user_id}", f"c{user_id}", "en", zone, days, created, created)


async def prepare_database(db_path: Path, users: int, due: int) -> Prepared:
    """100k onboarded users with one slot each, planned as the bot would at PLANNED_AT."""
    started = time.perf_counter()
    times = local_times(users, due)
    created = to_epoch(CREATED_AT)
    db = await Database.open(db_path)  # applies the migrations
    try:
        for first in range(0, users, INSERT_CHUNK):
            async with db.transaction() as tx:
                await tx.executemany(
                    "INSERT INTO users (id, platform, platform_user_id, chat_id, locale, timezone,"
                    " weekdays, created_at, onboarded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [user_row(i, created) for i in range(first, min(users, first + INSERT_CHUNK))],
                )
        # Plan with users read back through the repository, exactly as the
        # dispatcher sees them. Users 1..20 are one per zone, and plan_slot's
        # answer depends only on (zone, local time) for these users: 20 x 1440
        # at most, so a cache turns 100k plans into a few thousand.
        zone_users: dict[str, User] = {}
        for user_id in range(1, len(ZONES) + 1):
            user = await get_user(db, user_id)
            assert user is not None and user.timezone is not None
            zone_users[user.timezone] = user
        plans: dict[tuple[str, str], tuple[int, str]] = {}
        for first in range(0, users, INSERT_CHUNK):
            slot_rows = []
            for index in range(first, min(users, first + INSERT_CHUNK)):
                key = (ZONES[index % len(ZONES)], times[index])
                if key not in plans:
                    planned = plan_slot(zone_users[key[0]], key[1], PLANNED_AT, None)
                    assert planned is not None
                    plans[key] = (to_epoch(planned[0]), planned[1].isoformat())
                slot_rows.append((index + 1, times[index], *plans[key]))
            async with db.transaction() as tx:
                await tx.executemany(
                    "INSERT INTO checkin_slots (user_id, local_time, next_due_at, next_local_date)"
                    " VALUES (?, ?, ?, ?)",
                    slot_rows,
                )
    finally:
        await db.close()
    return check_database(db_path, users, due, time.perf_counter() - started)


def check_database(db_path: Path, users: int, due: int, seconds: float) -> Prepared:
    """Refuse to benchmark a database that is not what the figures claim."""
    due_epoch = to_epoch(DUE_AT)
    with sqlite3.connect(db_path) as connection:
        user_count = connection.execute("SELECT COUNT(*) FROM users").fetchone()[0]
        slot_count = connection.execute("SELECT COUNT(*) FROM checkin_slots").fetchone()[0]
        due_count = connection.execute(
            "SELECT COUNT(*) FROM checkin_slots WHERE next_due_at <= ?", (due_epoch,)
        ).fetchone()[0]
        exactly_at_t = connection.execute(
            "SELECT COUNT(*) FROM checkin_slots WHERE next_due_at = ?", (due_epoch,)
        ).fetchone()[0]
        per_zone = connection.execute(
            "SELECT u.timezone, COUNT(*) FROM checkin_slots AS s JOIN users AS u"
            " ON u.id = s.user_id WHERE s.next_due_at <= ? GROUP BY u.timezone",
            (due_epoch,),
        ).fetchall()
    connection.close()
    assert user_count == users and slot_count == users, (user_count, slot_count)
    assert due_count == due == exactly_at_t, (due_count, exactly_at_t)
    assert len(per_zone) == len(ZONES), per_zone
    assert {count for _, count in per_zone} == {due // len(ZONES)}, per_zone
    return Prepared(user_count, slot_count, due_count, due // len(ZONES), seconds)


def bench_settings(db_path: Path) -> Settings:
    """Settings as an operator would give them, through the environment."""
    os.environ["STEADY_DATA_DIR"] = str(db_path.parent)
    os.environ["STEADY_DATABASE_PATH"] = str(db_path)
    os.environ["STEADY_CONTENT_DIR"] = str(REPO / "content")
    for name in ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "STEADY_ENCRYPTION_KEY"):
        os.environ.pop(name, None)
    return Settings(_env_file=None)


async def first_open(db_path: Path) -> None:
    """Create the key file and the database's key check now, so the timed start is a restart."""
    async with open_services(bench_settings(db_path), ManualClock(PLANNED_AT)):
        pass


# --- the steady child -----------------------------------------------------------------------


@dataclass
class NullAdapter:
    """Takes every message and does nothing with it but count."""

    platform: str = "bench"
    sent: int = 0

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        self.sent += 1
        return None

    async def delete(self, message: SentMessage) -> bool:
        return False


async def run_steady(db_path: Path, expected_due: int, profile: bool) -> SteadyResult:
    if datetime.now(UTC) + timedelta(days=1) > DUE_AT:  # see DUE_AT
        raise SystemExit("DUE_AT must lie in the real future: move it on")
    rss_imports = rss_mb()
    settings = bench_settings(db_path)
    clock = ManualClock(PLANNED_AT)
    adapter = NullAdapter()
    async with AsyncExitStack() as stack:
        started = time.perf_counter()
        services = await stack.enter_async_context(open_services(settings, clock))
        router = Router(services)
        delivery = await stack.enter_async_context(
            scheduled_delivery(settings, router, {adapter.platform: adapter})
        )
        # Started means ready: the runner's interval job ticks at once on start
        # (next_run_time=now); wait for that first tick, which finds nothing due.
        await asyncio.wait_for(_first_tick(delivery.runner), timeout=30)
        # The count moves before the tick's last step, planning the wake-up
        # (one read). The reader connection answers in order, so once this
        # read is answered that one has been too, and the tick task is done.
        await services.db.fetch_one("SELECT 1")
        startup = time.perf_counter() - started
        startup_queries = services.db.statements - 1  # not counting the SELECT 1
        # Stop the runner before the measured tick, so no runner tick can claim
        # concurrently and the figures are those of exactly one tick. (Its next
        # interval tick is STEADY_TICK_SECONDS away and, with T years ahead of
        # the real clock, it plans no wake-up job; stopping removes even that.)
        # Stopping cancels a tick still in flight, hence the wait above.
        await delivery.runner.stop()
        # The learned stage loads in a thread of its own from open_services on. Its
        # memory belongs to the started bot, and its import must not share the CPU
        # with the measured tick: it is waited for (it is not part of the start-up).
        stage = stage_for(services.content.folder)
        model_loaded = stage.status.state is not ModelState.NOT_LOADED
        await stage.ready()
        rss_start = rss_mb()
        row = await services.db.fetch_one(
            "SELECT COUNT(*) AS n, COUNT(*) FILTER (WHERE next_due_at <= ?) AS due"
            " FROM checkin_slots",
            (to_epoch(DUE_AT),),
        )
        assert row is not None
        schedules = int(row["n"])
        if row["due"] != expected_due:  # a database this child already ran on
            raise SystemExit(f"{row['due']} slots due at T, expected {expected_due}")

        peak_reset = reset_peak_rss()
        profiler = cProfile.Profile() if profile else None
        probe = LoopStallProbe(STALL_PROBE_PERIOD_S)
        probe.start()
        await asyncio.sleep(0)  # the probe has begun: its first wait counts from here
        clock.set(DUE_AT)
        before = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        report = await delivery.dispatcher.tick()
        ticked = time.perf_counter()
        await delivery.outbox.drain()
        drained = time.perf_counter()
        max_stall = await probe.stop()
        if profiler is not None:
            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(25)
        peak = peak_rss_mb()
        row = await services.db.fetch_one(
            "SELECT COUNT(*) AS n FROM checkin_slots WHERE next_due_at <= ?", (to_epoch(DUE_AT),)
        )
        still_due = 0 if row is None else int(row["n"])
    return SteadyResult(
        schedules=schedules,
        startup_s=startup,
        rss_after_imports_mb=rss_imports,
        rss_after_start_mb=rss_start,
        rss_increase_mb=rss_start - rss_imports,
        due=expected_due,
        handed_over=adapter.sent,
        due_to_handed_over_s=drained - before,
        tick_s=ticked - before,
        delivery_s=drained - ticked,
        queries_per_tick=report.statements,
        startup_queries=startup_queries,
        claimed=report.claimed,
        started=report.started,
        peak_rss_during_due_mb=peak,
        peak_reset_worked=peak_reset,
        still_due_after_tick=still_due,
        max_loop_stall_s=max_stall,
        model_loaded_at_ready=model_loaded,
    )


async def _first_tick(runner: TickRunner) -> None:
    # The runner offers no event for its ticks, only a count; polling every
    # millisecond adds at most a millisecond to the start-up figure.
    while runner.ticks < 1:  # noqa: ASYNC110
        await asyncio.sleep(0.001)


# --- the APScheduler child ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JobSpec:
    """One user's cron job, as PTB's run_daily builds it (hour, minute, second, weekdays)."""

    zone: ZoneInfo
    day_of_week: str
    hour: int
    minute: int
    second: int
    due: bool


def load_job_specs(db_path: Path, target: datetime, expected_due: int) -> list[JobSpec]:
    """The same zones and local times as the database rows.

    The users due at T are those whose local time is T's wall time in their
    zone (the preparation makes sure no one else has it); it is read from the
    rule, not from next_due_at, which the steady child has already advanced.
    They get `target`, a real instant a few seconds ahead, as their wall time
    instead, so APScheduler, which reads the real clock, can be timed on them
    without waiting for T.
    """
    due_minutes = {zone: wall_minute(DUE_AT, zone) for zone in ZONES}
    with sqlite3.connect(db_path) as connection:
        rows = connection.execute(
            "SELECT u.timezone, s.local_time, u.weekdays"
            " FROM checkin_slots AS s JOIN users AS u ON u.id = s.user_id ORDER BY s.id"
        ).fetchall()
    connection.close()
    specs = []
    for zone_name, local_time, mask in rows:
        zone = ZoneInfo(zone_name)
        days = ",".join(DAY_NAMES[day] for day in sorted(weekdays_from_mask(mask)))
        if local_time == due_minutes[zone_name]:
            wall = target.astimezone(zone)
            specs.append(JobSpec(zone, days, wall.hour, wall.minute, wall.second, True))
        else:
            hour, minute = (int(part) for part in local_time.split(":"))
            specs.append(JobSpec(zone, days, hour, minute, 0, False))
    due = sum(spec.due for spec in specs)
    assert due == expected_due, (due, expected_due)
    return specs


async def _noop() -> None:
    return None


@dataclass
class DueCounter:
    """Counts the due jobs as APScheduler runs them, or reports them missed."""

    expected: int
    target: datetime
    executed: int = 0
    missed: int = 0
    first_at: float | None = None
    last_at: float | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)

    async def hit(self) -> None:
        now = time.time()
        if self.first_at is None:
            self.first_at = now
        self.executed += 1
        self._maybe_done(now)

    def on_missed(self, event: JobExecutionEvent) -> None:
        # With misfire_grace_time=None no job should be skipped; counted, in case.
        if event.scheduled_run_time == self.target:
            self.missed += 1
            self._maybe_done(time.time())

    def _maybe_done(self, now: float) -> None:
        if self.executed + self.missed >= self.expected:
            self.last_at = now
            self.done.set()


async def run_apscheduler(db_path: Path, expected_due: int, lead_s: float) -> BaselineResult:
    # APScheduler logs one warning per misfired job; they are counted instead.
    logging.getLogger("apscheduler").setLevel(logging.ERROR)
    rss_imports = rss_mb()
    target = datetime.fromtimestamp(math.ceil(time.time() + lead_s), UTC)
    specs = load_job_specs(db_path, target, expected_due)
    # The baseline's increase is counted from here: its input rows are already
    # in memory, as the bot's are still on disk.
    rss_before = rss_mb()
    counter = DueCounter(expected_due, target)

    started = time.perf_counter()
    scheduler = AsyncIOScheduler(timezone=UTC)
    for spec in specs:
        trigger = CronTrigger(
            day_of_week=spec.day_of_week,
            hour=spec.hour,
            minute=spec.minute,
            second=spec.second,
            timezone=spec.zone,
        )
        # No misfire grace: every due job runs, however late (the default, 1 s, skipped
        # all 10,000 as misfired, which times nothing).
        scheduler.add_job(counter.hit if spec.due else _noop, trigger, misfire_grace_time=None)
    scheduler.start()  # computes every job's next fire time and files it in the job store
    startup = time.perf_counter() - started
    rss_start = rss_mb()

    scheduler.add_listener(counter.on_missed, EVENT_JOB_MISSED)
    result = BaselineResult(
        schedules=len(scheduler.get_jobs()),
        startup_s=startup,
        rss_after_imports_mb=rss_imports,
        rss_before_start_mb=rss_before,
        rss_after_start_mb=rss_start,
        rss_increase_mb=rss_start - rss_before,
        due=expected_due,
        due_measured=False,
        due_note="",
    )
    if time.time() >= target.timestamp():
        result.due_note = f"not measured: start-up outlasted the {lead_s:.0f} s lead"
    else:
        try:
            await asyncio.wait_for(counter.done.wait(), timeout=lead_s + BASELINE_DUE_TIMEOUT_S)
        except TimeoutError:
            result.due_note = "not measured: the due jobs did not all run or miss in time"
        else:
            assert counter.last_at is not None
            result.due_measured = True
            result.due_to_done_s = counter.last_at - target.timestamp()
            if counter.first_at is not None:
                result.first_late_s = counter.first_at - target.timestamp()
        result.executed, result.missed = counter.executed, counter.missed
    scheduler.shutdown(wait=False)
    return result


# --- orchestration and the report -----------------------------------------------------------


def run_child(
    variant: str, db_path: Path, args: argparse.Namespace, due: int | None = None
) -> dict[str, Any]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--variant",
        variant,
        "--db",
        str(db_path),
        "--users",
        str(args.users),
        "--due",
        str(args.due if due is None else due),
        "--baseline-lead",
        str(args.baseline_lead),
    ]
    # stderr passes through, so a child's warnings and tracebacks are seen.
    completed = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, cwd=REPO)
    lines = [line for line in completed.stdout.splitlines() if line.strip()]
    data: dict[str, Any] = json.loads(lines[-1])
    return data


def ratio(baseline: float, steady: float) -> float:
    return baseline / steady if steady > 0 else math.inf


def due_ratio(steady: SteadyResult, baseline: BaselineResult) -> float:
    """Baseline ÷ Steady, due → all handed over; NaN when the baseline was not measured."""
    if not baseline.due_measured or baseline.due_to_done_s is None or baseline.missed:
        return math.nan
    return ratio(baseline.due_to_done_s, steady.due_to_handed_over_s)


def checks(
    steady: SteadyResult, baseline: BaselineResult, stall_run: SteadyResult | None
) -> list[Check]:
    start_ratio = ratio(baseline.startup_s, steady.startup_s)
    rss_ratio = ratio(baseline.rss_increase_mb, steady.rss_increase_mb)
    handed_ratio = due_ratio(steady, baseline)
    stall_runs = [steady] + ([stall_run] if stall_run is not None else [])
    return [
        Check(
            f"Start-up with {steady.schedules:,} schedules",
            f"≤ {TARGET_STARTUP_S:g} s",
            f"{steady.startup_s:.3f} s",
            steady.startup_s <= TARGET_STARTUP_S,
        ),
        Check(
            "RSS increase after start",
            f"≤ {TARGET_RSS_INCREASE_MB:g} MB",
            f"{steady.rss_increase_mb:.1f} MB",
            steady.rss_increase_mb <= TARGET_RSS_INCREASE_MB,
        ),
        Check(
            f"{steady.due:,} due check-ins handed to the adapter",
            f"≤ {TARGET_DUE_S:g} s after due",
            f"{steady.due_to_handed_over_s:.3f} s ({steady.handed_over:,} handed over)",
            steady.due_to_handed_over_s <= TARGET_DUE_S and steady.handed_over == steady.due,
        ),
        Check(
            "Start-up vs one job per user",
            f"≤ 1/{TARGET_BASELINE_RATIO:g} of baseline",
            f"1/{start_ratio:.1f}",
            start_ratio >= TARGET_BASELINE_RATIO,
        ),
        Check(
            "RSS increase vs one job per user",
            f"≤ 1/{TARGET_BASELINE_RATIO:g} of baseline",
            f"1/{rss_ratio:.1f}",
            rss_ratio >= TARGET_BASELINE_RATIO,
        ),
        Check(
            f"Due → {steady.due:,} handed over vs one job per user",
            f"≤ 1/{TARGET_BASELINE_RATIO:g} of baseline",
            "baseline not measured" if math.isnan(handed_ratio) else f"1/{handed_ratio:.1f}",
            handed_ratio >= TARGET_BASELINE_RATIO,
        ),
        *(
            Check(
                f"Longest event-loop stall, {run.due:,} due",
                f"≤ {TARGET_LOOP_STALL_S:g} s",
                f"{run.max_loop_stall_s:.3f} s",
                run.max_loop_stall_s <= TARGET_LOOP_STALL_S,
            )
            for run in stall_runs
        ),
    ]


def figures(
    steady: SteadyResult,
    baseline: BaselineResult,
    stall_run: SteadyResult | None,
    load_at_start: tuple[float, float, float] | None = None,
) -> tuple[dict[str, float | int | None], dict[str, float]]:
    """Every figure by name, and the targets (upper bounds) of those that have one."""
    measured = not math.isnan(due_ratio(steady, baseline))
    baseline_due = baseline.due_to_done_s if measured else None
    found: dict[str, float | int | None] = {
        "schedules": steady.schedules,
        "due": steady.due,
        "handed_over": steady.handed_over,
        "startup_s": steady.startup_s,
        "baseline_startup_s": baseline.startup_s,
        "startup_share_of_baseline": steady.startup_s / baseline.startup_s,
        "rss_increase_mb": steady.rss_increase_mb,
        "baseline_rss_increase_mb": baseline.rss_increase_mb,
        "rss_increase_share_of_baseline": steady.rss_increase_mb / baseline.rss_increase_mb,
        "handed_over_s": steady.due_to_handed_over_s,
        "tick_s": steady.tick_s,
        "baseline_handed_over_s": baseline_due,
        "baseline_ran": baseline.executed,
        "baseline_missed": baseline.missed,
        "handed_over_share_of_baseline": (
            None if baseline_due is None else steady.due_to_handed_over_s / baseline_due
        ),
        "queries_per_tick": steady.queries_per_tick,
        "max_loop_stall_s": steady.max_loop_stall_s,
        "model_loaded_at_ready": int(steady.model_loaded_at_ready),
        "load_average_1m_at_start": None if load_at_start is None else load_at_start[0],
    }
    targets = {
        "startup_s": TARGET_STARTUP_S,
        "startup_share_of_baseline": 1 / TARGET_BASELINE_RATIO,
        "rss_increase_mb": TARGET_RSS_INCREASE_MB,
        "rss_increase_share_of_baseline": 1 / TARGET_BASELINE_RATIO,
        "handed_over_s": TARGET_DUE_S,
        "handed_over_share_of_baseline": 1 / TARGET_BASELINE_RATIO,
        "max_loop_stall_s": TARGET_LOOP_STALL_S,
    }
    if stall_run is not None:
        name = f"{stall_run.due // 1000}k"
        found[f"due_{name}"] = stall_run.due
        found[f"handed_over_{name}_s"] = stall_run.due_to_handed_over_s
        found[f"max_loop_stall_{name}_s"] = stall_run.max_loop_stall_s
        targets[f"max_loop_stall_{name}_s"] = TARGET_LOOP_STALL_S
    return found, targets


def baseline_due_cell(baseline: BaselineResult) -> str:
    if not baseline.due_measured or baseline.due_to_done_s is None:
        return baseline.due_note
    cell = f"{baseline.due_to_done_s:.3f} ({baseline.executed:,} ran"
    return cell + (f", {baseline.missed:,} skipped as misfired)" if baseline.missed else ")")


def render(
    command: str,
    host: Machine,
    prepared: Prepared,
    runs: Sequence[SteadyResult],
    steady: SteadyResult,
    baseline: BaselineResult,
    stall_run: SteadyResult | None,
    load_at_start: tuple[float, float, float],
) -> str:
    results = checks(steady, baseline, stall_run)
    handed_ratio = due_ratio(steady, baseline)
    due_times = sorted(run.due_to_handed_over_s for run in runs)
    start_times = sorted(run.startup_s for run in runs)
    start_ratio = ratio(baseline.startup_s, steady.startup_s)
    rss_ratio = ratio(baseline.rss_increase_mb, steady.rss_increase_mb)
    missed = [c.name for c in results if not c.passed]
    verdict = (
        f"all {len(results)} targets met"
        if not missed
        else f"{len(missed)} of {len(results)} targets missed ({'; '.join(missed)})"
    )
    lines = [
        f"Command, from the repo root: `{command}`",
        "",
        host.describe(),
        "",
        f"{prepared.users:,} users in {len(ZONES)} time zones, one daily check-in slot each,"
        f" local times spread over the day; {prepared.due:,} of them"
        f" ({prepared.due_per_zone} per zone) due at {DUE_AT:%Y-%m-%d %H:%M} UTC, nothing else"
        f" due at or before it. Null adapter. Database prepared in {prepared.seconds:.1f} s"
        " (not part of start-up). Each variant ran in a fresh process of its own; Steady"
        f" {len(runs)} times, each on a fresh copy of the database: the table shows the median"
        " run by due time.",
        "",
        # The end's is in the machine line: other work on the machine slows every figure.
        f"Load average when the run began: {' / '.join(f'{v:.2f}' for v in load_at_start)}"
        " (1 / 5 / 15 min).",
        "",
        f"Steady over {len(runs)} runs (min / median / max): due → handed over"
        f" {' / '.join(f'{value:.3f}' for value in _spread(due_times))} s,"
        f" start-up {' / '.join(f'{value:.3f}' for value in _spread(start_times))} s.",
        "",
        f"**Result: {verdict}.**",
        "",
        "| Figure | Steady (one tick, in chunks) | APScheduler, one cron job per user"
        " | Baseline ÷ Steady |",
        "|---|---:|---:|---:|",
        f"| Schedules at start | {steady.schedules:,} | {baseline.schedules:,} | |",
        f"| Start-up (s) | {steady.startup_s:.3f} | {baseline.startup_s:.3f}"
        f" | {start_ratio:.1f}× |",
        f"| RSS after imports (MB) | {steady.rss_after_imports_mb:.1f}"
        f" | {baseline.rss_after_imports_mb:.1f} | |",
        f"| RSS before start (MB) | {steady.rss_after_imports_mb:.1f}"
        f" | {baseline.rss_before_start_mb:.1f} (input rows loaded) | |",
        f"| RSS after start (MB) | {steady.rss_after_start_mb:.1f}"
        f" | {baseline.rss_after_start_mb:.1f} | |",
        f"| RSS increase (MB) | {steady.rss_increase_mb:.1f} | {baseline.rss_increase_mb:.1f}"
        f" | {rss_ratio:.1f}× |",
        f"| Due → all {steady.due:,} handed over (s) | {steady.due_to_handed_over_s:.3f}"
        f" | {baseline_due_cell(baseline)}"
        f" | {'' if math.isnan(handed_ratio) else f'{handed_ratio:.1f}×'} |",
        f"| … of which the claiming tick (s) | {steady.tick_s:.3f} | | |",
        f"| … of which outbox delivery (s) | {steady.delivery_s:.3f} | | |",
        f"| Queries per tick | {steady.queries_per_tick} | — | |",
        f"| Longest event-loop stall, {steady.due:,} due (s) | {steady.max_loop_stall_s:.3f} | | |",
        *(
            [
                f"| Longest event-loop stall, {stall_run.due:,} due (s)"
                f" | {stall_run.max_loop_stall_s:.3f} | | |",
                f"| Due → all {stall_run.due:,} handed over (s)"
                f" | {stall_run.due_to_handed_over_s:.3f} | | |",
            ]
            if stall_run is not None
            else []
        ),
        f"| Peak RSS during due handling (MB) | {steady.peak_rss_during_due_mb:.1f}"
        f"{'' if steady.peak_reset_worked else ' (peak since process start)'} | | |",
        "",
        "| Target | Limit | Measured | Result |",
        "|---|---|---|---|",
        *(
            f"| {c.name} | {c.limit} | {c.measured} | {'pass' if c.passed else 'FAIL'} |"
            for c in results
        ),
        "",
        "How to read it:",
        "",
        "- Steady's start-up is `open_services` (content pack, key check, database) + `Router`"
        " + `scheduled_delivery` (Outbox, Dispatcher, TickRunner started) until the runner's"
        f" first tick and its wake-up planning have run: {steady.startup_queries} SQL statements"
        " in all, key check included. Nothing was due, and no schedule is loaded into memory."
        " The learned stage's model loads in a thread of its own meanwhile; it had"
        f"{'' if steady.model_loaded_at_ready else ' not'} finished when the bot was ready,"
        " and is waited for before the RSS after start and the due tick are measured.",
        "- Due → handed over: the injected clock is moved to the due minute and"
        " `dispatcher.tick()` is called at once; the time runs until `outbox.drain()` returns"
        " with every message at the null adapter. In production the TickRunner's wake-up job"
        " (bot/scheduling/runner.py) starts that tick at the due instant, so tick + delivery is"
        " the delay a user sees (plus the platform's own).",
        f"- The tick claimed {steady.claimed:,} and started {steady.started:,} check-ins;"
        f" {steady.still_due_after_tick} slots were still due after it. Queries per tick counts"
        " every statement sent to SQLite (an executemany counts once), the outbox's checks"
        " that each user is still there (one per round of sends) included.",
        "- Longest event-loop stall: a task asks to wake every"
        f" {STALL_PROBE_PERIOD_S * 1000:g} ms from just before the due minute until every"
        " message is handed over; the figure is the most it woke late, which is how long a"
        " reply (a crisis reply too) would have waited for the loop. The tick claims in chunks"
        " of 1,000 rows, each in its own transaction, and lets other tasks run in between."
        + (
            f" The {stall_run.due:,}-due figure is one more Steady run on a database prepared"
            f" the same way with {stall_run.due:,} of the {stall_run.schedules:,} due."
            if stall_run is not None
            else ""
        ),
        "- Baseline: `AsyncIOScheduler(timezone=UTC)` with one `CronTrigger(day_of_week, hour,"
        " minute, second, timezone)` job per user, added before `scheduler.start()` in a running"
        " loop, with a bare async no-op; PTB's JobQueue also keeps a Job object per user, so it"
        " needs more than this. Its RSS increase is counted from after it loaded its input rows.",
        f"- Baseline due time: APScheduler reads the real clock, so its {prepared.due:,} due jobs"
        " were given a real instant shortly after its start-up as their wall time (same zones,"
        f" {prepared.due_per_zone} each) and timed from that instant until the last had run."
        " Its jobs have no misfire grace (`misfire_grace_time=None`): with APScheduler's"
        " default of 1 s (which PTB keeps) a job it reaches later than that is skipped, and"
        " nearly all 10,000 were, so nothing would be compared.",
    ]
    return "\n".join(lines) + "\n"


def _spread(ordered: Sequence[float]) -> tuple[float, float, float]:
    return ordered[0], ordered[len(ordered) // 2], ordered[-1]


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--variant", choices=("steady", "apscheduler"), help="child mode")
    parser.add_argument("--db", type=Path, help="child mode: the prepared database")
    parser.add_argument("--users", type=int, default=DEFAULT_USERS)
    parser.add_argument("--due", type=int, default=DEFAULT_DUE)
    parser.add_argument(
        "--baseline-lead",
        type=float,
        default=DEFAULT_BASELINE_LEAD_S,
        help="seconds after the baseline child begins at which its due jobs fire",
    )
    parser.add_argument(
        "--steady-runs", type=int, default=3, help="fresh steady processes; the median is shown"
    )
    parser.add_argument("--profile", action="store_true", help="steady child: cProfile the tick")
    parser.add_argument("--keep-db", type=Path, help="prepare the database here and keep it")
    parser.add_argument("--prepare-only", action="store_true", help="with --keep-db: stop there")
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md")
    parser.add_argument(
        "--stall-due",
        type=int,
        default=DEFAULT_STALL_DUE,
        help="one more steady run with this many due, for its loop stall (0: none)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args(argv)
    if args.due % len(ZONES) or not 0 < args.due <= args.users:
        parser.error(f"--due must be a multiple of {len(ZONES)} between 1 and --users")
    if args.stall_due and (args.stall_due % len(ZONES) or not 0 < args.stall_due <= args.users):
        parser.error(f"--stall-due must be 0 or a multiple of {len(ZONES)} up to --users")
    if args.variant and args.db is None:
        parser.error("--variant needs --db")
    if args.steady_runs < 1:
        parser.error("--steady-runs must be at least 1")
    if args.prepare_only and args.keep_db is None:
        parser.error("--prepare-only needs --keep-db")
    return args


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    if args.variant == "steady":
        steady = asyncio.run(run_steady(args.db, args.due, args.profile))
        print(json.dumps(asdict(steady)))
        return 0
    if args.variant == "apscheduler":
        baseline = asyncio.run(run_apscheduler(args.db, args.due, args.baseline_lead))
        print(json.dumps(asdict(baseline)))
        return 0

    load_at_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="steady-bench-") as temporary:
        folder = args.keep_db or Path(temporary)
        db_path = folder / "prepared" / "steady.db"
        if db_path.exists():
            raise SystemExit(f"{db_path} exists; give --keep-db an empty folder")
        db_path.parent.mkdir(parents=True)
        print(f"preparing {args.users:,} users in {db_path} …", file=sys.stderr)
        prepared = asyncio.run(prepare_database(db_path, args.users, args.due))
        asyncio.run(first_open(db_path))
        if args.prepare_only:
            print(f"prepared in {prepared.seconds:.1f} s", file=sys.stderr)
            return 0
        runs = []
        for number in range(1, args.steady_runs + 1):
            # A run uses up its due slots, so each one gets a fresh copy.
            copy = folder / f"steady-{number}"
            shutil.copytree(db_path.parent, copy)
            print(f"running steady {number}/{args.steady_runs} …", file=sys.stderr)
            runs.append(SteadyResult(**run_child("steady", copy / db_path.name, args)))
        stall_run = None
        if args.stall_due and args.stall_due != args.due:
            stall_path = folder / "stall" / db_path.name
            stall_path.parent.mkdir(parents=True)
            print(f"preparing {args.stall_due:,} due for the stall run …", file=sys.stderr)
            asyncio.run(prepare_database(stall_path, args.users, args.stall_due))
            asyncio.run(first_open(stall_path))
            print(f"running steady with {args.stall_due:,} due …", file=sys.stderr)
            stall_run = SteadyResult(**run_child("steady", stall_path, args, args.stall_due))
        print("running apscheduler baseline …", file=sys.stderr)
        baseline = BaselineResult(**run_child("apscheduler", db_path, args))

    runs.sort(key=lambda run: run.due_to_handed_over_s)
    steady = runs[len(runs) // 2]  # the median run by due time
    host = machine(["APScheduler"])
    report = render(
        shown_command([sys.argv[0], *argv]),
        host,
        prepared,
        runs,
        steady,
        baseline,
        stall_run,
        load_at_start,
    )
    print(report)
    if not args.no_write:
        write_section(SECTION, report)
        print(f"written to {Path('bench') / 'RESULTS.md'}", file=sys.stderr)
    if args.json:
        print_json_figures(*figures(steady, baseline, stall_run, load_at_start), host.commit)
    return 0 if all(check.passed for check in checks(steady, baseline, stall_run)) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
