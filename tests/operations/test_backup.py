"""`steady backup` and `steady restore`: a copy made while Steady runs, checked, and put
back in a fresh folder shows the same user in /mydata."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import stat
from pathlib import Path

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.operations.backup import backup
from bot.operations.restore import restore
from bot.storage.copies import OperationError, check_sqlite_copy
from bot.storage.process_lock import ProcessLock
from tests.helpers.conversation import Conversation
from tests.helpers.postgres_server import scratch_database, server_url
from tests.helpers.processes import steady

NOTE = "slept badly, kept my phone in the drawer"


async def _check_in_with_note(chat: Conversation, note: str = NOTE) -> None:
    for text in ("/start", "Europe/Lisbon", "07:30", "/checkin", "2", "strong", note):
        await chat.send(text)


async def _mydata(services: Services) -> dict[str, object]:
    chat = Conversation(Router(services), Address("console", "c1", "u1"))
    await chat.send("/mydata")
    document: dict[str, object] = json.loads(chat.last[-1].text)
    return document


def _restored_settings(settings: Settings, data: Path, url: str | None = None) -> Settings:
    update: dict[str, object] = {"data_dir": data, "database_path": data / "steady.db"}
    if url is not None:
        update["database_url"] = url
    return settings.model_copy(update=update)


def _checkins(document: dict[str, object]) -> list[tuple[object, ...]]:
    checkins = document["checkins"]
    assert isinstance(checkins, list)
    return [(c["mood"], c["urge"], c["note"]) for c in checkins]


@pytest.mark.sqlite_only
async def test_a_backup_made_while_steady_runs_restores_into_a_fresh_folder(
    chat: Conversation, services: Services, settings: Settings, tmp_path: Path, clock: ManualClock
) -> None:
    await _check_in_with_note(chat)
    before = await _mydata(services)
    # Steady is running (`services` holds the database and its lock): the copy is online.
    lines = await asyncio.to_thread(backup, settings, tmp_path / "backup")
    assert lines[-1].startswith("steady: backup done.")
    assert "integrity ok" in lines[0] and "1 user(s)" in lines[0]
    assert "a sealed checkins.note" in lines[0]  # the key opened a user's own words
    key_copy = tmp_path / "backup" / "steady.key"
    assert stat.S_IMODE(key_copy.stat().st_mode) == 0o600
    assert key_copy.read_text().strip() == settings.key_file.read_text().strip()
    await chat.send("/affirm")  # writes go on after the copy, while it was made too

    fresh = _restored_settings(settings, tmp_path / "elsewhere")
    done = restore(fresh, tmp_path / "backup")
    assert done[-1].startswith(f"steady: restored into {fresh.database_file}")
    async with open_services(fresh, clock) as restored:
        after = await _mydata(restored)
    assert after["profile"] == before["profile"]
    assert _checkins(after) == [(2, "strong", NOTE)]


def test_backup_and_restore_on_the_command_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    made = steady(["console"], data, f"/start\nAsia/Tokyo\n21:00\n/checkin\n3\nnone\n{NOTE}\n")
    assert made.returncode == 0, made.stderr
    copy = steady(["backup", str(tmp_path / "copy")], data)
    assert copy.returncode == 0, copy.stderr
    assert "backup done" in copy.stdout

    again = steady(["backup", str(tmp_path / "copy")], data)
    assert again.returncode == 2
    assert "is not an empty folder" in again.stderr

    fresh = tmp_path / "fresh"
    restored = steady(["restore", str(tmp_path / "copy")], fresh)
    assert restored.returncode == 0, restored.stderr
    assert f"restored into {fresh / 'steady.db'}" in restored.stdout
    shown = steady(["console"], fresh, "/mydata\n")
    assert shown.returncode == 0, shown.stderr
    assert f'"note": "{NOTE}"' in shown.stdout
    assert '"timezone": "Asia/Tokyo"' in shown.stdout


def test_restore_refuses_to_overwrite_a_database_without_replace(tmp_path: Path) -> None:
    old, other = tmp_path / "old", tmp_path / "other"
    assert steady(["console"], old, f"/checkin\n1\nsome\n{NOTE}\n").returncode == 0
    assert steady(["backup", str(tmp_path / "copy")], old).returncode == 0
    assert steady(["console"], other, "/checkin\n5\nnone\nsomeone else\n").returncode == 0
    before = (other / "steady.db").read_bytes()

    refused = steady(["restore", str(tmp_path / "copy")], other)
    assert refused.returncode == 2
    assert "is already there and would be replaced; nothing was changed" in refused.stderr
    assert "--replace" in refused.stderr
    assert (other / "steady.db").read_bytes() == before

    lock = ProcessLock(other / "steady.db")  # as a running Steady holds it
    lock.acquire()
    try:
        running = steady(["restore", "--replace", str(tmp_path / "copy")], other)
    finally:
        lock.release()
    assert running.returncode == 2
    assert "Steady is running on" in running.stderr

    replaced = steady(["restore", "--replace", str(tmp_path / "copy")], other)
    assert replaced.returncode == 0, replaced.stderr
    kept = [line for line in replaced.stdout.splitlines() if "is kept as" in line]
    assert len(kept) == 2  # the database and the key that were there, renamed aside
    aside = sorted(other.glob("steady.db.replaced-*"))
    assert aside and aside[0].read_bytes()[:16] == b"SQLite format 3\x00"
    shown = steady(["console"], other, "/mydata\n").stdout
    assert NOTE in shown and "someone else" not in shown


def test_a_damaged_or_wrongly_keyed_backup_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert steady(["console"], data, f"/checkin\n1\nsome\n{NOTE}\n").returncode == 0
    assert steady(["backup", str(tmp_path / "copy")], data).returncode == 0
    key = (tmp_path / "copy" / "steady.key").read_text().strip()

    wrong = tmp_path / "copy" / "steady.key"
    wrong.write_text("A" * 43 + "=\n")
    refused = steady(["restore", str(tmp_path / "copy")], tmp_path / "fresh")
    assert refused.returncode == 2
    assert "the key does not open" in refused.stderr
    assert not (tmp_path / "fresh" / "steady.db").exists()

    wrong.write_text(key + "\n")
    database = tmp_path / "copy" / "steady.db"
    damaged = bytearray(database.read_bytes())
    damaged[100:4096] = b"\x00" * (4096 - 100)  # the schema's page, zeroed
    database.write_bytes(bytes(damaged))
    with pytest.raises(OperationError, match=r"steady\.db"):
        check_sqlite_copy(database, key)
    refused = steady(["restore", str(tmp_path / "copy")], tmp_path / "fresh")
    assert refused.returncode == 2
    assert "restore refused" in refused.stderr


def test_the_copy_is_one_self_contained_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert steady(["console"], data, "/checkin\n4\nnone\n\n").returncode == 0
    assert steady(["backup", str(tmp_path / "copy")], data).returncode == 0
    assert sorted(path.name for path in (tmp_path / "copy").iterdir()) == [
        "steady.db",
        "steady.key",
    ]
    connection = sqlite3.connect(tmp_path / "copy" / "steady.db")
    try:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    finally:
        connection.close()


@pytest.mark.postgres_only
async def test_postgres_backup_is_a_checked_dump_that_restores_into_an_empty_database(
    chat: Conversation, services: Services, settings: Settings, tmp_path: Path, clock: ManualClock
) -> None:
    await _check_in_with_note(chat)
    lines = await asyncio.to_thread(backup, settings, tmp_path / "backup")
    assert "dumped the PostgreSQL database" in lines[0]
    assert (tmp_path / "backup" / "steady.pgdump").stat().st_size > 0

    async with scratch_database(server_url()) as empty:
        fresh = _restored_settings(settings, tmp_path / "fresh", empty)
        done = await asyncio.to_thread(restore, fresh, tmp_path / "backup")
        assert done[-1].endswith("1 user(s), the key opens it.")
        with pytest.raises(OperationError, match="not empty"):
            await asyncio.to_thread(restore, fresh, tmp_path / "backup")  # never over it
        async with open_services(fresh, clock) as restored:
            assert _checkins(await _mydata(restored)) == [(2, "strong", NOTE)]


def test_a_copy_the_key_does_not_open_is_no_backup_and_is_not_left(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert steady(["console"], data, f"/checkin\n1\nsome\n{NOTE}\n").returncode == 0
    other_key = "B" * 43 + "="
    failed = steady(["backup", str(tmp_path / "copy")], data, STEADY_ENCRYPTION_KEY=other_key)
    assert failed.returncode == 2
    assert "backup failed: the key does not open" in failed.stderr
    assert "backup done" not in failed.stdout
    assert list((tmp_path / "copy").iterdir()) == []  # nothing to mistake for a backup
