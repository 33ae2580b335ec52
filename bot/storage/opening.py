"""Which database the settings name, opened: SQLite's file, or PostgreSQL with
STEADY_DATABASE_URL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bot.config import Settings
from bot.storage.backend import Database
from bot.storage.db import SqliteDatabase
from bot.storage.process_lock import ProcessLock


async def open_database(settings: Settings) -> Database:
    """Migrated and ready; raises MigrationError (and the driver's errors) otherwise."""
    if settings.database_url is not None:
        # Imported here: a SQLite install never loads the PostgreSQL driver.
        from bot.storage.postgres import PostgresDatabase  # noqa: PLC0415

        return await PostgresDatabase.connect(settings.database_url)
    return await SqliteDatabase.open(settings.database_file)


@asynccontextmanager
async def opened_database(settings: Settings) -> AsyncIterator[Database]:
    """The database for as long as the block runs, then closed.

    A SQLite file is held by one process at a time (AlreadyRunningError otherwise):
    two would both poll one bot token and send the same check-ins. PostgreSQL is
    shared by design, so nothing is held there.
    """
    lock = None if settings.database_url is not None else ProcessLock(settings.database_file)
    if lock is not None:
        lock.acquire()
    try:
        db = await open_database(settings)
        try:
            yield db
        finally:
            await db.close()
    finally:
        if lock is not None:
            lock.release()
