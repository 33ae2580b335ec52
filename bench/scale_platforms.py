"""Telegram with several workers: the round trip per update on SQLite and on PostgreSQL,
a stream of webhook updates across 1, 2 and 4 PostgreSQL workers, and the poller's
take-over after `kill -9`.

Run from the repo root with a PostgreSQL server to use (`.ci/postgres.sh` starts one):

    STEADY_BENCH_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python -m bench.scale_platforms

Every worker is a `steady run` process of its own, with its own data folder and its own
/healthz (STEADY_HTTP_PORT), talking to a FakeTelegram (tests/fakes/telegram_api.py) in
this process on 127.0.0.1. Each PostgreSQL run gets a database of its own, created on the
server and dropped afterwards; the workers on it share one STEADY_ENCRYPTION_KEY.

1. Round trip: one worker polling, on SQLite and then on PostgreSQL, the same workload
   (bench/telegram_roundtrip.py's, seed and all): every user onboarded untimed, then one
   user alone, then the crowd all at once, each user a closed loop.
2. Webhook stream: 1, 2 and 4 workers, each serving the webhook on a port of its own.
   This process is the load balancer: it posts each update to the next worker in turn
   (round-robin over all updates, so one user's updates go to every worker). The users
   are closed loops (each sends its next update once the last one is answered), all at
   once. Once the workers have stopped, every chat must hold exactly the messages its
   conversation calls for, every press answered once and every check-in saved once.
3. Take-over: two workers polling; the one whose /healthz lists "telegram polling" is
   killed with SIGKILL; timed until the other's /healthz lists it, and until an update
   sent meanwhile and one sent after are answered.

Telegram's flood limit (30 messages a second for the bot, kept by the lanes in each worker
and by the send budget all workers share on PostgreSQL) would hold every run to 30
messages a second and measure only the limit. So in runs 1 and 2 the worker is `steady
run` with the limits raised out of reach at run time (no file is changed): the lanes'
code runs for every message, and so does the shared budget's SQL, but nothing waits.
Run 3 is `steady run` as it is.

Prints the tables and the checks; bench/RESULTS.md is left as it is. Exit status 1 when a
target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, TypeVar

import aiohttp
import asyncpg
import httpx

from bench.common import REPO, Check, percentile
from bench.scale_workers import postgres_server
from bench.telegram_roundtrip import (
    DISTURBED_SHARE,
    SEED,
    STEADY,
    Expectations,
    PhaseOutcome,
    TimedFakeTelegram,
    UserPlan,
    Workload,
    build_workload,
    count_checkins,
    problems,
    process_cpu_s,
    run_phase,
    screen_workload_texts,
    system_busy_s,
)
from bot.storage.crypto import generate_key_text
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers.postgres_server import scratch_database
from tests.helpers.processes import steady_environment

T = TypeVar("T")

# --- sizes and targets -------------------------------------------------------------------


@dataclass(frozen=True)
class Sizes:
    round_trip_users: int  # onboarded, then timed all at once (item 1)
    stream_users: int  # item 2: each sends ten timed updates
    worker_counts: tuple[int, ...]


FULL = Sizes(round_trip_users=200, stream_users=200, worker_counts=(1, 2, 4))
QUICK = Sizes(round_trip_users=20, stream_users=20, worker_counts=(1, 2))

TARGET_POSTGRES_RATIO = 1.5  # PostgreSQL's median round trip within 1.5x of SQLite's
TARGET_TAKE_OVER_S = 30.0

POLLING = "telegram polling"
WEBHOOK = "telegram webhook"
# The address Telegram would post to: the balancer's. setWebhook wants https on a port
# Telegram allows; nothing ever connects to it (this process posts to the workers).
BALANCER_URL = "https://balancer.steady-bench.invalid/telegram"
LOOPBACK = "127.0.0.1"

READY_TIMEOUT_S = 60.0  # start-up, migrations included
TAKE_OVER_TIMEOUT_S = 90.0  # a hang, not a slow take-over: the target decides that
ANSWER_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 30.0
POLL_S = 0.02  # how often a condition is looked at; it bounds nothing
# Telegram's limits as the lanes and the shared send budget keep them, cut to a hundred
# thousand a millisecond: never reached, so every message runs the lanes' code and the
# budget's SQL (overall, and per group), and none waits.
UNBOUNDED_SENDS = 100_000
UNBOUNDED_WINDOW_S = 0.001
TAKE_OVER_CHATS = (9_100_001, 9_100_002, 9_100_003)  # before the kill, meanwhile, after
TAKE_OVER_COMMAND = "/about"


# --- workers --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


@dataclass
class Worker:
    """One `steady run` process, its /healthz, and where the balancer posts to it."""

    name: str
    process: asyncio.subprocess.Process
    health: httpx.AsyncClient
    log_file: Path
    webhook: str | None = None

    async def roles(self) -> list[str] | None:
        """What /healthz says it holds; None while it does not answer yet."""
        try:
            response = await self.health.get("/healthz")
        except httpx.TransportError:
            return None
        roles: list[str] = response.json()["roles"]
        return roles

    def running(self) -> bool:
        return self.process.returncode is None


def writing(path: Path) -> IO[bytes]:
    """A worker's log file, for the caller's `with` (opening it takes no time to speak of)."""
    return open(path, "wb")


async def start_worker(
    name: str, folder: Path, settings: dict[str, str], flood_limits: bool
) -> Worker:
    """A worker with `settings` on top of what every run sets. Its output goes to a file:
    it logs every update at INFO, and a pipe nobody reads would fill up and stall it."""
    http_port = free_port()
    environment = steady_environment(
        folder / name,
        STEADY_HTTP_PORT=str(http_port),
        STEADY_HTTP_HOST=LOOPBACK,
        STEADY_CONTENT_DIR=str(REPO / "content"),
        STEADY_LOG_LEVEL="INFO",
        **settings,
    )
    command = [sys.executable, "-m", "bot", "run"]
    if not flood_limits:
        command = [sys.executable, "-m", "bench.scale_platforms", "--worker"]
    log_file = folder / f"{name}.log"
    with writing(log_file) as log:
        # cwd is the run's folder, so no `.env` of the repo is read.
        process = await asyncio.create_subprocess_exec(
            *command, env=environment, cwd=folder,
            stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log,
        )  # fmt: skip
    health = httpx.AsyncClient(
        base_url=f"http://{LOOPBACK}:{http_port}", timeout=10, trust_env=False
    )
    return Worker(name, process, health, log_file)


async def wait_for_role(worker: Worker, role: str, timeout: float = READY_TIMEOUT_S) -> None:  # noqa: ASYNC109
    """Until the worker's /healthz lists `role` (it is started: /healthz is served last)."""
    deadline = time.perf_counter() + timeout
    while role not in (await worker.roles() or []):
        if not worker.running():
            raise RuntimeError(f"{worker.name} exited with {worker.process.returncode}")
        if time.perf_counter() > deadline:
            raise RuntimeError(f"{worker.name} does not hold {role!r} after {timeout:g} s")
        await asyncio.sleep(POLL_S)


