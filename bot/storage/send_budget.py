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
class Room:
    """At most `most` sends in `scope` when one more starts."""

    scope: str
    most: int


@dataclass(frozen=True, slots=True)
class Taken:
    row_ids: tuple[int, ...]  # the send's row in each scope


def scope_key(scope: str) -> int:
    """The advisory lock that lets one worker at a time count and add to a scope."""
    digest = hashlib.blake2b(f"send budget\0{scope}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def take_if_room(
    connection: asyncpg.Connection, room: Sequence[Room], window_ms: int, now_ms: int
) -> Taken | int:
    """Count one send in each scope of `room` if each has fewer than its `most` in the
    last `window_ms` or under way: its rows when it is counted, else the milliseconds
    until enough of them leave the window. One transaction, serialised by an advisory
    lock on the first scope (the others are only ever counted together with it). Only
    the newest `most` rows are read, newest first (the index on (scope, sent_at),
    backwards): when there are that many, the oldest of them must leave before one more
    fits, and every older one has left before it."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", scope_key(room[0].scope))
        wait = 0
        for each in room:
            rows = await connection.fetch(
                "SELECT sent_at FROM send_budget WHERE scope = $1 AND sent_at > $2"
                " ORDER BY sent_at DESC LIMIT $3",
                each.scope,
                now_ms - window_ms,
                each.most,
            )
            if len(rows) >= each.most:
                wait = max(wait, int(rows[-1]["sent_at"]) + window_ms - now_ms)
        if wait:
            return wait
        row_ids = []
        for each in room:
            row_id: int = await connection.fetchval(
                "INSERT INTO send_budget (scope, sent_at) VALUES ($1, $2) RETURNING id",
                each.scope,
                now_ms + PENDING_MS,
            )
            row_ids.append(row_id)
        return Taken(tuple(row_ids))


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
