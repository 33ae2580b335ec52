"""Which database the settings name, opened: SQLite's file, or PostgreSQL with
STEADY_DATABASE_URL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import urlsplit

from bot.config import Settings
from bot.storage.backend import Database
from bot.storage.db import SqliteDatabase
from bot.storage.process_lock import AlreadyRunningError, ProcessLock


async def open_database(settings: Settings) -> Database:
    """Migrated and ready; raises MigrationError (and the driver's errors) otherwise."""
    if settings.database_url is not None:
        # Imported here: a SQLite install never loads the PostgreSQL driver.
        from bot.storage.postgres import PostgresDatabase  # noqa: PLC0415

        return await PostgresDatabase.connect(settings.database_url)
    return await SqliteDatabase.open(settings.database_file)


def database_name(settings: Settings) -> str:
    """The database for a message to the operator: the file, or the server and database
    (never the user name or password of the address)."""
    if settings.database_url is None:
        return str(settings.database_file)
    parts = urlsplit(settings.database_url)
    return f"PostgreSQL at {parts.hostname or 'localhost'}:{parts.port or 5432}{parts.path}"


class DatabaseUnavailable(Exception):
    """PostgreSQL cannot be used as STEADY_DATABASE_URL says; `str()` is the one line
    (bot/storage/postgres_reach.py writes it)."""


@asynccontextmanager
async def opened_database(settings: Settings, alone: bool = False) -> AsyncIterator[Database]:
    """The database for as long as the block runs, then closed.

    A SQLite file is held by one process at a time (AlreadyRunningError otherwise):
    two would both poll one bot token and send the same check-ins. PostgreSQL is
    shared by design: workers hold it together, and only `alone` (a key rotation)
    needs it to itself (AlreadyRunningError while any worker runs).
    """
    if settings.database_url is None:
        lock = ProcessLock(settings.database_file)
        lock.acquire()
        try:
            async with _opened(settings) as db:
                yield db
        finally:
            lock.release()
        return
    from bot.storage.postgres import RunningHold  # noqa: PLC0415 - see open_database
    from bot.storage.postgres_reach import explained, wait_for_postgres  # noqa: PLC0415

    url = settings.database_url
    # Waited for while it comes up; what waiting cannot fix is one line (DatabaseUnavailable).
    await wait_for_postgres(url, settings.start_retry)
    hold = RunningHold(url, alone)
    try:
        acquired = await hold.acquire()
        db = await open_database(settings)
    except Exception as error:
        await hold.release()
        problem = explained(error, url)
        if problem is None:
            raise
        raise problem from None
    if not acquired:
        await db.close()
        raise AlreadyRunningError(database_name(settings))
    try:
        yield db
    finally:
        try:
            await db.close()
        finally:
            await hold.release()


@asynccontextmanager
async def _opened(settings: Settings) -> AsyncIterator[Database]:
    db = await open_database(settings)
    try:
        yield db
    finally:
        await db.close()
