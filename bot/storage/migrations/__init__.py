"""Numbered SQL migrations (`NNNN_name.sql`) applied in order under PRAGMA user_version.

PostgreSQL's are in `postgres/`, numbered alike: migration N makes the same tables,
columns, indexes and constraints on both (see `bot.storage.postgres_migrations`).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from importlib import resources

import aiosqlite

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


class MigrationError(Exception):
    pass


POSTGRES_FOLDER = "postgres"


def bundled_migrations(folder: str | None = None) -> list[Migration]:
    """SQLite's migrations, or those in `folder` (POSTGRES_FOLDER)."""
    found: list[Migration] = []
    place = resources.files(__package__)
    for entry in (place if folder is None else place / folder).iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text("utf-8")))
    found.sort(key=lambda migration: migration.version)
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise MigrationError(f"migration {migration.name} breaks the numbering")
    return found


async def apply_migrations(
    connection: aiosqlite.Connection, migrations: list[Migration] | None = None
) -> int:
    """Bring the schema up to date; returns the resulting version.

    Each migration and its user_version bump run in one transaction, so a
    failing migration leaves the database exactly as it was before it.
    """
    pending = bundled_migrations() if migrations is None else migrations
    async with connection.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    current = int(row[0]) if row else 0
    latest = pending[-1].version if pending else 0
    if current > latest:
        raise MigrationError(
            f"the database is at schema version {current}, newer than this code ({latest})"
        )
    for migration in pending:
        if migration.version <= current:
            continue
        script = f"BEGIN IMMEDIATE;\n{migration.sql}\n;PRAGMA user_version = {migration.version};"
        try:
            await connection.executescript(script)
            await connection.execute("COMMIT")
        except sqlite3.Error as error:
            if connection.in_transaction:
                await connection.execute("ROLLBACK")
            raise MigrationError(f"migration {migration.name} failed: {error}") from error
        current = migration.version
    return current
