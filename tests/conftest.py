from __future__ import annotations

import asyncio
import io
import logging
import os
import random
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import Msg
from bot.content_pack.loader import load_pack
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.logs import configure_logging
from bot.storage.db import Params, Row
from tests.helpers.conversation import Conversation
from tests.helpers.discord_world import DiscordWorld, running_discord
from tests.helpers.faults import every_read_through_fetch_all
from tests.helpers.postgres import SKIP_REASON, ThrowawayDatabases, server_url
from tests.helpers.postgres_server import REQUIRED_VARIABLE
from tests.helpers.telegram_world import TelegramWorld, running_telegram
from tests.helpers.world import World, build_world

REPO = Path(__file__).resolve().parent.parent

# Every test that takes `settings` (and so `services`, `chat`, the worlds ...) runs on
# each: SQLite in a temporary folder, PostgreSQL in a database of its own.
BACKENDS = ("sqlite", "postgres")


def pytest_report_header(config: pytest.Config) -> str:
    if server_url() is None:
        return f"backends: sqlite only; the PostgreSQL half is deselected. {SKIP_REASON}"
    return "backends: sqlite and postgres"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without a server the PostgreSQL variants are deselected (the header says why); a
    test marked sqlite_only keeps its SQLite variant alone."""
    no_server = server_url() is None
    if no_server and os.environ.get(REQUIRED_VARIABLE):  # CI: never skipped
        raise pytest.UsageError(f"{REQUIRED_VARIABLE} is set but no PostgreSQL server is")
    dropped = [
        item
        for item in items
        if (_on_postgres(item) and (no_server or item.get_closest_marker("sqlite_only")))
        or (_on_sqlite(item) and item.get_closest_marker("postgres_only"))
        or (no_server and _without_backend(item) and item.get_closest_marker("postgres_only"))
    ]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        gone = set(dropped)
        items[:] = [item for item in items if item not in gone]


def _without_backend(item: pytest.Item) -> bool:
    """A test of what workers share through PostgreSQL itself, with no backend variants."""
    callspec = getattr(item, "callspec", None)
    return callspec is None or "backend" not in callspec.params


def _on_sqlite(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    return callspec is not None and callspec.params.get("backend") == "sqlite"


def _on_postgres(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    return callspec is not None and callspec.params.get("backend") == "postgres"


@pytest.fixture(scope="session")
def postgres_databases() -> Iterator[ThrowawayDatabases]:
    url = server_url()
    if url is None:
        pytest.skip(SKIP_REASON)
    databases = ThrowawayDatabases(url)
    yield databases
    databases.close()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def database_url(backend: str, request: pytest.FixtureRequest) -> Iterator[str | None]:
    """None on SQLite; on PostgreSQL a fresh migrated database, dropped after the test."""
    if backend == "sqlite":
        yield None
        return
    databases: ThrowawayDatabases = request.getfixturevalue("postgres_databases")
    name, url = databases.fresh()
    yield url
    databases.drop(name)


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, database_url: str | None) -> Settings:
    for name in ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "STEADY_ENCRYPTION_KEY"):
        monkeypatch.delenv(name, raising=False)
    if database_url is None:
        monkeypatch.delenv("STEADY_DATABASE_URL", raising=False)
    else:
        monkeypatch.setenv("STEADY_DATABASE_URL", database_url)
    monkeypatch.setenv("STEADY_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("STEADY_CONTENT_DIR", str(REPO / "content"))
    return Settings(_env_file=None)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))


@pytest.fixture(scope="session")
def content() -> ContentPack:
    return load_pack(REPO / "content", "en")


@pytest.fixture
async def services(
    settings: Settings, clock: ManualClock, content: ContentPack
) -> AsyncIterator[Services]:
    # The pack is read-only: one loaded per session serves every test.
    async with open_services(settings, clock, content) as opened:
        yield opened


@pytest.fixture
def router(services: Services) -> Router:
    return Router(services, rng=random.Random(7))


@pytest.fixture
def chat(router: Router) -> Conversation:
    return Conversation(router, Address("console", "c1", "u1"))


@pytest.fixture
def text_of(content: ContentPack) -> Callable[..., str]:
    """The pack's English text for a message id, so tests assert what users see."""

    def lookup(message: Msg, **values: str | int) -> str:
        return content.text("en", message, **values)

    return lookup


@pytest.fixture
async def world(services: Services, clock: ManualClock) -> AsyncIterator[World]:
    """The core with its scheduler and outbox, sending to a recording adapter."""
    built = await build_world(services, clock)
    yield built
    await built.outbox.stop()


@pytest.fixture
async def telegram(services: Services, clock: ManualClock) -> AsyncIterator[TelegramWorld]:
    """Steady on Telegram: the real PTB against the fake Bot API."""
    async with running_telegram(services, clock) as running:
        yield running


@pytest.fixture
async def discord_world(services: Services, clock: ManualClock) -> AsyncIterator[DiscordWorld]:
    """Steady on Discord: the real discord.py against the fake Discord."""
    async with running_discord(services, clock) as running:
        yield running


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    """Logging set up exactly as `steady` does it, at the chattiest level an operator can pick."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    stream = io.StringIO()
    configure_logging("DEBUG", stream)
    yield stream
    root.handlers[:], _ = saved
    root.setLevel(saved[1])
    logging.getLogger("steady").setLevel(logging.NOTSET)


@pytest.fixture
def stalled_reads(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> Callable[[], asyncio.Event]:
    """Call to make every read wait until the returned event is set: a database that hangs."""

    def stall() -> asyncio.Event:
        release = asyncio.Event()
        real = services.db.fetch_all

        async def hanging(sql: str, params: Params = ()) -> list[Row]:
            await release.wait()
            return await real(sql, params)

        monkeypatch.setattr(services.db, "fetch_all", hanging)
        every_read_through_fetch_all(services.db, monkeypatch)
        return release

    return stall


@pytest.fixture
def unhurried_follow_ups(monkeypatch: pytest.MonkeyPatch) -> None:
    """The caring offer and the question again after a crisis reply, waited for as long as
    the test needs. In the bot they get USER_LOOKUP_SECONDS (0.3 s of wall time) so that a
    slow database never holds a reply back; on a loaded test machine an offer can miss
    that, and a test about what the offer leads to would fail for no fault of the code.
    The bound itself is tested with a hanging database (tests/engine, tests/adapters)."""
    monkeypatch.setattr("bot.engine.urgent_path.USER_LOOKUP_SECONDS", 10.0)
