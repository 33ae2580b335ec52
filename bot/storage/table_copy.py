"""The migration's table work: which tables, in which order, each copied and checked.

The two schemas are made by migrations of the same numbers and match column for column
(tests/storage/test_postgres.py holds them to it), with one exception: PostgreSQL's
`affirmations_seen.rowid` stands for SQLite's implicit rowid, and is copied from it.
Messages name tables and columns, never a value: values are users' data.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from graphlib import TopologicalSorter
from pathlib import Path
from typing import Any

import asyncpg

from bot.storage.copies import OperationError
from bot.storage.postgres_migrations import MIGRATION_LOCK, apply_postgres_migrations
from bot.storage.postgres_target import connect, holding_rows, table_names

BATCH_ROWS = 5000  # rows per COPY: memory stays flat however big the database
SAMPLE_ROWS = 25  # rows of each table looked up whole in the target after the copy
_SQLITE_OWN = frozenset({"sqlite_sequence"})  # SQLite's bookkeeping, not Steady's data


@dataclass(frozen=True, slots=True)
class Copied:
    rows: int  # rows copied by this run; 0 when the target held this copy already
    tables: int
    comparison: Comparison
    already: bool


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    source: str  # what to select in SQLite: the column, or `rowid`
    convert: Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class Comparison:
    tables: int
    rows: int
    sampled: int
    first_difference: str | None  # "users: 3 rows in SQLite, 2 in PostgreSQL"

    @property
    def same(self) -> bool:
        return self.first_difference is None

    def describe(self) -> str:
        return (
            f"row counts equal in all {self.tables} tables ({self.rows} rows),"
            f" {self.sampled} sampled rows found whole"
        )


def _integer(value: Any) -> int:
    return int(value)


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _bytes(value: Any) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "bigint": _integer,
    "integer": _integer,
    "smallint": _integer,
    "text": _text,
    "bytea": _bytes,
    "boolean": bool,
    "double precision": float,
    "real": float,
}


def _sqlite_tables(source: sqlite3.Connection) -> list[str]:
    rows = source.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return sorted(str(row[0]) for row in rows if row[0] not in _SQLITE_OWN)


async def copy_order(target: asyncpg.Connection, source: sqlite3.Connection) -> list[str]:
    """Every SQLite table, parents before the tables that refer to them."""
    tables = _sqlite_tables(source)
    rows = await target.fetch(
        "SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent"
        " FROM pg_constraint WHERE contype = 'f'"
        " AND connamespace = current_schema()::regnamespace"
    )
    order: TopologicalSorter[str] = TopologicalSorter({table: () for table in tables})
    for row in rows:
        child, parent = str(row["child"]).strip('"'), str(row["parent"]).strip('"')
        if child in tables and parent in tables and child != parent:
            order.add(child, parent)
    return list(order.static_order())


async def columns_of(
    target: asyncpg.Connection, source: sqlite3.Connection, table: str
) -> list[Column]:
    rows = await target.fetch(
        "SELECT column_name, data_type FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
        table,
    )
    if not rows:
        raise OperationError(f"table {table} is in SQLite but not in PostgreSQL's schema")
    in_source = [str(row[1]) for row in source.execute(f'PRAGMA table_info("{table}")')]
    columns = []
    for row in rows:
        name, kind = str(row["column_name"]), str(row["data_type"])
        convert = _CONVERTERS.get(kind)
        if convert is None:
            raise OperationError(f"{table}.{name} is of type {kind}, which this copy cannot fill")
        if name in in_source:
            columns.append(Column(name, f'"{name}"', convert))
        elif name == "rowid":
            columns.append(Column(name, "rowid", convert))
    missing = sorted(set(in_source) - {column.name for column in columns})
    if missing:
        raise OperationError(f"{table}.{missing[0]} has no column in PostgreSQL's schema")
    return columns


def _converted(columns: list[Column], row: tuple[Any, ...], table: str) -> tuple[Any, ...]:
    values = []
    for column, value in zip(columns, row, strict=True):
        try:
            values.append(None if value is None else column.convert(value))
        except (TypeError, ValueError):
            raise OperationError(
                f"a value of {table}.{column.name} does not fit PostgreSQL's column"
            ) from None
    return tuple(values)


async def copy_rows(source: sqlite3.Connection, target: asyncpg.Connection, table: str) -> int:
    """All of the table's rows, in binary COPY batches; returns how many."""
    columns = await columns_of(target, source, table)
    # Only a row the migrations put there (the outbox's id counter) can be in the way.
    await target.execute(f'DELETE FROM "{table}"')
    selected = ", ".join(column.source for column in columns)
    cursor = source.execute(f'SELECT {selected} FROM "{table}"')
    copied = 0
    try:
        while batch := cursor.fetchmany(BATCH_ROWS):
            records = [_converted(columns, row, table) for row in batch]
            await target.copy_records_to_table(
                table, records=records, columns=[column.name for column in columns]
            )
            copied += len(records)
    finally:
        cursor.close()
    return copied


