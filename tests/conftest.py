from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
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
from tests.conversation import Conversation

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    for name in ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "STEADY_ENCRYPTION_KEY"):
        monkeypatch.delenv(name, raising=False)
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
