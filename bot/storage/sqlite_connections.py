"""The SQLite database's file and the connections to it: owner-only from the start, each
connection waiting up to BUSY_TIMEOUT_MS for a lock, and the passive checkpoint that
copies the write-ahead log back on a connection of its own.

`SqliteDatabase.open` (`bot.storage.db`) uses these; the event loop's own read-only
connection is `bot.storage.sqlite_reads`'.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import aiosqlite

BUSY_TIMEOUT_MS = 5000


def passive_checkpoint(path: Path) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    finally:
        connection.close()


def prepare_private_file(path: Path) -> None:
    """Owner-only from the start: SQLite gives its -wal and -shm files the main file's mode."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.touch(mode=0o600, exist_ok=True)


async def connect(path: Path) -> aiosqlite.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves, the sqlite3 module must not.
    connection = await aiosqlite.connect(path, isolation_level=None)
    connection.row_factory = sqlite3.Row
    await connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    await connection.execute("PRAGMA foreign_keys=ON")
    return connection
