"""SQLite access: one writer connection used by one transaction at a time, reads on another.

A single shared connection would let one coroutine's COMMIT carry another
coroutine's half-done work. So every write happens inside `transaction()`,
which holds the writer for the whole BEGIN..COMMIT, and reads that need no
transaction go to a separate read-only connection (WAL lets it read while a
write is in progress).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from bot.logs import get_logger, log_event
from bot.storage.migrations import apply_migrations

log = get_logger("db")

BUSY_TIMEOUT_MS = 5000

Row = sqlite3.Row
Params = tuple[Any, ...] | dict[str, Any]


class StatementCounter:
    """How many statements went to SQLite: the benchmark reports queries per tick."""

    def __init__(self) -> None:
        self.count = 0


class Transaction:
    """The writer connection, lent out for one transaction."""

    def __init__(self, connection: aiosqlite.Connection, counter: StatementCounter) -> None:
        self._connection = connection
        self._counter = counter

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; returns the number of rows it changed."""
        self._counter.count += 1
        cursor = await self._connection.execute(sql, params)
        count = cursor.rowcount
        await cursor.close()
        return count

    async def insert(self, sql: str, params: Params = ()) -> int:
        """Run an INSERT; returns the new row id."""
        self._counter.count += 1
        cursor = await self._connection.execute(sql, params)
        row_id = cursor.lastrowid
        await cursor.close()
        if row_id is None:
            raise RuntimeError("INSERT produced no row id")
        return row_id

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        self._counter.count += 1
        await self._connection.executemany(sql, rows)

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        self._counter.count += 1
        cursor = await self._connection.execute(sql, params)
        rows = await cursor.fetchall()
        await cursor.close()
        return list(rows)

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        self._counter.count += 1
        cursor = await self._connection.execute(sql, params)
        row = await cursor.fetchone()
        await cursor.close()
        return row


class Database:
    def __init__(
        self, path: Path, writer: aiosqlite.Connection, reader: aiosqlite.Connection
    ) -> None:
        self.path = path
        self._writer = writer
        self._reader = reader
        self._write_lock = asyncio.Lock()
        self._counter = StatementCounter()

    @property
    def statements(self) -> int:
        """Statements run so far, reads and writes alike."""
        return self._counter.count

    @classmethod
    async def open(cls, path: Path) -> Database:
        await asyncio.to_thread(_prepare_private_file, path)
        writer = await _connect(path)
        try:
            await writer.execute("PRAGMA journal_mode=WAL")
            # Deleted rows are overwritten, not just unlinked: /forget means forget.
            await writer.execute("PRAGMA secure_delete=ON")
            # In WAL mode NORMAL never corrupts the database; it can only lose the
            # last commits on power loss (not on a crash), and saves an fsync per commit.
            await writer.execute("PRAGMA synchronous=NORMAL")
            await apply_migrations(writer)
            reader = await _connect(path)
            await reader.execute("PRAGMA query_only=ON")
        except BaseException:
            await writer.close()
            raise
        return cls(path, writer, reader)

    async def close(self) -> None:
        async with self._write_lock:
            await self._writer.close()
        await self._reader.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """BEGIN IMMEDIATE .. COMMIT, or ROLLBACK if the block or the COMMIT fails.

        A COMMIT that fails (a deferred constraint, a full or read-only disk) leaves
        SQLite's transaction open. Without the rollback every later BEGIN on this
        connection fails too, and the bot could not write anything until restarted.
        """
        async with self._write_lock:
            await self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield Transaction(self._writer, self._counter)
                await self._writer.execute("COMMIT")
            except BaseException:
                await self._rollback()
                raise

    async def _rollback(self) -> None:
        # After some errors (SQLITE_FULL, SQLITE_IOERR) SQLite has already rolled back,
        # and a second ROLLBACK would raise and hide the error that matters.
        if self._writer.in_transaction:
            try:
                await self._writer.execute("ROLLBACK")
            except sqlite3.Error as error:
                log_event(log, "db.rollback_failed", logging.ERROR, exc_info=error)

    async def checkpoint(self) -> None:
        """Copy the write-ahead log into the database and empty it.

        After a /forget the log still holds the deleted rows' old pages until
        the next checkpoint; this makes that moment now.
        """
        async with self._write_lock:
            await self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        """Rows from the reader connection, in one job on its thread.

        Execute, fetch and close as separate awaits would leave the statement
        open while other coroutines read: all of them then share one SQLite
        read transaction and see the database as it was before recent commits,
        even a user's own. The benchmark caught presses answered as "expired".
        """
        self._counter.count += 1
        return list(await self._reader.execute_fetchall(sql, params))

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None

    async def table_names(self) -> list[str]:
        rows = await self.fetch_all(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
        return [row["name"] for row in rows]


def _prepare_private_file(path: Path) -> None:
    """Owner-only from the start: SQLite gives its -wal and -shm files the main file's mode."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.touch(mode=0o600, exist_ok=True)


async def _connect(path: Path) -> aiosqlite.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves, the sqlite3 module must not.
    connection = await aiosqlite.connect(path, isolation_level=None)
    connection.row_factory = sqlite3.Row
    await connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    await connection.execute("PRAGMA foreign_keys=ON")
    return connection