async def stop_workers(workers: Sequence[Worker]) -> None:
    """SIGTERM to each (each finishes the updates it has in hand), then wait; one that does
    not stop in time is killed."""
    for worker in workers:
        if worker.running():
            worker.process.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            await asyncio.wait_for(worker.process.wait(), STOP_TIMEOUT_S)
        except TimeoutError:
            worker.process.kill()
            await worker.process.wait()
        await worker.health.aclose()


def telegram_settings(tg: FakeTelegram) -> dict[str, str]:
    # A blank webhook URL is no webhook: polling, whatever the shell running this holds.
    return {
        "TELEGRAM_BOT_TOKEN": tg.token,
        "TELEGRAM_API_BASE_URL": f"{tg.url}/bot",
        "TELEGRAM_WEBHOOK_URL": "",
    }


def database_settings(url: str | None, key: str) -> dict[str, str]:
    # A blank URL is SQLite, whatever the shell running this holds.
    return {"STEADY_DATABASE_URL": url or "", "STEADY_ENCRYPTION_KEY": key}


def webhook_settings(port: int, secret: str) -> dict[str, str]:
    return {
        "TELEGRAM_WEBHOOK_URL": BALANCER_URL,
        "TELEGRAM_WEBHOOK_SECRET": secret,
        "TELEGRAM_WEBHOOK_LISTEN": LOOPBACK,
        "TELEGRAM_WEBHOOK_PORT": str(port),
    }


def webhook_address(tg: FakeTelegram, port: int) -> str:
    """Where PTB serves the webhook: the bot id as the path (see the Telegram adapter)."""
    return f"http://{LOOPBACK}:{port}/{tg.token.split(':', 1)[0]}"


# What a worker logs at warning as it stops: its campaign for a role ends with the role.
STOPPING = "leadership.lost"


