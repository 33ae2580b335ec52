"""SQLite access: one writer connection used by one transaction at a time, reads on another.

A single shared connection would let one coroutine's COMMIT carry another
coroutine's half-done work. So every write happens inside `transaction()`,
which holds the writer for the whole BEGIN..COMMIT, and reads that need no
transaction go to separate read-only connections (WAL lets them read while a
write is in progress).

A read runs first on the event loop's own thread, on a connection of its own: a small
indexed read takes a few microseconds there, where a trip to a connection's thread and
back costs some 75 us of CPU (two thread wake-ups). A read that turns out long is
stopped by a progress handler after `READ_IN_PLACE_STEPS` steps of SQLite's machine
(well under a millisecond), and so is one that would have to wait for a lock; either is
then run again on the reader connection, in its thread, where it may take its time. A
read has no effects, so running it again changes nothing.

Each connection has its own thread (aiosqlite's), and every trip to it and back
(a "hop") costs the event loop far more than a small statement costs SQLite. So a
statement is one hop (executed, read and closed together), a transaction's BEGIN
travels with its first statement, and `in_one_hop` runs a whole transaction in the
thread at once. `statements` and `hops` count both, for the benchmarks and tests.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import aiosqlite

from bot.logs import get_logger, log_event
from bot.storage.backend import (
    Database,
    Dialect,
    Params,
    Row,
    StatementCounter,
    Transaction,
    WriteHolds,
)
from bot.storage.migrations import apply_migrations

if TYPE_CHECKING:
    from bot.storage.queries import Queryable

__all__ = ["Database", "Params", "Row", "SqliteDatabase", "SqliteTransaction", "Transaction"]

log = get_logger("db")

BUSY_TIMEOUT_MS = 5000
# SQLite machine steps a read may take on the event loop's thread before it is moved to
# the reader's thread: a few hundred microseconds' worth, whatever the query.
READ_IN_PLACE_STEPS = 20_000
READ_IN_PLACE_ROWS = 200  # rows, likewise
# A transaction holding the writer longer than this keeps every other write (a reply's
# step, a saved check-in) waiting noticeably: it is logged, and the benchmarks report it.
LONG_WRITE_HOLD_SECONDS = 0.1
AUTOCHECKPOINT_PAGES = 1000  # SQLite's default: the log is copied back past this

T = TypeVar("T")

SQLITE = Dialect(
    name="sqlite",
    integers_from_json="SELECT value FROM json_each(?)",
    texts_from_json="SELECT value FROM json_each(?)",
    comma_joined="group_concat({})",
    tables_with_column=(
        "SELECT m.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c"
        " WHERE m.type = 'table' AND c.name = ?"
    ),
    tables="SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
)


# What runs in a connection's thread: SQLite calls on the plain sqlite3 connection.
Work = Callable[[sqlite3.Connection], T]


def _rows_changed(connection: sqlite3.Connection, sql: str, params: Params) -> int:
    cursor = connection.execute(sql, params)
    try:
        return cursor.rowcount
    finally:
        cursor.close()


def _inserted_id(connection: sqlite3.Connection, sql: str, params: Params) -> int | None:
    cursor = connection.execute(sql, params)
    try:
        return cursor.lastrowid
    finally:
        cursor.close()


def _many(connection: sqlite3.Connection, sql: str, rows: list[Params]) -> None:
    connection.executemany(sql, rows).close()


def _fetched(connection: sqlite3.Connection, sql: str, params: Params) -> list[Row]:
    cursor = connection.execute(sql, params)
    try:
        return list(cursor.fetchall())
    finally:
        cursor.close()


def _first(connection: sqlite3.Connection, sql: str, params: Params) -> Row | None:
    cursor = connection.execute(sql, params)
    try:
        row: Row | None = cursor.fetchone()
        return row
    finally:
        cursor.close()


class SqliteTransaction(Transaction):
    """The writer connection, lent out for one transaction.

    Each statement is one hop to the connection's thread. The transaction's BEGIN is
    sent with its first statement (a transaction that runs none costs nothing). Inside
    `Database.in_one_hop` the same methods run in that thread directly: repository
    functions work unchanged in both.
    """

    def __init__(
        self,
        connection: aiosqlite.Connection,
        counter: StatementCounter,
        in_thread: sqlite3.Connection | None = None,
    ) -> None:
        self._connection = connection
        self._counter = counter
        self._in_thread = in_thread  # set: we are in the connection's thread already
        self.begun = in_thread is not None
        self.user_rows_changed = False
        self.dialect = SQLITE

    async def _run(self, work: Work[T]) -> T:
        self._counter.count += 1
        if self._in_thread is not None:
            return work(self._in_thread)
        self._counter.hops += 1
        if self.begun:
            return await _in_thread_of(self._connection, work)
        self.begun = True
        return await _in_thread_of(self._connection, _after_begin(work))

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; returns the number of rows it changed."""
        return await self._run(lambda connection: _rows_changed(connection, sql, params))

    async def insert(self, sql: str, params: Params = ()) -> int:
        """Run an INSERT; returns the new row id."""
        row_id = await self._run(lambda connection: _inserted_id(connection, sql, params))
        if row_id is None:
            raise RuntimeError("INSERT produced no row id")
        return row_id

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        listed = list(rows)
        await self._run(lambda connection: _many(connection, sql, listed))

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        return await self._run(lambda connection: _fetched(connection, sql, params))

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        return await self._run(lambda connection: _first(connection, sql, params))


