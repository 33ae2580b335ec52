"""What the scale benchmark's parts share: where the PostgreSQL server is, a worker's
settings and its scheduled sending (outbox and dispatcher, as the app wires them), the
recording platform it sends through, and a PostgreSQL copy of a prepared SQLite file."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncpg

from bench.common import REPO
from bench.dispatch import PLANNED_AT
from bot.app import open_services
from bot.config import Settings
from bot.core.clock import Clock, ManualClock
from bot.core.events import Address
from bot.core.platform import Adapter, SentMessage
from bot.core.replies import Reply
from bot.delivery.outbox import Outbox
from bot.engine.due_work import build_dispatcher, outbox_effects
from bot.engine.router import Router
from bot.flows.context import Services
from bot.scheduling.dispatcher import Dispatcher
from tests.helpers.postgres_server import scratch_database

COPIED_TABLES = ("users", "checkin_slots")
SERVER_VARIABLES = ("STEADY_BENCH_POSTGRES_URL", "STEADY_TEST_POSTGRES_URL")


def postgres_server() -> str | None:
    """The PostgreSQL server the benchmarks may create and drop databases on."""
    return next((os.environ[name] for name in SERVER_VARIABLES if os.environ.get(name)), None)


def worker_settings(
    database_url: str | None, sqlite_path: Path | None, key: str, data_dir: Path
) -> Settings:
    """A worker's settings: no platform tokens, the repository's content pack, and the
    data folder the parent gave it (inside its own temporary folder, removed with it)."""
    os.environ["STEADY_CONTENT_DIR"] = str(REPO / "content")
    os.environ["STEADY_ENCRYPTION_KEY"] = key
    os.environ["STEADY_DATA_DIR"] = str(data_dir)
    for name in ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN"):
        os.environ.pop(name, None)
    if database_url is not None:
        os.environ["STEADY_DATABASE_URL"] = database_url
        os.environ.pop("STEADY_DATABASE_PATH", None)
    else:
        assert sqlite_path is not None
        os.environ.pop("STEADY_DATABASE_URL", None)
        os.environ["STEADY_DATABASE_PATH"] = str(sqlite_path)
    return Settings(_env_file=None)


def scheduled_sending(
    services: Services, clock: Clock, adapter: Adapter, sole_worker: bool
) -> tuple[Outbox, Dispatcher]:
    """The outbox and the dispatcher as `scheduled_delivery` builds them, without its
    runner: the benchmark ticks by itself."""
    router = Router(services)
    outbox = Outbox(
        services.db,
        clock,
        {adapter.platform: adapter},
        metrics=services.metrics,
        effects=outbox_effects(services),
        cipher=services.cipher,
        sole_worker=sole_worker,
    )
    return outbox, build_dispatcher(services, router.checkin, router.pause, outbox)


@dataclass
class RecordingSends:
    """The platform: notes each user a message went to, on stdout as it happens (a
    worker killed mid-dispatch has told the parent everything it sent)."""

    delay_s: float
    platform: str = "bench"
    sent: int = 0

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        self.sent += 1
        print(f"sent {address.user_id}", flush=True)
        return None

    async def delete(self, message: SentMessage) -> bool:
        return False


@asynccontextmanager
async def postgres_copy(
    sqlite_path: Path, server: str, key: str, data_dir: Path
) -> AsyncIterator[str]:
    """A fresh PostgreSQL database migrated by the bot and holding the SQLite file's users
    and slots; its URL, the database dropped on leaving, even after a failed copy."""
    async with scratch_database(server) as url:
        settings = worker_settings(url, None, key, data_dir)
        async with open_services(settings, ManualClock(PLANNED_AT)):
            pass  # migrated, and the key check written
        await _copy_rows(sqlite_path, url)
        yield url


async def _copy_rows(sqlite_path: Path, url: str) -> None:
    source = sqlite3.connect(sqlite_path)
    connection = await asyncpg.connect(url)
    try:
        for table in COPIED_TABLES:
            cursor = source.execute(f"SELECT * FROM {table}")
            columns = [column[0] for column in cursor.description]
            # The cursor streams: a million rows are never all in the parent at once.
            await connection.copy_records_to_table(table, records=cursor, columns=columns)
            await connection.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                f" (SELECT MAX(id) FROM {table}))"
            )
        await connection.execute("ANALYZE")
    finally:
        await connection.close()
        source.close()