async def move_identities_past(source: sqlite3.Connection, target: asyncpg.Connection) -> None:
    """Each identity starts past the highest id SQLite ever handed out, the ids of rows
    since deleted too (AUTOINCREMENT's sqlite_sequence): a forgotten user's id is never
    given to someone else."""
    handed_out = {
        str(name): int(seq)
        for name, seq in source.execute("SELECT name, seq FROM sqlite_sequence").fetchall()
    }
    identities = await target.fetch(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND is_identity = 'YES'"
    )
    for row in identities:
        table, column = str(row["table_name"]), str(row["column_name"])
        if table not in handed_out and not _exists(source, table):
            continue
        highest = source.execute(f'SELECT max({_source_name(column)}) FROM "{table}"')
        top = max(int(highest.fetchone()[0] or 0), handed_out.get(table, 0))
        if top > 0:
            await target.execute(
                "SELECT setval(pg_get_serial_sequence($1, $2), $3)",
                f'"{table}"',
                column,
                top,
            )


def _exists(source: sqlite3.Connection, table: str) -> bool:
    found = source.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    )
    return found.fetchone() is not None


def _source_name(column: str) -> str:
    return "rowid" if column == "rowid" else f'"{column}"'


async def compare(
    source: sqlite3.Connection,
    target: asyncpg.Connection,
    tables: list[str],
    raise_on_difference: bool = True,
) -> Comparison:
    """Row counts of every table, and a random sample of each table's rows looked up
    whole (every column equal) in the target."""
    rows = sampled = 0
    difference: str | None = None
    for table in tables:
        columns = await columns_of(target, source, table)
        in_source = int(source.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])
        in_target = int(await target.fetchval(f'SELECT count(*) FROM "{table}"'))
        if in_source != in_target:
            difference = f"{table}: {in_source} rows in SQLite, {in_target} in PostgreSQL"
            break
        rows += in_source
        selected = ", ".join(column.source for column in columns)
        sample = source.execute(
            f'SELECT {selected} FROM "{table}" ORDER BY random() LIMIT {SAMPLE_ROWS}'
        ).fetchall()
        matches = " AND ".join(
            f'"{column.name}" IS NOT DISTINCT FROM ${number}'
            for number, column in enumerate(columns, start=1)
        )
        for row in sample:
            values = _converted(columns, row, table)
            if not await target.fetchval(
                f'SELECT EXISTS (SELECT 1 FROM "{table}" WHERE {matches})', *values
            ):
                difference = f"{table}: a sampled row differs in PostgreSQL"
                break
            sampled += 1
        if difference:
            break
    comparison = Comparison(len(tables), rows, sampled, difference)
    if difference and raise_on_difference:
        raise OperationError(
            f"the copy differs from the source ({difference}); nothing was committed"
        )
    return comparison


async def copy_to_postgres(source: Path, url: str) -> Copied:
    """Every table of the SQLite file `source` into the PostgreSQL database at `url`, in
    one transaction, checked before its COMMIT (see bot/operations/migrate.py)."""
    reading = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        return await _copy_into(reading, url)
    finally:
        reading.close()


async def _copy_into(source: sqlite3.Connection, url: str) -> Copied:
    target = await connect(url)
    try:
        present = await table_names(target)
        if present and "schema_version" not in present:
            raise OperationError(
                f"the PostgreSQL database holds tables that are not Steady's ({present[0]},"
                " ...); give an empty database"
            )
        if await holding_rows(target):
            return await _already_copied(source, target)
        async with target.transaction():
            # Held to the COMMIT: a worker started on the target meanwhile waits at its
            # migrations, and sees the whole copy or nothing.
            await target.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await apply_postgres_migrations(target)
            holding = await holding_rows(target)
            if holding:  # someone wrote there since the first look
                raise OperationError(f"the PostgreSQL database is not empty ({holding[0]})")
            tables = await copy_order(target, source)
            copied = 0
            for table in tables:
                copied += await copy_rows(source, target, table)
            await move_identities_past(source, target)
            comparison = await compare(source, target, tables)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        raise OperationError(
            f"PostgreSQL stopped the copy ({type(error).__name__}: {error}); nothing was"
            " committed, run it again"
        ) from None
    finally:
        await target.close()
    return Copied(copied, len(tables), comparison, already=False)


async def _already_copied(source: sqlite3.Connection, target: asyncpg.Connection) -> Copied:
    """A target holding rows is refused, unless they are this very copy (a second run)."""
    tables = await copy_order(target, source)
    comparison = await compare(source, target, tables, raise_on_difference=False)
    if not comparison.same:
        raise OperationError(
            f"the PostgreSQL database is not empty, and not a copy of this one"
            f" ({comparison.first_difference}); give an empty database"
        )
    return Copied(0, len(tables), comparison, already=True)
