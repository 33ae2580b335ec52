"""Which affirmations a user has already been shown in the current round."""

from __future__ import annotations

from datetime import datetime

from bot.storage.db import Transaction
from bot.storage.queries import Queryable, to_epoch


async def seen_affirmations(db: Queryable, user_id: int) -> list[str]:
    """Ids shown in this round, oldest first."""
    rows = await db.fetch_all(
        "SELECT affirmation_id FROM affirmations_seen WHERE user_id = ? ORDER BY seen_at, rowid",
        (user_id,),
    )
    return [row["affirmation_id"] for row in rows]


async def start_new_round(tx: Transaction, user_id: int) -> None:
    await tx.execute("DELETE FROM affirmations_seen WHERE user_id = ?", (user_id,))


# Marked again, an affirmation moves to the end of the round's order (a new rowid):
# SQLite replaces the row; PostgreSQL's stand-in `rowid` takes the new row's number.
_MARK_SEEN = {
    "sqlite": "INSERT OR REPLACE INTO affirmations_seen (user_id, affirmation_id, seen_at)"
    " VALUES (?, ?, ?)",
    "postgres": "INSERT INTO affirmations_seen (user_id, affirmation_id, seen_at)"
    " VALUES (?, ?, ?) ON CONFLICT (user_id, affirmation_id)"
    " DO UPDATE SET seen_at = excluded.seen_at, rowid = excluded.rowid",
}


async def mark_seen(tx: Transaction, user_id: int, affirmation_id: str, now: datetime) -> None:
    await tx.execute(
        _MARK_SEEN[tx.dialect.name],
        (user_id, affirmation_id, to_epoch(now)),
    )