def warnings_logged(workers: Sequence[Worker]) -> dict[str, int]:
    """Lines logged at warning or error (stamp, level, logger, event=..., ...), counted
    by event, but for the role a stopping worker gives up."""
    found: Counter[str] = Counter()
    for worker in workers:
        for line in worker.log_file.read_text(encoding="utf-8").splitlines():
            words = line.split(" ")
            if words[1:2] not in (["warning"], ["error"]):
                continue
            event = next((w.removeprefix("event=") for w in words if w.startswith("event=")), "")
            if event != STOPPING:
                found[event or "?"] += 1
    return dict(found)


def serve_as_worker() -> int:
    """`steady run` with Telegram's flood limit switched off (see the top)."""
    import bot.adapters.telegram.outbound as telegram_outbound  # noqa: PLC0415
    from bot.adapters.lanes import Caps  # noqa: PLC0415
    from bot.cli import main as steady  # noqa: PLC0415
    from bot.coordination.send_budget import Limit  # noqa: PLC0415

    unbounded = Limit(UNBOUNDED_SENDS, UNBOUNDED_WINDOW_S)
    telegram_outbound.TELEGRAM_CAPS = Caps(unbounded, group=unbounded)
    return steady(["run"])


# --- databases ------------------------------------------------------------------------------


async def count_postgres_checkins(url: str) -> int:
    connection = await asyncpg.connect(url)
    try:
        return int(await connection.fetchval("SELECT COUNT(*) FROM checkins"))
    finally:
        await connection.close()


# --- latency --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Latency:
    """One timed phase: pushed into the fake → its first reply message arrives there."""

    users: int
    updates: int
    answered: int
    wall_s: float
    p50_ms: float
    p95_ms: float
    problems: int  # unanswered, answered from another step, not sent as a conversation broke

    @property
    def throughput(self) -> float:
        return self.answered / self.wall_s if self.wall_s else 0.0


def latency_of(plans: Sequence[UserPlan], outcome: PhaseOutcome) -> Latency:
    values = [sample.latency_ms for sample in outcome.samples]
    return Latency(
        users=len(plans),
        updates=sum(len(plan.timed) for plan in plans),
        answered=len(values),
        wall_s=outcome.wall_s,
        p50_ms=percentile(values, 0.5),
        p95_ms=percentile(values, 0.95),
        problems=problems(outcome),
    )


def workload_of(users: int) -> Workload:
    """bench/telegram_roundtrip.py's workload for `users` (no second, lighter crowd)."""
    return build_workload(users, 0, SEED, datetime.now(UTC), screen_workload_texts())


def expecting(tg: TimedFakeTelegram) -> Expectations:
    expectations = Expectations.load()
    tg.final_notices.add(expectations.expired)  # an expired press ends with its notice
    return expectations


# --- 1. the round trip, SQLite against PostgreSQL -------------------------------------------


@dataclass(frozen=True)
class CpuSnapshot:
    worker_s: float
    driver_s: float  # this process: the fake, the users
    machine_s: float  # every process on the machine, all CPUs

    @classmethod
    def of(cls, worker: Worker) -> CpuSnapshot:
        return cls(process_cpu_s(worker.process.pid)[0], time.process_time(), system_busy_s())


@dataclass(frozen=True)
class CpuPerUpdate:
    """CPU milliseconds per update: the worker's, and everything else's but this
    process's (the PostgreSQL server, and whatever else runs on the machine)."""

    worker_ms: float
    others_ms: float
    others_share: float  # of one core, over the phase's wall time

    @classmethod
    def between(
        cls, before: CpuSnapshot, after: CpuSnapshot, updates: int, wall_s: float
    ) -> CpuPerUpdate:
        worker = after.worker_s - before.worker_s
        driver = after.driver_s - before.driver_s
        others = max(0.0, after.machine_s - before.machine_s - worker - driver)
        per = 1000 / max(1, updates)
        return cls(worker * per, others * per, others / wall_s if wall_s else 0.0)


@dataclass(frozen=True)
class RoundTrip:
    backend: str
    alone: Latency  # one user, the bot otherwise idle
    crowd: Latency  # every user at once
    onboarding_problems: int
    cpu: CpuPerUpdate  # in the crowd
    checkins_saved: int
    checkins_expected: int
    warnings: dict[str, int]  # logged at warning or error, by event

    @property
    def clean(self) -> bool:
        return (
            self.alone.problems == self.crowd.problems == self.onboarding_problems == 0
            and self.checkins_saved == self.checkins_expected
        )


