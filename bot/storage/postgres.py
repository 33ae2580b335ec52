"""PostgreSQL through an asyncpg pool: the same `Database` as SQLite's, for several workers.

Each `transaction()` takes one pooled connection for its BEGIN..COMMIT (taken at its
first statement: a transaction that runs none costs nothing); reads outside a
transaction go to whichever pooled connection is free.

Write transactions run one at a time, as on SQLite: the bot's code relies on it (a
/forget waits for a tick's claim to commit, and the other way round). Run side by
side they took their row locks in different orders and deadlocked. So each takes
the writer: an asyncio lock in this process (a waiting transaction holds no pooled
connection), and an advisory lock for the transaction, sent with its BEGIN, across
all workers on the database. Repositories write SQLite's
`?` and `:name` placeholders; `PlaceholderCache` turns each statement text into
PostgreSQL's `$1..$n` once.

There is no write-ahead log of ours to copy back: the checkpoint helpers do nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import asyncpg

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
from bot.storage.placeholders import PlaceholderCache
from bot.storage.postgres_migrations import apply_postgres_migrations
from bot.storage.versions import declare, refuse_other_versions, this_code

log = get_logger("db")

T = TypeVar("T")

# As SQLite's: a transaction open longer than this is logged, and the benchmarks report it.
LONG_WRITE_HOLD_SECONDS = 0.1
POOL_MIN = 4  # ready before the first busy moment: a new connection takes a while
POOL_MAX = 10
# Held by each write transaction, across workers (any fixed number, unlike the others).
WRITER_LOCK = 0x5354454144 + 2
_BEGIN_AS_THE_WRITER = f"BEGIN; SELECT pg_advisory_xact_lock({WRITER_LOCK})"
# A statement outside the writer waits at most this long for a row lock, then starts
# again. Far below PostgreSQL's deadlock_timeout (1 s): should it ever wait on a writer
# that waits on it, it gives way before the writer (a /forget) could be the one failed.
OUTSIDE_LOCK_WAIT_MS = 100
OUTSIDE_ATTEMPTS = 5
# A statement beside the writer that takes longer than this is given up (a connection
# gone quiet must not hold every sender of the outbox).
COMMAND_TIMEOUT_S = 30

POSTGRES = Dialect(
    name="postgres",
    claim_lock=" FOR UPDATE OF {} SKIP LOCKED",
    arrays=True,
    writing_with=True,
    integers_from_json="SELECT value::bigint AS value FROM json_array_elements_text(?::json)",
    texts_from_json="SELECT value FROM json_array_elements_text(?::json)",
    comma_joined="string_agg({}, ',')",
    tables_with_column=(
        "SELECT table_name AS name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND column_name = ?"
    ),
    # schema_version is the migrations' own bookkeeping, as SQLite's user_version is.
    tables=(
        "SELECT table_name AS name FROM information_schema.tables"
        " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        " AND table_name <> 'schema_version'"
    ),
)


def rows_changed(status: str) -> int:
    """The count at the end of a command tag: 'UPDATE 3', 'INSERT 0 1', 'DELETE 0'."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PostgresTransaction(Transaction):
    """A pooled connection in a transaction, begun at the first statement."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        counter: StatementCounter,
        sql: PlaceholderCache,
        alone_on: asyncpg.Connection | None = None,
    ):
        self._pool = pool
        self._counter = counter
        self._sql = sql
        self.dialect = POSTGRES
        self.user_rows_changed = False
        self.connection: asyncpg.Connection | None = None  # set once begun
        # Given a connection, no BEGIN: each statement commits on its own there.
        self._alone_on = alone_on

    async def _connection(self) -> asyncpg.Connection:
        self._counter.count += 1
        self._counter.hops += 1
        if self._alone_on is not None:
            return self._alone_on
        if self.connection is None:
            connection = await self._pool.acquire()
            try:
                self._counter.hops += 1
                await connection.execute(_BEGIN_AS_THE_WRITER)  # one round trip for both
            except BaseException:
                await self._pool.release(connection)
                raise
            self.connection = connection
        return self.connection

    async def execute(self, sql: str, params: Params = ()) -> int:
        text, args = self._sql.positional(sql, params)
        status = await (await self._connection()).execute(text, *args)
        return rows_changed(status)

    async def insert(self, sql: str, params: Params = ()) -> int:
        text, args = self._sql.positional(sql + " RETURNING id", params)
        row_id = await (await self._connection()).fetchval(text, *args)
        if row_id is None:
            raise RuntimeError("INSERT produced no row id")
        return int(row_id)

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        listed = list(rows)
        if not listed:
            return
        text, _ = self._sql.positional(sql, listed[0])
        args = [self._sql.positional(sql, params)[1] for params in listed]
        await (await self._connection()).executemany(text, args)

    async def add_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]
    ) -> None:
        """Copied in (COPY, binary): a due minute's thousand outbox rows took a tenth of
        the server's time they took as a thousand INSERTs."""
        if rows:
            await (await self._connection()).copy_records_to_table(
                table, records=rows, columns=list(columns)
            )

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        text, args = self._sql.positional(sql, params)
        return list(await (await self._connection()).fetch(text, *args))

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        text, args = self._sql.positional(sql, params)
        row: Row | None = await (await self._connection()).fetchrow(text, *args)
        return row


