"""SQLite work sent to a connection's own thread, one trip ("hop") for each piece.

Each aiosqlite connection has its own thread, and every trip to it and back costs the
event loop far more than a small statement costs SQLite. So a statement is one hop
(executed, read and closed together), a transaction's BEGIN travels with its first
statement (`after_begin`), and a whole transaction can run in the thread at once
(`run_to_end`, for `SqliteDatabase.in_one_hop`).

The transaction that uses these is `bot.storage.sqlite_transaction`; the database,
`bot.storage.db`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import aiosqlite

from bot.storage.backend import Params, Row

T = TypeVar("T")

# What runs in a connection's thread: SQLite calls on the plain sqlite3 connection.
Work = Callable[[sqlite3.Connection], T]


def rows_changed(connection: sqlite3.Connection, sql: str, params: Params) -> int:
    cursor = connection.execute(sql, params)
    try:
        return cursor.rowcount
    finally:
        cursor.close()


def inserted_id(connection: sqlite3.Connection, sql: str, params: Params) -> int | None:
    cursor = connection.execute(sql, params)
    try:
        return cursor.lastrowid
    finally:
        cursor.close()


def many(connection: sqlite3.Connection, sql: str, rows: list[Params]) -> None:
    connection.executemany(sql, rows).close()


def fetched(connection: sqlite3.Connection, sql: str, params: Params) -> list[Row]:
    cursor = connection.execute(sql, params)
    try:
        return list(cursor.fetchall())
    finally:
        cursor.close()


def first(connection: sqlite3.Connection, sql: str, params: Params) -> Row | None:
    cursor = connection.execute(sql, params)
    try:
        row: Row | None = cursor.fetchone()
        return row
    finally:
        cursor.close()


def after_begin(work: Work[T]) -> Work[T]:
    def begun(connection: sqlite3.Connection) -> T:
        connection.execute("BEGIN IMMEDIATE").close()
        return work(connection)

    return begun


async def in_thread_of(connection: aiosqlite.Connection, work: Work[T]) -> T:
    """Run `work` in the connection's own thread: one hop, however many SQLite calls.

    aiosqlite builds every one of its methods on `_execute` (a function queued to the
    connection's thread); we use it directly so that a statement, its results and its
    cursor's close travel together instead of as three hops.
    """
    done: T = await connection._execute(work, connection._conn)  # type: ignore[no-untyped-call]
    return done


def run_to_end(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends to its end, here and now."""
    try:
        coroutine.send(None)
    except StopIteration as finished:
        return finished.value  # type: ignore[no-any-return]
    coroutine.close()
    raise RuntimeError("a one-hop transaction awaited something other than its statements")