async def round_trip(
    backend: str, database_url: str | None, folder: Path, workload: Workload
) -> RoundTrip:
    async with TimedFakeTelegram() as tg:
        expectations = expecting(tg)
        settings = telegram_settings(tg) | database_settings(database_url, generate_key_text())
        worker = await start_worker(f"round-trip-{backend}", folder, settings, flood_limits=False)
        try:
            await wait_for_role(worker, POLLING)
            onboarding = await run_phase(tg, STEADY, workload.everyone, expectations, False)
            alone = await run_phase(tg, STEADY, [workload.solo], expectations, True)
            before = CpuSnapshot.of(worker)
            crowd = await run_phase(tg, STEADY, workload.crowd, expectations, True)
            after = CpuSnapshot.of(worker)
            cpu = CpuPerUpdate.between(before, after, len(crowd.samples), crowd.wall_s)
        finally:
            await stop_workers([worker])
    if database_url is None:
        saved = count_checkins(folder / worker.name)
    else:
        saved = await count_postgres_checkins(database_url)
    return RoundTrip(
        backend=backend,
        alone=latency_of([workload.solo], alone),
        crowd=latency_of(workload.crowd, crowd),
        onboarding_problems=problems(onboarding),
        cpu=cpu,
        checkins_saved=saved,
        checkins_expected=workload.checkins,
        warnings=warnings_logged([worker]),
    )


async def round_trips(server: str, folder: Path, users: int) -> list[RoundTrip]:
    workload = workload_of(users)
    found = [await round_trip("SQLite", None, folder, workload)]
    async with scratch_database(server) as url:
        found.append(await round_trip("PostgreSQL", url, folder, workload))
    return found


# --- 2. a stream of updates through the webhook ----------------------------------------------