class PostgresDatabase(Database):
    dialect = POSTGRES

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        self._pool = pool
        self._beside = _BesideTheWriter(url)
        self._counter = StatementCounter()
        self._sql = PlaceholderCache()
        self._write_lock = asyncio.Lock()
        self.write_holds = WriteHolds()
        self.user_rows_version = 0

    @classmethod
    async def connect(cls, url: str) -> PostgresDatabase:
        """Open a pool on `url` and bring the schema up to date."""
        pool = await asyncpg.create_pool(url, min_size=POOL_MIN, max_size=POOL_MAX)
        try:
            async with pool.acquire() as connection:
                await apply_postgres_migrations(connection)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, url)

    @property
    def statements(self) -> int:
        return self._counter.count

    @property
    def hops(self) -> int:
        return self._counter.hops

    async def close(self) -> None:
        async with self._write_lock:  # a transaction under way finishes first, as on SQLite
            await self._beside.close()
            await self._pool.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresTransaction]:
        """BEGIN .. COMMIT as the one writer, or ROLLBACK if the block or the COMMIT fails."""
        async with self._write_lock:
            held_since = time.perf_counter()
            tx = PostgresTransaction(self._pool, self._counter, self._sql)
            try:
                yield tx
                if tx.connection is not None:
                    self._counter.hops += 1
                    await tx.connection.execute("COMMIT")
            except BaseException:
                if tx.connection is not None:
                    await _rollback(tx.connection)
                raise
            finally:
                if tx.connection is not None:
                    await self._pool.release(tx.connection)
                self._held(held_since)
            if tx.user_rows_changed:
                self.user_rows_version += 1

    async def outside_the_writer(self, body: Callable[[Transaction], Coroutine[Any, Any, T]]) -> T:
        """`body`'s statements beside the writer's transactions, each committing on its
        own, on a connection kept for them: the outbox marks a round of sends in one
        round trip while a claim is being written, instead of after it (a due minute of
        10,000 took a quarter less time). Row locks keep the two apart. A lock waited on
        too long (`OUTSIDE_LOCK_WAIT_MS`) makes the body start again, nothing of it
        committed: `body` must be one statement, or statements each safe to repeat.
        After `OUTSIDE_ATTEMPTS` it runs as the writer, which waits as long as it needs."""
        for attempt in range(1, OUTSIDE_ATTEMPTS + 1):
            try:
                async with self._beside.connection() as connection:
                    tx = PostgresTransaction(
                        self._pool, self._counter, self._sql, alone_on=connection
                    )
                    return await body(tx)
            except asyncpg.LockNotAvailableError:
                log_event(log, "db.lock_wait_gave_way", logging.DEBUG, attempt=attempt)
            except _BROKEN as error:  # opened anew for the next attempt
                log_event(log, "db.beside_connection_lost", error=type(error).__name__)
        log_event(log, "db.lock_waits_as_the_writer", attempts=OUTSIDE_ATTEMPTS)
        return await self.in_one_hop(body)

    async def in_one_hop(self, body: Callable[[Transaction], Coroutine[Any, Any, T]]) -> T:
        """One transaction; each statement is its own round trip here."""
        async with self.transaction() as tx:
            return await body(tx)

    def _held(self, since: float) -> None:
        held = time.perf_counter() - since
        self.write_holds.last = held
        self.write_holds.longest = max(self.write_holds.longest, held)
        if held > LONG_WRITE_HOLD_SECONDS:
            log_event(log, "db.write_held_long", logging.INFO, ms=round(held * 1000))

    @asynccontextmanager
    async def log_copied_aside(self) -> AsyncIterator[None]:
        yield

    async def copy_log_aside(self) -> None:
        return None

    async def checkpoint(self) -> None:
        """Deleted rows are gone for every later reader at COMMIT; the server's own
        write-ahead log and vacuum are the operator's to run."""
        return None

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        self._counter.count += 1
        self._counter.hops += 1
        text, args = self._sql.positional(sql, params)
        return list(await self._pool.fetch(text, *args))

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        # Through fetch_all, as SQLite's: whatever holds reads back holds both.
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None


