"""`steady migrate --to postgresql://...`: this SQLite database copied into an empty
PostgreSQL database, for several workers.

Everything happens in one PostgreSQL transaction: the schema's migrations, every
table's rows (binary COPY, parents before children), the identities moved past the
highest id ever handed out, then the check (row counts of every table, and a sample of
rows looked up whole). Only then COMMIT. A failure anywhere (a check, a dropped
connection, Ctrl-C) rolls it all back and leaves the target as it was, so the command
can simply be run again. Run again after it succeeded, it finds its own copy, checks
it against the source once more, and changes nothing.

Sealed text is copied as it is, bytes for bytes: the workers must start with the same
key. Ids are kept (each ciphertext is bound to its owner's id).
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from urllib.parse import urlsplit

import asyncpg

from bot.config import Settings
from bot.operations.backup_files import (
    EXIT_REFUSED,
    OperationError,
    check_sqlite_copy,
    configured_key,
    reported,
)
from bot.operations.migrate_tables import (
    compare,
    copy_order,
    copy_rows,
    move_identities_past,
)
from bot.operations.postgres_target import connect, holding_rows, table_names
from bot.storage.db import SqliteDatabase
from bot.storage.postgres_migrations import MIGRATION_LOCK, apply_postgres_migrations
from bot.storage.process_lock import AlreadyRunningError, ProcessLock


def run_migrate(settings: Settings, url: str) -> int:
    if not url.startswith(("postgresql://", "postgres://")):
        print("steady: migrate --to needs a postgresql:// address.", file=sys.stderr)
        return EXIT_REFUSED
    return reported(lambda: asyncio.run(migrate(settings, url)), "migrate stopped")


async def migrate(settings: Settings, url: str) -> list[str]:
    """Copy, check, commit; what was done, a line each."""
    if settings.database_url is not None:
        raise OperationError(
            "STEADY_DATABASE_URL is set, so there is no SQLite database to copy from;"
            " run this with the settings of the SQLite set-up (STEADY_DATA_DIR)"
        )
    source = settings.database_file
    if not source.is_file():
        raise OperationError(f"there is no database at {source}")
    key_text = configured_key(settings)
    lock = ProcessLock(source)
    try:
        lock.acquire()
    except AlreadyRunningError:
        raise OperationError(f"Steady is running on {source}; stop it first") from None
    try:
        # What a start of this version would do first: bring the schema up to date.
        await (await SqliteDatabase.open(source)).close()
        checked = check_sqlite_copy(source, key_text)
        reading = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            return [
                f"steady: checked {source}: {checked.describe()}.",
                *await _copy_into(reading, url),
            ]
        finally:
            reading.close()
    finally:
        lock.release()


async def _copy_into(source: sqlite3.Connection, url: str) -> list[str]:
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
    return [
        f"steady: copied {copied} rows of {len(tables)} tables into {_where(url)}:"
        f" {comparison.describe()}.",
        "steady: done. Start the workers with STEADY_DATABASE_URL set to it and the same"
        " key (STEADY_ENCRYPTION_KEY or steady.key): the sealed text was copied as it is."
        " The SQLite file is left as it was; keep it until the workers run well.",
    ]


async def _already_copied(source: sqlite3.Connection, target: asyncpg.Connection) -> list[str]:
    """A target holding rows is refused, unless they are this very copy (a second run)."""
    tables = await copy_order(target, source)
    comparison = await compare(source, target, tables, raise_on_difference=False)
    if not comparison.same:
        raise OperationError(
            f"the PostgreSQL database is not empty, and not a copy of this one"
            f" ({comparison.first_difference}); give an empty database"
        )
    return [
        f"steady: the PostgreSQL database already holds this copy ({comparison.describe()});"
        " nothing was changed."
    ]


def _where(url: str) -> str:
    """The server and database, never the user name or password of the address."""
    parts = urlsplit(url)
    return f"PostgreSQL at {parts.hostname or 'localhost'}:{parts.port or 5432}{parts.path}"