class BalancedTelegram(TimedFakeTelegram):
    """The timed fake, and the load balancer in front of the workers: with a webhook set,
    each update pushed is posted to the next worker's webhook in turn (round-robin over
    all updates), as Telegram posts to a balancer's address. The post runs as a task of
    its own, so the latency includes that hop."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.posted: Counter[str] = Counter()  # posts each worker accepted (200)
        self.refused_posts: list[str] = []
        self._turn = itertools.count()
        self._posts: set[asyncio.Task[None]] = set()

    def _push(self, payload: dict[str, Any]) -> dict[str, Any]:
        update = super()._push(payload)  # with a webhook set: not queued for getUpdates
        if self.targets:
            assert self.webhook is not None, "the workers set the webhook as they start"
            target = self.targets[next(self._turn) % len(self.targets)]
            post = asyncio.create_task(self._post(target, update))
            self._posts.add(post)
            post.add_done_callback(self._posts.discard)
        return update

    async def _post(self, target: str, update: dict[str, Any]) -> None:
        try:
            status = await self.post_update_to_webhook(target, update)
        except (aiohttp.ClientError, TimeoutError) as error:
            self.refused_posts.append(f"{target}: {type(error).__name__}")
            return
        if status == 200:
            self.posted[target] += 1
        else:
            self.refused_posts.append(f"{target}: HTTP {status}")

    async def posts_done(self) -> None:
        await asyncio.gather(*self._posts)


@dataclass(frozen=True)
class Delivered:
    """What the fake holds once every worker has stopped: nothing more can arrive."""

    chats_short: int  # chats with fewer bot messages than their conversation calls for
    missing: int  # messages those lack
    chats_over: int  # chats with more (an update answered twice, say)
    extra: int  # messages beyond what was called for
    refused_calls: int  # calls the fake refused (a press answered twice is one)
    unanswered_presses: int


def delivered(tg: TimedFakeTelegram, plans: Sequence[UserPlan]) -> Delivered:
    """Per chat: the messages sent or edited (what the timed fake counts as replies)
    against the sum of what each step of its conversation produces."""
    got: Counter[int] = Counter()
    for call in tg.calls:
        if call.method in {"sendMessage", "editMessageText"} and call.status == 200:
            got[int(call.params["chat_id"])] += 1
    short = over = missing = extra = 0
    for plan in plans:
        wanted = sum(step.replies for step in (*plan.onboarding, *plan.timed))
        have = got[plan.user_id]
        short, missing = short + (have < wanted), missing + max(0, wanted - have)
        over, extra = over + (have > wanted), extra + max(0, have - wanted)
    refused = sum(
        1 for call in tg.calls if call.status != 200 and call.method not in {"getUpdates"}
    )
    unanswered = sum(1 for query in tg.callback_queries.values() if not query.answered)
    return Delivered(short, missing, over, extra, refused, unanswered)


@dataclass(frozen=True)
class Stream:
    workers: int
    users: int
    onboarding_updates: int
    timed: Latency
    posted_per_worker: tuple[int, ...]
    refused_posts: int
    delivered: Delivered
    onboarding_problems: int  # onboarding updates unanswered or answered from another step
    strays: int  # messages that arrived while their user waited for nothing
    checkins_saved: int
    checkins_expected: int
    warnings: dict[str, int]  # logged at warning or error, by event

    @property
    def updates(self) -> int:
        return self.onboarding_updates + self.timed.updates

    @property
    def exactly_once(self) -> bool:
        sent = self.delivered
        return (
            self.timed.problems == 0
            and self.timed.answered == self.timed.updates
            and sum(self.posted_per_worker) == self.updates
            and self.refused_posts == 0
            and sent.chats_short == sent.chats_over == sent.refused_calls == 0
            and sent.unanswered_presses == 0
            and self.onboarding_problems == self.strays == 0
            and self.checkins_saved == self.checkins_expected
        )


async def start_webhook_workers(
    tg: BalancedTelegram, count: int, database_url: str, folder: Path
) -> list[Worker]:
    """`count` workers serving the webhook, each on a port of its own; the first to start
    migrates the database (under a lock, so starting them together is safe)."""
    key, secret = generate_key_text(), secrets.token_urlsafe(24)
    workers: list[Worker] = []
    try:
        for number in range(count):
            port = free_port()
            settings = (
                telegram_settings(tg)
                | database_settings(database_url, key)
                | webhook_settings(port, secret)
            )
            name = f"webhook-{count}-{number}"
            worker = await start_worker(name, folder, settings, flood_limits=False)
            worker.webhook = webhook_address(tg, port)
            workers.append(worker)
        await asyncio.gather(*(wait_for_role(worker, WEBHOOK) for worker in workers))
    except BaseException:
        await stop_workers(workers)
        raise
    return workers


async def webhook_stream(server: str, folder: Path, count: int, workload: Workload) -> Stream:
    plans = workload.crowd
    async with scratch_database(server) as url, BalancedTelegram() as tg:
        expectations = expecting(tg)
        workers = await start_webhook_workers(tg, count, url, folder)
        try:
            tg.targets = [worker.webhook for worker in workers if worker.webhook]
            onboarding = await run_phase(tg, STEADY, plans, expectations, False)
            timed = await run_phase(tg, STEADY, plans, expectations, True)
            await tg.posts_done()
        finally:
            await stop_workers(workers)
        saved = await count_postgres_checkins(url)
        return Stream(
            workers=count,
            users=len(plans),
            onboarding_updates=sum(len(plan.onboarding) for plan in plans),
            timed=latency_of(plans, timed),
            posted_per_worker=tuple(tg.posted[target] for target in tg.targets),
            refused_posts=len(tg.refused_posts),
            delivered=delivered(tg, plans),
            onboarding_problems=problems(onboarding),
            strays=tg.stray_calls,
            checkins_saved=saved,
            checkins_expected=sum(step.text == "/checkin" for plan in plans for step in plan.timed),
            warnings=warnings_logged(workers),
        )


async def webhook_streams(
    server: str, folder: Path, users: int, counts: Sequence[int]
) -> list[Stream]:
    workload = workload_of(users)
    return [await webhook_stream(server, folder, count, workload) for count in counts]


# --- 3. the poller's take-over after kill -9 ------------------------------------------------


@dataclass(frozen=True)
class TakeOver:
    took_role_s: float  # SIGKILL → the survivor's /healthz lists the role
    gap_answered_s: float  # SIGKILL → the update sent right after it is answered
    after_answered_ms: float  # an update sent once the survivor holds the role → answered
    replies: tuple[int, int, int]  # messages to the update before, meanwhile, after
    pollers_before: int  # workers listing the role before the kill (must be 1)
    warnings: dict[str, int]  # logged at warning or error, by event

    @property
    def answered_alike(self) -> bool:
        """Each of the three updates answered, and with as many messages as the first."""
        first = self.replies[0]
        return first > 0 and self.replies == (first, first, first)


async def pollers(workers: Sequence[Worker]) -> list[Worker]:
    return [w for w in workers if w.running() and POLLING in (await w.roles() or [])]


async def the_poller(workers: Sequence[Worker]) -> tuple[Worker, int]:
    """The worker that polls, once one does, and how many listed the role then."""
    deadline = time.perf_counter() + READY_TIMEOUT_S
    while not (found := await pollers(workers)):
        if time.perf_counter() > deadline:
            raise RuntimeError(f"no worker lists {POLLING!r} after {READY_TIMEOUT_S:g} s")
        await asyncio.sleep(POLL_S)
    return found[0], len(found)


async def answered_at(tg: FakeTelegram, chat: int, timeout: float = ANSWER_TIMEOUT_S) -> float:  # noqa: ASYNC109
    """The instant (perf_counter) by which the bot has sent the chat a message."""
    deadline = time.perf_counter() + timeout
    while not tg.sent_messages(chat):
        if time.perf_counter() > deadline:
            raise RuntimeError(f"chat {chat} not answered after {timeout:g} s")
        await asyncio.sleep(POLL_S / 4)
    return time.perf_counter()


async def ask(tg: FakeTelegram, chat: int) -> float:
    """Seconds from sending the command to its answer."""
    sent = time.perf_counter()
    tg.user_sends_text(chat, chat, TAKE_OVER_COMMAND)
    return await answered_at(tg, chat) - sent


@dataclass(frozen=True)
class Kill:
    took_role_s: float
    gap_answered_s: float


async def kill_the_poller(tg: FakeTelegram, leader: Worker, survivor: Worker) -> Kill:
    """SIGKILL the poller, send an update while nobody polls, and time the survivor."""
    leader.process.send_signal(signal.SIGKILL)
    killed = time.perf_counter()
    await leader.process.wait()
    chat = TAKE_OVER_CHATS[1]
    tg.user_sends_text(chat, chat, TAKE_OVER_COMMAND)
    await wait_for_role(survivor, POLLING, TAKE_OVER_TIMEOUT_S)
    took = time.perf_counter() - killed
    return Kill(took, await answered_at(tg, chat, TAKE_OVER_TIMEOUT_S) - killed)


async def take_over(server: str, folder: Path) -> TakeOver:
    before, _, after = TAKE_OVER_CHATS
    async with scratch_database(server) as url, FakeTelegram() as tg:
        settings = telegram_settings(tg) | database_settings(url, generate_key_text())
        workers: list[Worker] = []
        try:
            for number in range(2):  # `steady run` as it is: its flood limit is no matter here
                name = f"poller-{number}"
                workers.append(await start_worker(name, folder, settings, flood_limits=True))
            await asyncio.gather(*(wait_for_role(worker, "scheduler") for worker in workers))
            leader, listed = await the_poller(workers)
            await ask(tg, before)
            survivor = next(worker for worker in workers if worker is not leader)
            kill = await kill_the_poller(tg, leader, survivor)
            after_s = await ask(tg, after)
        finally:
            await stop_workers(workers)
        replies = tuple(len(tg.sent_messages(chat)) for chat in TAKE_OVER_CHATS)
    return TakeOver(
        took_role_s=kill.took_role_s,
        gap_answered_s=kill.gap_answered_s,
        after_answered_ms=after_s * 1000,
        replies=(replies[0], replies[1], replies[2]),
        pollers_before=listed,
        warnings=warnings_logged(workers),
    )


# --- all three, the checks and the report ---------------------------------------------------


@dataclass(frozen=True)
class PlatformFigures:
    round_trips: list[RoundTrip]  # SQLite, then PostgreSQL
    streams: list[Stream]  # one per worker count
    take_over: TakeOver
    seconds: dict[str, float] = field(default_factory=dict)  # wall time of each part

    @property
    def postgres_ratio(self) -> float:
        sqlite, postgres = self.round_trips
        return postgres.crowd.p50_ms / sqlite.crowd.p50_ms


async def timed_part(seconds: dict[str, float], part: str, work: Awaitable[T]) -> T:
    started = time.perf_counter()
    try:
        return await work
    finally:
        seconds[part] = time.perf_counter() - started


async def measure_platforms(server: str, folder: Path, sizes: Sizes = FULL) -> PlatformFigures:
    """The three, one after the other (each on its own database): they share the CPUs."""
    seconds: dict[str, float] = {}
    trips = await timed_part(
        seconds, "round trip", round_trips(server, folder, sizes.round_trip_users)
    )
    streams = await timed_part(
        seconds,
        "webhook stream",
        webhook_streams(server, folder, sizes.stream_users, sizes.worker_counts),
    )
    taken = await timed_part(seconds, "take-over", take_over(server, folder))
    return PlatformFigures(trips, streams, taken, seconds)


def platform_checks(figures: PlatformFigures) -> list[Check]:
    """One check per target: the round trip's ratio, exactly once through the webhook,
    and the take-over."""
    sqlite, postgres = figures.round_trips
    ratio = figures.postgres_ratio
    clean = sqlite.clean and postgres.clean
    streams = figures.streams
    taken = figures.take_over
    return [
        Check(
            f"Telegram round trip, {postgres.crowd.updates:,} updates from"
            f" {postgres.crowd.users:,} users at once, 1 worker:"
            " PostgreSQL's median against SQLite's",
            f"≤ {TARGET_POSTGRES_RATIO}x, every update answered from its step",
            f"{ratio:.2f}x ({postgres.crowd.p50_ms:,.1f} ms against"
            f" {sqlite.crowd.p50_ms:,.1f} ms)" + ("" if clean else "; a run is not clean"),
            ratio <= TARGET_POSTGRES_RATIO and clean,
        ),
        Check(
            "Webhook stream, PostgreSQL with "
            + ", ".join(str(stream.workers) for stream in streams)
            + " workers: each update answered exactly once",
            "every update once, none twice",
            "; ".join(f"{stream.workers}: {stream_verdict(stream)}" for stream in streams),
            all(stream.exactly_once for stream in streams),
        ),
        Check(
            "kill -9 of the poller: the other worker polls (its /healthz), and answers",
            f"≤ {TARGET_TAKE_OVER_S:g} s, the updates answered once",
            f"{taken.took_role_s:.1f} s; the update sent meanwhile answered after"
            f" {taken.gap_answered_s:.1f} s, messages {'/'.join(map(str, taken.replies))}",
            taken.took_role_s <= TARGET_TAKE_OVER_S
            and taken.answered_alike
            and taken.pollers_before == 1,
        ),
    ]


def stream_verdict(stream: Stream) -> str:
    sent = stream.delivered
    verdict = (
        f"{stream.timed.answered:,} of {stream.timed.updates:,} timed updates answered,"
        f" {sent.extra} messages too many, {sent.missing} too few"
    )
    others = {
        "answered from another step or broken off": stream.timed.problems,
        "posts not accepted": stream.refused_posts,
        "calls refused": sent.refused_calls,
        "presses unanswered": sent.unanswered_presses,
        "onboarding updates gone wrong": stream.onboarding_problems,
        "stray messages": stream.strays,
        "check-ins not saved once": abs(stream.checkins_expected - stream.checkins_saved),
    }
    return verdict + "".join(f", {count} {what}" for what, count in others.items() if count)


def shown(warnings: dict[str, int]) -> str:
    return ", ".join(f"{event} ×{count:,}" for event, count in sorted(warnings.items())) or "none"


def ms(value: float) -> str:
    return f"{value:,.1f}"


def round_trip_lines(figures: PlatformFigures) -> list[str]:
    sqlite, postgres = figures.round_trips
    crowd = sqlite.crowd
    lines = [
        f"Telegram round trip, one worker polling: {crowd.users:,} users onboarded"
        f" (untimed), then one more user alone ({sqlite.alone.updates} updates, one at a"
        f" time), then the {crowd.users:,} at once ({crowd.updates:,} updates:"
        " /checkin, button presses, typed answers, free text, /affirm), each user a"
        " closed loop.",
        "",
        f"| Backend | Alone: median / p95 (ms) | {crowd.users:,} at once: median / p95 (ms)"
        " | Updates/s | CPU per update, worker / everything else (ms) | Check-ins saved"
        " | Problems | Warnings logged |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
        *(
            f"| {trip.backend} | {ms(trip.alone.p50_ms)} / {ms(trip.alone.p95_ms)}"
            f" | {ms(trip.crowd.p50_ms)} / {ms(trip.crowd.p95_ms)}"
            f" | {trip.crowd.throughput:,.0f}"
            f" | {trip.cpu.worker_ms:.2f} / {trip.cpu.others_ms:.2f}"
            f" | {trip.checkins_saved:,} of {trip.checkins_expected:,}"
            f" | {trip.alone.problems + trip.crowd.problems + trip.onboarding_problems}"
            f" | {shown(trip.warnings)} |"
            for trip in figures.round_trips
        ),
        "",
        f"PostgreSQL ÷ SQLite, median: {figures.postgres_ratio:.2f}x with {crowd.users:,}"
        f" at once, {postgres.alone.p50_ms / sqlite.alone.p50_ms:.2f}x alone.",
    ]
    # On SQLite nothing but the worker and this process should be busy.
    if sqlite.cpu.others_share > DISTURBED_SHARE:
        lines.append(
            f"Other processes used {100 * sqlite.cpu.others_share:.0f} % of a core during"
            " SQLite's crowd, so the figures are disturbed: rerun on a quiet machine."
        )
    return lines


def stream_lines(figures: PlatformFigures) -> list[str]:
    first = figures.streams[0]
    return [
        f"Webhook stream on PostgreSQL: {first.users:,} users, each onboarded ("
        f"{first.onboarding_updates:,} updates, untimed) and then sending ten timed"
        f" updates ({first.timed.updates:,}), each user a closed loop, all at once. Each"
        " update is posted to the next worker's webhook in turn (round-robin).",
        "",
        "| Workers | Updates posted (per worker) | Timed updates answered | Messages"
        " beyond / short of the conversations | Updates/s (timed) | Median / p95 (ms)"
        " | Check-ins saved | Warnings logged |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
        *(
            f"| {stream.workers} | {sum(stream.posted_per_worker):,}"
            f" ({' / '.join(f'{n:,}' for n in stream.posted_per_worker)})"
            f" | {stream.timed.answered:,} of {stream.timed.updates:,}"
            f" | {stream.delivered.extra} / {stream.delivered.missing}"
            f" | {stream.timed.throughput:,.0f}"
            f" | {ms(stream.timed.p50_ms)} / {ms(stream.timed.p95_ms)}"
            f" | {stream.checkins_saved:,} of {stream.checkins_expected:,}"
            f" | {shown(stream.warnings)} |"
            for stream in figures.streams
        ),
    ]


def take_over_lines(figures: PlatformFigures) -> list[str]:
    taken = figures.take_over
    return [
        "Take-over: two workers polling on PostgreSQL, the poller killed with SIGKILL.",
        "",
        "| Workers listing the role before | SIGKILL → the other's /healthz lists it (s)"
        " | SIGKILL → the update sent meanwhile answered (s) | An update sent after →"
        " answered (ms) | Messages: before / meanwhile / after | Warnings logged |",
        "|---:|---:|---:|---:|---:|---|",
        f"| {taken.pollers_before} | {taken.took_role_s:.2f} | {taken.gap_answered_s:.2f}"
        f" | {ms(taken.after_answered_ms)} | {' / '.join(map(str, taken.replies))}"
        f" | {shown(taken.warnings)} |",
    ]


HOW_TO_READ = [
    "How to read it:",
    "",
    "- Every worker is a `steady run` process on this machine, as are the PostgreSQL"
    " server and this process (the fake Telegram, the users and the balancer): with more"
    " workers than cores they share the CPUs, so the stream shows that updates stay"
    " answered exactly once across workers, not what more machines would add.",
    "- Latency: pushed into the fake (for the webhook: before the balancer's post) → the"
    " fake receives the first sendMessage or editMessageText for that chat. A crowd keeps"
    " the machine busy, so its latency is mostly queueing: its median follows what an"
    " update costs, the PostgreSQL server's share of it included (it runs on the same"
    " CPUs). The round trip's target is on that median; the user alone, the round trip of"
    " an idle worker, is there for context.",
    "- Telegram's flood limit is switched off in the round trip and the stream (see the"
    " module's docstring): with it, every run would be held to 30 messages a second. The"
    " take-over runs `steady run` as it is.",
    "- Exactly once: once the workers have stopped, each chat must hold as many messages as"
    " its conversation calls for (none short: no update unanswered; none beyond: none"
    " answered twice), every press must be answered once (a second answer is refused),"
    " and every /checkin saved once.",
    "- Take-over: workers try for a free role every 5 seconds. The poller is killed just"
    " after both have started, soon after the survivor's first try failed, so the figure"
    " is close to the worst case: a whole interval until its next try.",
]


def platform_report(figures: PlatformFigures) -> list[str]:
    took = ", ".join(f"{part} {seconds:.0f} s" for part, seconds in figures.seconds.items())
    return [
        *round_trip_lines(figures),
        "",
        *stream_lines(figures),
        "",
        *take_over_lines(figures),
        "",
        f"Wall time: {took}.",
        "",
        *HOW_TO_READ,
    ]


def check_lines(found: Sequence[Check]) -> list[str]:
    return [
        "| Target | Limit | Measured | Result |",
        "|---|---|---|---|",
        *(
            f"| {check.name} | {check.limit} | {check.measured}"
            f" | {'pass' if check.passed else 'FAIL'} |"
            for check in found
        ),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, to try it out")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return serve_as_worker()
    server = postgres_server()
    if not server:
        print("set STEADY_BENCH_POSTGRES_URL to a PostgreSQL server to use", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="steady-platforms-"))
    try:
        figures = asyncio.run(measure_platforms(server, folder, QUICK if args.quick else FULL))
    except BaseException:
        print(f"the workers' logs are kept in {folder}", file=sys.stderr)
        raise
    shutil.rmtree(folder, ignore_errors=True)
    found = platform_checks(figures)
    print("\n".join([*platform_report(figures), "", *check_lines(found)]))
    return 0 if all(check.passed for check in found) else 1


if __name__ == "__main__":
    sys.exit(main())
