"""Which replies, openings and reflections a user saw lately: ids and times only."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import StrEnum

from bot.storage.batching import delete_walking_ids
from bot.storage.db import Database, Transaction
from bot.storage.queries import Queryable, from_epoch, to_epoch

# Nothing is shown again within this window while anything unseen is left.
NO_REPEAT_WINDOW = timedelta(days=30)


class SeenKind(StrEnum):
    REPLY = "reply"
    OPENING = "opening"
    REFLECTION = "reflection"


async def seen_since(
    db: Queryable, user_id: int, kind: SeenKind, since: datetime
) -> dict[str, datetime]:
    """Item id to when it was last shown, for what was shown since `since`."""
    rows = await db.fetch_all(
        "SELECT item_id, seen_at FROM content_seen WHERE user_id = ? AND kind = ? AND seen_at >= ?",
        (user_id, kind.value, to_epoch(since)),
    )
    return {row["item_id"]: from_epoch(row["seen_at"]) for row in rows}


async def seen_by_users(
    db: Queryable, user_ids: Sequence[int], kind: SeenKind, since: datetime
) -> dict[int, dict[str, datetime]]:
    """The same for many users at once (a tick's worth of due check-ins)."""
    found: dict[int, dict[str, datetime]] = {user_id: {} for user_id in user_ids}
    for start in range(0, len(user_ids), 500):  # under SQLite's bound-parameter limit
        chunk = list(user_ids[start : start + 500])
        marks = ", ".join("?" for _ in chunk)
        rows = await db.fetch_all(
            "SELECT user_id, item_id, seen_at FROM content_seen"
            f" WHERE kind = ? AND seen_at >= ? AND user_id IN ({marks})",
            (kind.value, to_epoch(since), *chunk),
        )
        for row in rows:
            found[row["user_id"]][row["item_id"]] = from_epoch(row["seen_at"])
    return found


async def mark_seen(
    tx: Transaction, seen: Sequence[tuple[int, SeenKind, str]], now: datetime
) -> None:
    """Note what was shown. A user keeps one row per item at most; rows older than the
    window are read past here and deleted by the daily `purge_older_than` (a due minute
    marks thousands at once, and a delete for each doubled the writes)."""
    seen_at = to_epoch(now)
    if not tx.dialect.arrays:
        await tx.executemany(
            "INSERT INTO content_seen (user_id, kind, item_id, seen_at) VALUES (?, ?, ?, ?)"
            + _SEEN_AGAIN,
            [(user_id, kind.value, item_id, seen_at) for user_id, kind, item_id in seen],
        )
        return
    # One statement for the lot: a due minute's 10,000 rows cost PostgreSQL 0.13 s as
    # 10,000 executions and half that as one. Each item once (a row may not be touched
    # twice by one statement; seen twice, it is seen at the same moment anyway).
    items = list(dict.fromkeys((user_id, kind.value, item_id) for user_id, kind, item_id in seen))
    if items:
        users, kinds, item_ids = (list(column) for column in zip(*items, strict=True))
        await tx.execute(_MARK_SEEN_TOGETHER, (seen_at, users, kinds, item_ids))


_SEEN_AGAIN = " ON CONFLICT (user_id, kind, item_id) DO UPDATE SET seen_at = excluded.seen_at"
_MARK_SEEN_TOGETHER = (
    "INSERT INTO content_seen (user_id, kind, item_id, seen_at)"
    " SELECT r.user_id, r.kind, r.item_id, ?"
    " FROM unnest(?::bigint[], ?::text[], ?::text[]) AS r(user_id, kind, item_id)" + _SEEN_AGAIN
)


# Users whose rows the first purge transaction looks at; later batches are sized to hold
# the writer about batching.AIM_SECONDS each.
PURGE_BATCH_USERS = 1000


async def purge_older_than(db: Database, now: datetime) -> int:
    """Delete what was shown before the no-repeat window, nobody's business any more
    (run daily). Walks users by id in batches, each a short transaction (their rows are
    found through the key, which begins with the user); returns how many rows went."""
    cutoff = to_epoch(now - NO_REPEAT_WINDOW)

    async def old_of_users_between(tx: Transaction, after: int, last: int) -> int:
        return await tx.execute(
            "DELETE FROM content_seen WHERE user_id > ? AND user_id <= ? AND seen_at < ?",
            (after, last, cutoff),
        )

    return await delete_walking_ids(db, "users", PURGE_BATCH_USERS, old_of_users_between)


async def seen_for_export(db: Queryable, user_id: int) -> dict[str, list[str]]:
    rows = await db.fetch_all(
        "SELECT kind, item_id FROM content_seen WHERE user_id = ? ORDER BY kind, seen_at, item_id",
        (user_id,),
    )
    export: dict[str, list[str]] = {}
    for row in rows:
        export.setdefault(row["kind"], []).append(row["item_id"])
    return export
