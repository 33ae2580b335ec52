"""The shared send log behind `bot.coordination.send_budget` (PostgreSQL)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: a SQLite install never loads the PostgreSQL driver
    import asyncpg

# A send whose call is under way is dated this far ahead: it counts in every window
# until its call returns and it is dated then (`date_returned`). A worker that died
# mid-call leaves a row that ages out by itself, a little after its call would have
# timed out (Telegram's request timeout is 10 s).
PENDING_MS = 15_000
# Rows older than this are never counted (no limit's window is longer).
KEPT_MS = 60_000


@dataclass(frozen=True, slots=True)
class Taken:
    row_id: int


def scope_key(scope: str) -> int:
    """The advisory lock that lets one worker at a time count and add to a scope."""
    digest = hashlib.blake2b(f"send budget\0{scope}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def take_if_room(
    connection: asyncpg.Connection, scope: str, most: int, window_ms: int, now_ms: int
) -> Taken | int:
    """Count one send in `scope` if fewer than `most` (its lane's ceiling) are in the last
    `window_ms` or under way: its row when it is counted, else the milliseconds until
    enough of them leave the window. One transaction, serialised per scope by an
    advisory lock. Only the newest `most` rows are read, newest first (the index on
    (scope, sent_at) backwards): when there are that many, the oldest of them must leave
    before one more fits, and every older one has left before it."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", scope_key(scope))
        rows = await connection.fetch(
            "SELECT sent_at FROM send_budget WHERE scope = $1 AND sent_at > $2"
            " ORDER BY sent_at DESC LIMIT $3",
            scope,
            now_ms - window_ms,
            most,
        )
        if len(rows) >= most:
            return int(rows[-1]["sent_at"]) + window_ms - now_ms
        row_id: int = await connection.fetchval(
            "INSERT INTO send_budget (scope, sent_at) VALUES ($1, $2) RETURNING id",
            scope,
            now_ms + PENDING_MS,
        )
        return Taken(row_id)


async def date_returned(
    connection: asyncpg.Connection, returned: Sequence[tuple[int, int]]
) -> None:
    """Date each counted send (row id, milliseconds) to when its call returned."""
    await connection.execute(
        "UPDATE send_budget SET sent_at = returned.at"
        " FROM unnest($1::bigint[], $2::bigint[]) AS returned(id, at)"
        " WHERE send_budget.id = returned.id",
        [row_id for row_id, _ in returned],
        [at for _, at in returned],
    )


async def purge(connection: asyncpg.Connection, now_ms: int) -> int:
    status: str = await connection.execute(
        "DELETE FROM send_budget WHERE sent_at <= $1", now_ms - KEPT_MS
    )
    return int(status.rsplit(" ", 1)[-1])
