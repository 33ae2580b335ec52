from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import aiosqlite
import pytest

from bot.storage.db import Database
from bot.storage.migrations import Migration, MigrationError, apply_migrations, bundled_migrations


async def schema(path: Path) -> tuple[int, list[str]]:
    with sqlite3.connect(path) as raw:
        version = raw.execute("PRAGMA user_version").fetchone()[0]
        tables = [r[0] for r in raw.execute("SELECT name FROM sqlite_master ORDER BY name")]
    return version, tables


async def test_bundled_migrations_bring_a_new_file_to_the_latest_version(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "s.db")
    await db.close()
    version, tables = await schema(tmp_path / "s.db")
    assert version == bundled_migrations()[-1].version
    assert {"users", "flow_positions", "checkins", "affirmations_seen", "meta"} <= set(tables)


async def test_failed_migration_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    good = Migration(1, "0001_a.sql", "CREATE TABLE a (x INTEGER);")
    broken = Migration(
        2,
        "0002_b.sql",
        "CREATE TABLE b (y INTEGER); INSERT INTO a VALUES (1); INSERT INTO nowhere VALUES (2);",
    )
    async with aiosqlite.connect(path, isolation_level=None) as connection:
        assert await apply_migrations(connection, [good]) == 1
        before = await schema(path)
        with pytest.raises(MigrationError, match=r"0002_b\.sql"):
            await apply_migrations(connection, [good, broken])
    assert await schema(path) == before
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT COUNT(*) FROM a").fetchone()[0] == 0


async def test_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA user_version = 999")
    with pytest.raises(MigrationError, match="newer"):
        await Database.open(path)


async def test_transaction_rolls_back_when_the_block_fails(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "s.db")
    try:
        with pytest.raises(RuntimeError):
            async with db.transaction() as tx:
                await tx.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
                raise RuntimeError("boom")
        assert await db.fetch_one("SELECT * FROM meta WHERE key = 'k'") is None
        async with db.transaction() as tx:  # the writer is usable again
            await tx.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
        assert await db.fetch_one("SELECT * FROM meta WHERE key = 'k'") is not None
    finally:
        await db.close()


async def test_database_uses_wal(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "s.db")
    try:
        row = await db.fetch_one("PRAGMA journal_mode")
        assert row is not None and row[0] == "wal"
    finally:
        await db.close()


async def test_reads_see_a_commit_made_while_other_reads_are_in_flight(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "s.db")
    try:
        async with db.transaction() as tx:
            await tx.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)", [(f"k{i}", "x") for i in range(200)]
            )

        async def busy_reader() -> None:
            for _ in range(20):
                await db.fetch_all("SELECT key FROM meta")

        async def write_then_read(index: int) -> bool:
            async with db.transaction() as tx:
                await tx.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?)", (f"mine{index}", "v")
                )
            return (
                await db.fetch_one("SELECT 1 FROM meta WHERE key = ?", (f"mine{index}",))
                is not None
            )

        results = await asyncio.gather(
            *(busy_reader() for _ in range(20)), *(write_then_read(i) for i in range(30))
        )
        assert all(seen for seen in results if isinstance(seen, bool))
    finally:
        await db.close()