def _after_begin(work: Work[T]) -> Work[T]:
    def begun(connection: sqlite3.Connection) -> T:
        connection.execute("BEGIN IMMEDIATE").close()
        return work(connection)

    return begun


async def _in_thread_of(connection: aiosqlite.Connection, work: Work[T]) -> T:
    """Run `work` in the connection's own thread: one hop, however many SQLite calls.

    aiosqlite builds every one of its methods on `_execute` (a function queued to the
    connection's thread); we use it directly so that a statement, its results and its
    cursor's close travel together instead of as three hops.
    """
    done: T = await connection._execute(work, connection._conn)  # type: ignore[no-untyped-call]
    return done


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
        return cls(path, writer, reader, _in_place_reader(path))

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
                tx, result = await _in_thread_of(
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
            result = _run_to_end(body(tx))
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
        await self._set_autocheckpoint(0)
        try:
            yield
        finally:
            await self._set_autocheckpoint(AUTOCHECKPOINT_PAGES)

    async def copy_log_aside(self) -> None:
        """A passive checkpoint on a connection of its own, in a worker thread: what the
        last batch wrote is copied back while other writes go on."""
        await asyncio.to_thread(_passive_checkpoint, self.path)

    async def _set_autocheckpoint(self, pages: int) -> None:
        async with self._write_lock:
            self._counter.hops += 1
            await _in_thread_of(
                self._writer, lambda c: _fetched(c, f"PRAGMA wal_autocheckpoint={pages}", ())
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
        await asyncio.to_thread(_passive_checkpoint, self.path)
        async with self._write_lock:
            held_since = time.perf_counter()
            self._counter.hops += 1
            try:
                # Read to its end and closed: a checkpoint's row left unread keeps its
                # statement running, and the next COMMIT on this connection would fail.
                await _in_thread_of(
                    self._writer, lambda c: _fetched(c, "PRAGMA wal_checkpoint(TRUNCATE)", ())
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
            rows = _fetched_in_place(self._in_place, sql, params)
        except sqlite3.OperationalError as error:
            if not _stopped_or_busy(error):
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


def _run_to_end(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends to its end, here and now."""
    try:
        coroutine.send(None)
    except StopIteration as finished:
        return finished.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("a one-hop transaction awaited something other than its statements")


def _passive_checkpoint(path: Path) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    finally:
        connection.close()


def _in_place_reader(path: Path) -> sqlite3.Connection:
    """The event loop's own read-only connection (see the top): it never waits for a lock
    (busy timeout 0) and stops any statement past READ_IN_PLACE_STEPS machine steps."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.row_factory = sqlite3.Row
    connection.execute("PRAGMA busy_timeout=0")
    connection.execute("PRAGMA query_only=ON")
    # Asked every READ_IN_PLACE_STEPS steps; answering True stops the statement.
    connection.set_progress_handler(lambda: True, READ_IN_PLACE_STEPS)
    return connection


def _fetched_in_place(connection: sqlite3.Connection, sql: str, params: Params) -> list[Row] | None:
    """All the rows, or None when there are more than READ_IN_PLACE_ROWS (each row is
    work on the event loop's thread too: such a read goes to the reader's thread)."""
    cursor = connection.execute(sql, params)
    try:
        rows: list[Row] = cursor.fetchmany(READ_IN_PLACE_ROWS + 1)
    finally:
        cursor.close()
    return rows if len(rows) <= READ_IN_PLACE_ROWS else None


def _stopped_or_busy(error: sqlite3.OperationalError) -> bool:
    """The in-place read gave up (too long, or a lock to wait for), not a real error."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return False
    primary = code & 0xFF  # an extended code (SQLITE_BUSY_RECOVERY, ...) keeps its kind
    return primary in (sqlite3.SQLITE_INTERRUPT, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


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
