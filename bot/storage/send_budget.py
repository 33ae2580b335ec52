"""The shared send log behind `bot.coordination.send_budget` (PostgreSQL)."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: a SQLite install never loads the PostgreSQL driver
    import asyncpg

# Rows older than this are never counted (no limit's window is longer).
KEPT_MS = 60_000


def scope_key(scope: str) -> int:
    """The advisory lock that lets one worker at a time count and add to a scope."""
    digest = hashlib.blake2b(f"send budget\0{scope}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def take_if_room(
    connection: asyncpg.Connection, scope: str, limit: int, window_ms: int, now_ms: int
) -> int | None:
    """Count one send in `scope` if fewer than `limit` went in the last `window_ms`:
    None when it is counted, else the milliseconds until the oldest of them leaves the
    window. One transaction, serialised per scope by an advisory lock."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", scope_key(scope))
        rows = await connection.fetch(
            "SELECT sent_at FROM send_budget WHERE scope = $1 AND sent_at > $2"
            " ORDER BY sent_at LIMIT $3",
            scope,
            now_ms - window_ms,
            limit,
        )
        if len(rows) >= limit:
            return int(rows[0]["sent_at"]) + window_ms - now_ms
        await connection.execute(
            "INSERT INTO send_budget (scope, sent_at) VALUES ($1, $2)", scope, now_ms
        )
        return None


async def purge(connection: asyncpg.Connection, now_ms: int) -> int:
    status: str = await connection.execute(
        "DELETE FROM send_budget WHERE sent_at <= $1", now_ms - KEPT_MS
    )
    return int(status.rsplit(" ", 1)[-1])
