"""Short reads run on the event loop's own connection; long ones are moved to the reader's
thread, with the same answer."""

from __future__ import annotations

from pathlib import Path

from bot.storage import sqlite_reads
from bot.storage.db import Database


async def filled(tmp_path: Path, rows: int) -> Database:
    db = await Database.open(tmp_path / "steady.db")
    async with db.transaction() as tx:
        await tx.execute("CREATE TABLE numbers (id INTEGER PRIMARY KEY, word TEXT NOT NULL)")
        await tx.executemany(
            "INSERT INTO numbers (word) VALUES (?)", [(f"w{n}",) for n in range(rows)]
        )
    return db


async def test_a_short_read_takes_no_trip_and_sees_the_last_commit(tmp_path: Path) -> None:
    db = await filled(tmp_path, 10)
    try:
        hops = db.hops
        row = await db.fetch_one("SELECT word FROM numbers WHERE id = ?", (3,))
        assert row is not None and row["word"] == "w2"
        assert db.hops == hops
        async with db.transaction() as tx:
            await tx.execute("UPDATE numbers SET word = 'changed' WHERE id = 3")
        row = await db.fetch_one("SELECT word FROM numbers WHERE id = 3")
        assert row is not None and row["word"] == "changed"
    finally:
        await db.close()


async def test_a_long_read_is_moved_to_the_readers_thread(tmp_path: Path) -> None:
    db = await filled(tmp_path, 50_000)
    try:
        hops = db.hops
        # One row, but far more machine steps than a read may take in place.
        row = await db.fetch_one("SELECT COUNT(*) AS n FROM numbers WHERE word LIKE '%9%'")
        assert row is not None
        assert row["n"] == sum(1 for n in range(50_000) if "9" in f"w{n}")
        assert db.hops == hops + 1
    finally:
        await db.close()


async def test_a_read_of_many_rows_is_moved_to_the_readers_thread(tmp_path: Path) -> None:
    db = await filled(tmp_path, sqlite_reads.READ_IN_PLACE_ROWS * 3)
    try:
        hops = db.hops
        rows = await db.fetch_all("SELECT id FROM numbers ORDER BY id")
        assert [row["id"] for row in rows] == list(
            range(1, sqlite_reads.READ_IN_PLACE_ROWS * 3 + 1)
        )
        assert db.hops == hops + 1
    finally:
        await db.close()


async def test_a_bounded_read_never_runs_in_place(tmp_path: Path) -> None:
    """The crisis path gives up on its user lookup after a bound; a read in place would
    hold the event loop until it ends, so bounded reads always go to the reader's thread."""
    db = await filled(tmp_path, 10)
    try:
        hops = db.hops
        row = await db.bounded.fetch_one("SELECT word FROM numbers WHERE id = ?", (3,))
        assert row is not None and row["word"] == "w2"
        assert db.hops == hops + 1
    finally:
        await db.close()
