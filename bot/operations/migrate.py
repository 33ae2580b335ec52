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
import sys
from urllib.parse import urlsplit

from bot.config import Settings
from bot.operations.backup_files import (
    EXIT_REFUSED,
    configured_key,
    reported,
)
from bot.storage.copies import OperationError, check_sqlite_copy
from bot.storage.db import SqliteDatabase
from bot.storage.process_lock import AlreadyRunningError, ProcessLock
from bot.storage.table_copy import copy_to_postgres


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
        copied = await copy_to_postgres(source, url)
    finally:
        lock.release()
    checked_line = f"steady: checked {source}: {checked.describe()}."
    if copied.already:
        return [
            checked_line,
            "steady: the PostgreSQL database already holds this copy"
            f" ({copied.comparison.describe()}); nothing was changed.",
        ]
    return [
        checked_line,
        f"steady: copied {copied.rows} rows of {copied.tables} tables into {_where(url)}:"
        f" {copied.comparison.describe()}.",
        "steady: done. Start the workers with STEADY_DATABASE_URL set to it and the same"
        " key (STEADY_ENCRYPTION_KEY or steady.key): the sealed text was copied as it is."
        " The SQLite file is left as it was; keep it until the workers run well.",
    ]


def _where(url: str) -> str:
    """The server and database, never the user name or password of the address."""
    parts = urlsplit(url)
    return f"PostgreSQL at {parts.hostname or 'localhost'}:{parts.port or 5432}{parts.path}"
