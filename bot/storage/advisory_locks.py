"""PostgreSQL's advisory locks, as the workers' coordination uses them (bot/coordination/).

Session locks: held by the connection that took them until it lets go or closes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: a SQLite install never loads the PostgreSQL driver
    import asyncpg


async def try_lock(connection: asyncpg.Connection, key: int) -> bool:
    """Take `key` if nobody holds it; never waits."""
    return bool(await connection.fetchval("SELECT pg_try_advisory_lock($1)", key))


async def lock(connection: asyncpg.Connection, key: int) -> None:
    """Take `key`, waiting for whoever holds it."""
    await connection.execute("SELECT pg_advisory_lock($1)", key)


async def unlock(connection: asyncpg.Connection, key: int) -> None:
    await connection.execute("SELECT pg_advisory_unlock($1)", key)


async def ping(connection: asyncpg.Connection) -> None:
    """Raises if the connection (and so every lock it holds) is gone."""
    await connection.fetchval("SELECT 1")
