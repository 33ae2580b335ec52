"""What `steady doctor` reads of a database, without changing anything in it.

SQLite is opened read-only (no migration, no lock, no key written): the bot may be
running on it. PostgreSQL is asked over one connection of its own, which takes no lock.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.storage.versions import RunningWorker

if TYPE_CHECKING:
    import asyncpg

CONNECT_TIMEOUT_SECONDS = 10.0

# The newest moments the bot wrote, as epoch seconds: a clock that went back since
# (or was ahead then) shows as times in the future.
_NEWEST = (("users", "created_at"), ("checkins", "answered_at"), ("sent_messages", "sent_at"))


@dataclass(frozen=True, slots=True)
class StoredFacts:
    """What the database holds that the doctor checks, on either backend."""

    schema: int  # 0: empty, Steady has never run on it
    row_format: int | None  # None: not recorded (empty, or from before it was)
    key_check: bytes | None  # None: no key has been used on it yet
    newest_stamp: int | None  # the newest time written, epoch seconds


@dataclass(frozen=True, slots=True)
class ServerFacts:
    """PostgreSQL's side: the server, its limits and who is connected."""

    version: str
    now: datetime
    max_connections: int
    reserved_connections: int  # for superusers and (15+) roles given pg_use_reserved_connections
    connections_in_use: int  # client connections to the whole server, this one not counted
    ssl: bool
    can_create: bool  # in the schema Steady's tables go in: migrations need it
    workers: tuple[RunningWorker, ...]


def sqlite_library_version() -> str:
    return sqlite3.sqlite_version


def sqlite_facts(path: Path) -> StoredFacts:
    """Read-only; raises sqlite3.Error when the file is no database."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        schema = int(connection.execute("PRAGMA user_version").fetchone()[0])
        tables = {
            str(row[0])
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        meta: dict[str, bytes] = {}
        if "meta" in tables:
            meta = {
                str(key): bytes(value)
                for key, value in connection.execute("SELECT key, value FROM meta")
            }
        stamps = [
            connection.execute(f"SELECT max({column}) FROM {table}").fetchone()[0]
            for table, column in _NEWEST
            if table in tables
        ]
        return _facts(schema, meta, stamps)
    finally:
        connection.close()


def _facts(schema: int, meta: dict[str, bytes], stamps: list[int | None]) -> StoredFacts:
    row_format = meta.get("row_format")
    return StoredFacts(
        schema=schema,
        row_format=None if row_format is None else int(row_format.decode("ascii")),
        key_check=meta.get("key_check"),
        newest_stamp=max((stamp for stamp in stamps if stamp is not None), default=None),
    )


async def postgres_facts(connection: asyncpg.Connection) -> tuple[StoredFacts, ServerFacts]:
    """Both halves, over a connection the caller opened (and closes)."""
    # Imported here, as everywhere: a SQLite install never loads the PostgreSQL driver.
    from bot.storage.postgres import RUNNING_LOCK  # noqa: PLC0415
    from bot.storage.postgres_migrations import schema_version  # noqa: PLC0415
    from bot.storage.versions import running_workers  # noqa: PLC0415

    tables = {
        str(row["table_name"])
        for row in await connection.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
    }
    meta: dict[str, bytes] = {}
    if "meta" in tables:
        meta = {
            str(row["key"]): bytes(row["value"])
            for row in await connection.fetch("SELECT key, value FROM meta")
        }
    stamps = [
        await connection.fetchval(f"SELECT max({column}) FROM {table}")
        for table, column in _NEWEST
        if table in tables
    ]
    stored = _facts(await schema_version(connection), meta, stamps)
    settings = await connection.fetchrow(
        "SELECT current_setting('server_version') AS version, now() AS now,"
        " current_setting('max_connections')::int AS max_connections,"
        " current_setting('superuser_reserved_connections')::int AS superuser_reserved,"
        " COALESCE(current_setting('reserved_connections', true), '0')::int AS reserved,"
        " has_schema_privilege(current_schema(), 'CREATE') AS can_create,"
        " COALESCE((SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()), false) AS ssl,"
        " (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
        "  AND pid <> pg_backend_pid())::int AS in_use"
    )
    server = ServerFacts(
        version=str(settings["version"]).split(" ")[0],
        now=settings["now"],
        max_connections=int(settings["max_connections"]),
        reserved_connections=int(settings["superuser_reserved"]) + int(settings["reserved"]),
        connections_in_use=int(settings["in_use"]),
        ssl=bool(settings["ssl"]),
        can_create=bool(settings["can_create"]),
        workers=tuple(await running_workers(connection, RUNNING_LOCK)),
    )
    return stored, server
