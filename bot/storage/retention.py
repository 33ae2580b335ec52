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


async def purge_expired(db: Database, now: datetime, retention_days: int) -> Purged:
    """Delete what is older than `retention_days`, in one transaction.

    The user's own reasons list is not history: it stays until they remove it.
    """
    cutoff = to_epoch(now - timedelta(days=retention_days))
    async with db.transaction() as tx:
        checkins = await tx.execute("DELETE FROM checkins WHERE answered_at < ?", (cutoff,))
        drafts = await tx.execute("DELETE FROM drafts WHERE created_at < ?", (cutoff,))
        pauses = await tx.execute("DELETE FROM urge_pauses WHERE started_at < ?", (cutoff,))
        followups = await tx.execute(
            "DELETE FROM followups WHERE delivered_at IS NOT NULL AND delivered_at < ?", (cutoff,)
        )
    if checkins or drafts:
        await db.checkpoint()  # no old copy left in the write-ahead log
    return Purged(checkins, drafts, pauses, followups)
