from __future__ import annotations

import stat
from pathlib import Path

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.core.clock import ManualClock
from bot.storage.crypto import TextCipher, WrongKeyError, generate_key_text, load_or_create_key
from bot.storage.process_lock import AlreadyRunningError


def test_key_file_is_created_private_and_reused(tmp_path: Path) -> None:
    key_file = tmp_path / "data" / "steady.key"
    first = load_or_create_key(None, key_file)
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert load_or_create_key(None, key_file) == first
    assert len(first) == 32


def test_ciphertext_is_bound_to_its_user() -> None:
    cipher = TextCipher(load_or_create_key(generate_key_text(), Path("/nonexistent")))
    sealed = cipher.encrypt("only mine", user_id=1)
    assert cipher.decrypt(sealed, user_id=1) == "only mine"
    with pytest.raises(WrongKeyError):
        cipher.decrypt(sealed, user_id=2)


def test_same_text_encrypts_differently_each_time() -> None:
    cipher = TextCipher(bytes(32))
    assert cipher.encrypt("same", 1) != cipher.encrypt("same", 1)


async def test_database_opened_with_another_key_is_refused(
    settings: Settings, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_services(settings, clock):
        pass  # first start: key generated, check value stored
    monkeypatch.setenv("STEADY_ENCRYPTION_KEY", generate_key_text())
    with pytest.raises(WrongKeyError):
        async with open_services(Settings(_env_file=None), clock):
            pass


async def test_configured_key_opens_its_own_database(
    settings: Settings, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STEADY_ENCRYPTION_KEY", generate_key_text())
    configured = Settings(_env_file=None)
    async with open_services(configured, clock):
        pass
    async with open_services(configured, clock) as services:
        assert await services.db.fetch_one("SELECT 1 AS one") is not None
    assert not configured.key_file.exists()  # no key file when the key comes from settings


@pytest.mark.sqlite_only  # the file lock is SQLite's; PostgreSQL is shared by design
async def test_a_second_process_on_the_same_database_is_refused(
    settings: Settings, clock: ManualClock
) -> None:
    async with open_services(settings, clock):
        with pytest.raises(AlreadyRunningError):
            async with open_services(settings, clock):
                pass
    async with open_services(settings, clock):  # released when the first one closed
        pass
