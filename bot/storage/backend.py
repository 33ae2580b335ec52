"""What repositories and the rest of Steady see of a database, whichever one it is.

Two backends implement it: SQLite (`bot.storage.db`, the default: one file, one
process) and PostgreSQL (`bot.storage.postgres`, chosen by STEADY_DATABASE_URL).
Repositories write one SQL text for both, with SQLite's `?` (or `:name`)
placeholders; the few phrases the two spell differently come from `Dialect`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from bot.storage.queries import Queryable

Params = tuple[Any, ...] | dict[str, Any]
T = TypeVar("T")


class Row(Protocol):
    """A result row, read by column name or by position (sqlite3.Row, asyncpg's Record)."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def keys(self) -> Iterable[str]: ...


@dataclass(frozen=True, slots=True)
class Dialect:
    """The phrases SQLite and PostgreSQL spell differently, as repositories need them."""

    name: str
    # `SELECT` of the integers in one parameter holding a JSON list (`[1, 2, 3]`), as a
    # column named `value`: one statement and one parameter, however many ids.
    integers_from_json: str
    # The same for texts (`["a", "b"]`).
    texts_from_json: str
    # An aggregate joining the texts of `{}` with commas.
    comma_joined: str
    # Each table with a column of the given name: one parameter (the column's name),
    # tables as `name`.
    tables_with_column: str
    # Every table of Steady's schema, as `name`.
    tables: str
    # Ends a claim's SELECT of due rows (`{}`: the alias of the table claimed): on
    # PostgreSQL the rows are locked, and rows another worker is claiming are skipped,
    # so no two workers claim one row. On SQLite one writer claims at a time: nothing.
    claim_lock: str = ""
    # Lists passed as arrays, one per column, for one statement over many rows
    # (`unnest`): where each row's statement is a round of work on the server
    # (PostgreSQL), not a call in this process (SQLite, where `executemany` is cheaper).
    arrays: bool = False
    # A WITH may hold a DELETE, so two writes go in one statement (PostgreSQL).
    writing_with: bool = False


class StatementCounter:
    """How many statements went to the database, and how many trips to it (or to the
    connection's thread) they took: the benchmarks report both, and tests hold the hot
    paths to them."""

    def __init__(self) -> None:
        self.count = 0
        self.hops = 0


class WriteHolds:
    """How long transactions held the writer: the longest since the last `reset`, and
    the last one (read right after a transaction returns, it is that transaction's:
    the hold is recorded before the writer is let go)."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.last = 0.0

    def reset(self) -> float:
        longest, self.longest = self.longest, 0.0
        return longest


class Transaction(ABC):
    """One transaction: every write goes through one, and reads inside it see its writes."""

    dialect: Dialect
    user_rows_changed: bool = False

    def changed_user_rows(self) -> None:
        """Called by the users repository: a user's row as read earlier is out of date
        once this commits (see `Database.user_rows_version`)."""
        self.user_rows_changed = True

    @abstractmethod
    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; returns the number of rows it changed."""

    @abstractmethod
    async def insert(self, sql: str, params: Params = ()) -> int:
        """Run an INSERT into a table with an `id` key; returns the new row's id."""

    @abstractmethod
    async def executemany(self, sql: str, rows: Iterable[Params]) -> None: ...

    async def add_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]
    ) -> None:
        """New rows into `table`, values in `columns` order: an INSERT per row here,
        run as one `executemany` (PostgreSQL copies them in instead)."""
        if rows:
            marks = ", ".join("?" for _ in columns)
            await self.executemany(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows
            )

    @abstractmethod
    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]: ...

    @abstractmethod
    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None: ...


class Database(ABC):
    """A database with Steady's schema, migrated when opened."""

    dialect: Dialect
    write_holds: WriteHolds
    # Goes up whenever a transaction that changed a users row commits: a row read
    # before that may be out of date (`FlowContext` keeps the user it read until then).
    user_rows_version: int

    @classmethod
    async def open(cls, path: Path) -> Database:
        """The SQLite database in this file (`open_database` picks by the settings)."""
        from bot.storage.db import SqliteDatabase  # noqa: PLC0415 - it builds on this module

        return await SqliteDatabase.open(path)

    @property
    @abstractmethod
    def statements(self) -> int:
        """Statements run so far, reads and writes alike."""

    @property
    @abstractmethod
    def hops(self) -> int:
        """Trips to the database (or its connection's thread) so far."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """BEGIN .. COMMIT, or ROLLBACK if the block or the COMMIT fails."""

    @abstractmethod
    async def in_one_hop(self, body: Callable[[Transaction], Coroutine[Any, Any, T]]) -> T:
        """Run `body(tx)` as one transaction, as cheaply as the backend allows. `body`
        awaits nothing but its statements (SQLite refuses anything else)."""

    async def outside_the_writer(self, body: Callable[[Transaction], Coroutine[Any, Any, T]]) -> T:
        """`in_one_hop` for a body that only row locks need to guard: statements on
        rows by their keys that hold no lock for long (the outbox's let-go). Where the
        backend has one writer (SQLite) it is the writer's like any other; PostgreSQL
        runs it beside the writer's transactions, not after them."""
        return await self.in_one_hop(body)

    @abstractmethod
    def log_copied_aside(self) -> AbstractAsyncContextManager[None]:
        """Around a long job of many short transactions (the daily purge)."""

    @abstractmethod
    async def copy_log_aside(self) -> None:
        """Between the batches of such a job."""

    @abstractmethod
    async def checkpoint(self) -> None:
        """Nothing deleted is left in a log beside the database (after /forget)."""

    @abstractmethod
    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]: ...

    @abstractmethod
    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None: ...

    @property
    def bounded(self) -> Queryable:
        """The same reads, for a caller that gives up on them after a bound (the crisis
        path's lookup of the user): each runs where waiting for it can be given up. Here,
        where every read is awaited on the network, that is the database itself."""
        return self

    async def table_names(self) -> list[str]:
        return [str(row["name"]) for row in await self.fetch_all(self.dialect.tables)]
