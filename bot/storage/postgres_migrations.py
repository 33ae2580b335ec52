"""PostgreSQL's migrations (`migrations/postgres/NNNN_name.sql`), numbered as SQLite's.

The version lives in a one-row table, `schema_version`, as SQLite keeps it in
PRAGMA user_version: the number of the last migration applied. Each migration and
its version bump are one transaction, taken under an advisory lock, so two workers
starting together apply each migration once: the second waits, then finds it done.
"""

from __future__ import annotations

import asyncpg

from bot.storage.migrations import POSTGRES_FOLDER, Migration, MigrationError, bundled_migrations

# Any fixed number: the advisory lock that migrations of Steady's schema take.
MIGRATION_LOCK = 0x5354454144  # "STEAD"

_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    version  INTEGER NOT NULL
)
"""


async def schema_version(connection: asyncpg.Connection) -> int:
    """The number of the last migration applied; 0 for an empty database."""
    if not await connection.fetchval("SELECT to_regclass('schema_version') IS NOT NULL"):
        return 0
    found = await connection.fetchval("SELECT version FROM schema_version")
    return 0 if found is None else int(found)


async def apply_postgres_migrations(
    connection: asyncpg.Connection, migrations: list[Migration] | None = None
) -> int:
    """Bring the schema up to date; returns the resulting version.

    A failing migration leaves the database exactly as it was before it.
    """
    pending = bundled_migrations(POSTGRES_FOLDER) if migrations is None else migrations
    latest = pending[-1].version if pending else 0
    while True:
        async with connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await connection.execute(_VERSION_TABLE)
            current = await connection.fetchval("SELECT version FROM schema_version")
            current = 0 if current is None else int(current)
            if current > latest:
                raise MigrationError(
                    f"the database is at schema version {current}, newer than this code ({latest})"
                )
            following = [migration for migration in pending if migration.version > current]
            if not following:
                return current
            migration = following[0]
            try:
                await connection.execute(migration.sql)
            except asyncpg.PostgresError as error:
                raise MigrationError(f"migration {migration.name} failed: {error}") from error
            await connection.execute(
                "INSERT INTO schema_version (version) VALUES ($1)"
                " ON CONFLICT (only_row) DO UPDATE SET version = excluded.version",
                migration.version,
            )