# Held shared by every running Steady, exclusively by a key rotation (any fixed number).
RUNNING_LOCK = 0x5354454144 + 1


class RunningHold:
    """Who has the database open, as an advisory lock on a connection of its own (a
    pooled one drops its locks when it goes back to the pool). Running bots hold it
    shared, so several workers share a database; a key rotation needs it alone, or
    workers still sealing with the old key would write what nothing can open."""

    def __init__(self, url: str, alone: bool) -> None:
        self._url = url
        self._alone = alone
        self._connection: asyncpg.Connection | None = None

    async def acquire(self) -> bool:
        """False when it is held otherwise (a rotation, or a running bot for a rotation)."""
        connection = await asyncpg.connect(self._url)
        # Versions first: whoever holds the running lock has said its versions.
        await declare(connection, this_code())
        take = "pg_try_advisory_lock" if self._alone else "pg_try_advisory_lock_shared"
        if not await connection.fetchval(f"SELECT {take}($1)", RUNNING_LOCK):
            await connection.close()
            return False
        self._connection = connection
        return True

    async def refuse_other_versions(self) -> None:
        """VersionMismatch while a worker of another version runs (see versions.py)."""
        assert self._connection is not None, "acquired first"
        await refuse_other_versions(self._connection, RUNNING_LOCK)

    async def release(self) -> None:
        if self._connection is not None:
            await self._connection.close()  # the session's locks go with it
            self._connection = None


# A connection that broke (the server restarted, the link dropped). A statement it was
# running may have committed or not; the let-go round run on it is safe to repeat
# either way (a row already marked is no longer asked for: never sent twice).
_BROKEN = (
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,  # e.g. the server's goodbye arrived mid-statement
    asyncpg.PostgresConnectionError,
    asyncpg.ConnectionDoesNotExistError,
    asyncpg.AdminShutdownError,
    OSError,
)


class _BesideTheWriter:
    """The connection for statements outside the writer's transactions, opened when
    first needed: its own, not the pool's, so that its lock timeout is its own too
    (the writer's transactions wait as long as they need) and a round needs no
    BEGIN or COMMIT. One user at a time; a connection that broke is opened anew."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._connection: asyncpg.Connection | None = None
        self._lock = asyncio.Lock()
        self._closed = False

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        async with self._lock:
            if self._closed:
                raise RuntimeError("the database is closed")
            if self._connection is None or self._connection.is_closed():
                self._connection = await self._connect()
            try:
                yield self._connection
            except _BROKEN:
                await self._discard(broken=True)
                raise

    async def _connect(self) -> asyncpg.Connection:
        # Set after connecting, not as a start-up parameter, which a pooler may refuse.
        connection = await asyncpg.connect(self._url, command_timeout=COMMAND_TIMEOUT_S)
        try:
            await connection.execute(f"SET lock_timeout = {OUTSIDE_LOCK_WAIT_MS}")
        except BaseException:
            await connection.close()
            raise
        return connection

    async def close(self) -> None:
        async with self._lock:
            self._closed = True
            await self._discard()

    async def _discard(self, broken: bool = False) -> None:
        connection, self._connection = self._connection, None
        if connection is None or connection.is_closed():
            return
        if broken:  # nothing to say goodbye over
            connection.terminate()
            return
        with contextlib.suppress(asyncpg.PostgresError, *_BROKEN):
            await connection.close(timeout=5)


async def _rollback(connection: asyncpg.Connection) -> None:
    # A connection that broke mid-transaction cannot roll back; the pool discards it.
    try:
        await connection.execute("ROLLBACK")
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as error:
        log_event(log, "db.rollback_failed", logging.ERROR, exc_info=error)
