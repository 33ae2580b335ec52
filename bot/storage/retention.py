"""Old history is not kept forever: check-ins, their notes and kept drafts expire."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.storage.db import Database
from bot.storage.queries import to_epoch


@dataclass(frozen=True, slots=True)
class Purged:
    checkins: int
    drafts: int
    pauses: int
    followups: int


async def purge_expired(
    db: Database, now: datetime, retention_days: int, user_id: int | None = None
) -> Purged:
    """Delete what is older than `retention_days`, or than the owner's own shorter choice,
    in one transaction. `user_id` limits it to one user (who just chose a shorter time).

    The user's own reasons list is not history: it stays until they remove it.
    """
    now_epoch = to_epoch(now)
    cutoff = to_epoch(now - timedelta(days=retention_days))
    only = "" if user_id is None else " AND user_id = ?"
    params = (cutoff, now_epoch, cutoff) + (() if user_id is None else (user_id,))
    async with db.transaction() as tx:
        checkins = await tx.execute(_older("checkins", "answered_at") + only, params)
        drafts = await tx.execute(_older("drafts", "created_at") + only, params)
        pauses = await tx.execute(_older("urge_pauses", "started_at") + only, params)
        followups = await tx.execute(
            _older("followups", "delivered_at") + " AND delivered_at IS NOT NULL" + only, params
        )
    if checkins or drafts:
        await db.checkpoint()  # no old copy left in the write-ahead log
    return Purged(checkins, drafts, pauses, followups)


def _older(table: str, column: str) -> str:
    """Rows older than the later of two cutoffs: the operator's, and the owner's own.

    Parameters: the operator's cutoff, now, and the operator's cutoff again (for rows
    whose owner row is gone, which /forget never leaves behind).
    """
    return (
        f"DELETE FROM {table} WHERE {column} < COALESCE(("
        f" SELECT MAX(?, CASE WHEN u.keep_days IS NULL THEN 0"
        f" ELSE ? - u.keep_days * 86400 END)"
        f" FROM users AS u WHERE u.id = {table}.user_id), ?)"
    )
