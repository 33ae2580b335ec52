"""SQLite access: one writer connection used by one transaction at a time, reads on another.

A single shared connection would let one coroutine's COMMIT carry another
coroutine's half-done work. So every write happens inside `transaction()`,
which holds the writer for the whole BEGIN..COMMIT, and reads that need no
transaction go to separate read-only connections (WAL lets them read while a
write is in progress).

A read runs first on the event loop's own thread, on a connection of its own, and moves
to the reader connection's thread when it turns out long or would wait for a lock
(`bot.storage.sqlite_reads`). Every trip to a connection's thread (a "hop") costs the
event loop far more than a small statement costs SQLite, so a statement is one hop and
`in_one_hop` runs a whole transaction in the thread at once (`bot.storage.sqlite_hops`,
`bot.storage.sqlite_transaction`). `statements` and `hops` count both, for the benchmarks
and tests. The file and its connections are `bot.storage.sqlite_connections`'.

`Database`, `Transaction`, `Row` and `Params` are `bot.storage.backend`'s; some fifty
modules import them from here, where the repositories have always found them, so they
stay importable from this module (`__all__`).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import aiosqlite

from bot.logs import get_logger, log_event
from bot.storage.backend import Database, Params, Row, StatementCounter, Transaction, WriteHolds
from bot.storage.migrations import apply_migrations
from bot.storage.sqlite_connections import connect, passive_checkpoint, prepare_private_file
from bot.storage.sqlite_dialect import SQLITE
from bot.storage.sqlite_hops import fetched, in_thread_of, run_to_end
from bot.storage.sqlite_reads import fetched_in_place, in_place_reader, stopped_or_busy
from bot.storage.sqlite_transaction import SqliteTransaction

if TYPE_CHECKING:
    from bot.storage.queries import Queryable

__all__ = ["Database", "Params", "Row", "SqliteDatabase", "SqliteTransaction", "Transaction"]

log = get_logger("db")

# A transaction holding the writer longer than this keeps every other write (a reply's
# step, a saved check-in) waiting noticeably: it is logged, and the benchmarks report it.
LONG_WRITE_HOLD_SECONDS = 0.1
AUTOCHECKPOINT_PAGES = 1000  # SQLite's default: the log is copied back past this

T = TypeVar("T")


class SqliteDatabase(Database):
    """SQLite: see the top of this module."""

    dialect = SQLITE

    def __init__(
        self,
        path: Path,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        in_place: sqlite3.Connection,
    ) -> None:
        self.path = path
        self._writer = writer
        self._reader = reader
        self._in_place = in_place
        self._write_lock = asyncio.Lock()
        self._jobs_copying_aside = 0  # see log_copied_aside: such jobs may overlap
        self._counter = StatementCounter()
        self.write_holds = WriteHolds()
        self.user_rows_version = 0

    @property
    def statements(self) -> int:
        """Statements run so far, reads and writes alike."""
        return self._counter.count

    @property
    def hops(self) -> int:
        """Trips to a connection's thread so far (each one an event loop hand-off)."""
        return self._counter.hops

    @classmethod
    async def open(cls, path: Path) -> SqliteDatabase:
        await asyncio.to_thread(prepare_private_file, path)
        writer = await connect(path)
        try:
            await writer.execute("PRAGMA journal_mode=WAL")
            # Deleted rows are overwritten, not just unlinked: /forget means forget.
            await writer.execute("PRAGMA secure_delete=ON")
            # In WAL mode NORMAL never corrupts the database; it can only lose the
            # last commits on power loss (not on a crash), and saves an fsync per commit.
            await writer.execute("PRAGMA synchronous=NORMAL")
            await apply_migrations(writer)
            reader = await connect(path)
            await reader.execute("PRAGMA query_only=ON")
        except BaseException:
            await writer.close()
            raise
        return cls(path, writer, reader, in_place_reader(path))

    async def close(self) -> None:
        async with self._write_lock:
            await self._writer.close()
        await self._reader.close()
        self._in_place.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteTransaction]:
        """BEGIN IMMEDIATE .. COMMIT, or ROLLBACK if the block or the COMMIT fails.

        A COMMIT that fails (a deferred constraint, a full or read-only disk) leaves
        SQLite's transaction open. Without the rollback every later BEGIN on this
        connection fails too, and the bot could not write anything until restarted.
        """
        async with self._write_lock:
            held_since = time.perf_counter()
            tx = SqliteTransaction(self._writer, self._counter)
            try:
                yield tx
                if tx.begun:
                    self._counter.hops += 1
                    await self._writer.execute("COMMIT")
            except BaseException:
                await self._rollback()
                raise
            finally:
                self._held(held_since)
            if tx.user_rows_changed:
                self.user_rows_version += 1

    async def in_one_hop(self, body: Callable[[Transaction], Coroutine[Any, Any, T]]) -> T:
        """Run `body(tx)` as one transaction in one trip to the writer's thread.

        `body` is an ordinary `async def` calling repository functions with `tx`; here
        their statements run in the connection's thread directly, never suspending, so
        the whole coroutine runs there in one go: BEGIN, every statement, COMMIT (or
        ROLLBACK if it raises). It may compute between statements, but await nothing
        else (no reads on the reader, no sleeps): that is refused, and rolled back.
        Once the trip has begun it runs to its end, even if the caller is cancelled.
        """
        async with self._write_lock:
            held_since = time.perf_counter()
            self._counter.hops += 1
            try:
                tx, result = await in_thread_of(
                    self._writer, lambda connection: self._run_body(connection, body)
                )
            finally:
                self._held(held_since)
        if tx.user_rows_changed:
            self.user_rows_version += 1
        return result

    def _run_body(
        self,
        connection: sqlite3.Connection,
        body: Callable[[Transaction], Coroutine[Any, Any, T]],
    ) -> tuple[SqliteTransaction, T]:
        """In the writer's thread: the whole transaction."""
        tx = SqliteTransaction(self._writer, self._counter, in_thread=connection)
        connection.execute("BEGIN IMMEDIATE").close()
        try:
            result = run_to_end(body(tx))
            connection.execute("COMMIT").close()
        except BaseException:
            if connection.in_transaction:
                try:
                    connection.execute("ROLLBACK").close()
                except sqlite3.Error as error:
                    log_event(log, "db.rollback_failed", logging.ERROR, exc_info=error)
            raise
        return tx, result

    def _held(self, since: float) -> None:
        held = time.perf_counter() - since
        self.write_holds.last = held
        self.write_holds.longest = max(self.write_holds.longest, held)
        if held > LONG_WRITE_HOLD_SECONDS:
            log_event(log, "db.write_held_long", logging.INFO, ms=round(held * 1000))

    async def _rollback(self) -> None:
        # After some errors (SQLITE_FULL, SQLITE_IOERR) SQLite has already rolled back,
        # and a second ROLLBACK would raise and hide the error that matters.
        if self._writer.in_transaction:
            try:
                await self._writer.execute("ROLLBACK")
            except sqlite3.Error as error:
                log_event(log, "db.rollback_failed", logging.ERROR, exc_info=error)

    @asynccontextmanager
    async def log_copied_aside(self) -> AsyncIterator[None]:
        """For a long job of many short transactions (the daily purge): meanwhile SQLite
        does not copy the write-ahead log back inside a COMMIT, where every other write
        would wait for it, fsync and all; the job calls `copy_log_aside` between its
        batches instead, which copies it without holding the writer."""
        # Two such jobs may overlap (a large tick during the daily purge): SQLite's own
        # copying comes back when the last of them ends, not when the first does.
        self._jobs_copying_aside += 1
        try:
            if self._jobs_copying_aside == 1:
                await self._set_autocheckpoint(0)
            yield
        finally:
            self._jobs_copying_aside -= 1
            if self._jobs_copying_aside == 0:
                await self._set_autocheckpoint(AUTOCHECKPOINT_PAGES)

    async def copy_log_aside(self) -> None:
        """A passive checkpoint on a connection of its own, in a worker thread: what the
        last batch wrote is copied back while other writes go on."""
        await asyncio.to_thread(passive_checkpoint, self.path)

    async def _set_autocheckpoint(self, pages: int) -> None:
        async with self._write_lock:
            self._counter.hops += 1
            await in_thread_of(
                self._writer, lambda c: fetched(c, f"PRAGMA wal_autocheckpoint={pages}", ())
            )

    async def checkpoint(self) -> None:
        """Copy the write-ahead log into the database and empty it.

        After a /forget the log still holds the deleted rows' old pages until
        the next checkpoint; this makes that moment now. Most of the copying is done
        first without the writer (a passive checkpoint, on a connection of its own, in
        a worker thread: writes go on meanwhile); emptying the log needs the writer, and
        then only what was written since is left to copy. So even after a purge of
        millions of rows other writes wait briefly, not for the whole copy.
        """
        await asyncio.to_thread(passive_checkpoint, self.path)
        async with self._write_lock:
            held_since = time.perf_counter()
            self._counter.hops += 1
            try:
                # Read to its end and closed: a checkpoint's row left unread keeps its
                # statement running, and the next COMMIT on this connection would fail.
                await in_thread_of(
                    self._writer, lambda c: fetched(c, "PRAGMA wal_checkpoint(TRUNCATE)", ())
                )
            finally:
                self._held(held_since)

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        """Rows read in place, or, for a long read, on the reader connection in one job
        on its thread (see the top).

        Execute, fetch and close as separate awaits would leave the statement
        open while other coroutines read: all of them then share one SQLite
        read transaction and see the database as it was before recent commits,
        even a user's own. The benchmark caught presses answered as "expired".
        """
        self._counter.count += 1
        try:
            rows = fetched_in_place(self._in_place, sql, params)
        except sqlite3.OperationalError as error:
            if not stopped_or_busy(error):
                raise
        else:
            if rows is not None:
                return rows
        return await self._read_in_thread(sql, params)

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None

    async def _read_in_thread(self, sql: str, params: Params) -> list[Row]:
        self._counter.hops += 1
        return list(await self._reader.execute_fetchall(sql, params))

    @property
    def bounded(self) -> Queryable:
        """Reads always on the reader's thread: a read in place runs to its end on the
        event loop, and a disk that stalls it would hold every reply, a crisis reply
        too, past any bound its caller set. Waiting on the thread can be given up."""
        return _ReadsInThread(self)


class _ReadsInThread:
    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db
        self.dialect = db.dialect

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        self._db._counter.count += 1
        return await self._db._read_in_thread(sql, params)

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None
