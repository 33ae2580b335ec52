"""A SQLite transaction: the writer connection, lent out for one BEGIN..COMMIT, each
statement one hop to its thread (`bot.storage.sqlite_hops`), or run in that thread
directly inside `SqliteDatabase.in_one_hop` (`bot.storage.db`, which lends it out,
commits and rolls back).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import TypeVar

import aiosqlite

from bot.storage.backend import Params, Row, StatementCounter, Transaction
from bot.storage.sqlite_dialect import SQLITE
from bot.storage.sqlite_hops import (
    Work,
    after_begin,
    fetched,
    first,
    in_thread_of,
    inserted_id,
    many,
    rows_changed,
)

T = TypeVar("T")


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
            return await in_thread_of(self._connection, work)
        self.begun = True
        return await in_thread_of(self._connection, after_begin(work))

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; returns the number of rows it changed."""
        return await self._run(lambda connection: rows_changed(connection, sql, params))

    async def insert(self, sql: str, params: Params = ()) -> int:
        """Run an INSERT; returns the new row id."""
        row_id = await self._run(lambda connection: inserted_id(connection, sql, params))
        if row_id is None:
            raise RuntimeError("INSERT produced no row id")
        return row_id

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        listed = list(rows)
        await self._run(lambda connection: many(connection, sql, listed))

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        return await self._run(lambda connection: fetched(connection, sql, params))

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        return await self._run(lambda connection: first(connection, sql, params))
