"""Ids of messages the bot sent in private chats, so /wipe can remove them later."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.storage.batching import BatchSize
from bot.storage.db import Database, Transaction
from bot.storage.queries import Queryable, from_epoch, to_epoch


@dataclass(frozen=True, slots=True)
class SentRecord:
    platform: str
    platform_user_id: str
    chat_id: str
    message_id: str
    sent_at: datetime


@dataclass(frozen=True, slots=True)
class Tracked:
    id: int
    message_id: str
    sent_at: datetime


async def record(tx: Transaction, records: Sequence[SentRecord]) -> None:
    """Remember many sends in one statement; a user who is gone (forgotten) is skipped."""
    await tx.executemany(
        "INSERT INTO sent_messages (user_id, chat_id, message_id, sent_at)"
        " SELECT id, ?, ?, ? FROM users WHERE platform = ? AND platform_user_id = ?",
        [
            (r.chat_id, r.message_id, to_epoch(r.sent_at), r.platform, r.platform_user_id)
            for r in records
        ],
    )


async def tracked(
    db: Queryable, platform: str, platform_user_id: str, chat_id: str
) -> list[Tracked]:
    rows = await db.fetch_all(
        "SELECT s.id, s.message_id, s.sent_at FROM sent_messages AS s"
        " JOIN users AS u ON u.id = s.user_id"
        " WHERE u.platform = ? AND u.platform_user_id = ? AND s.chat_id = ? ORDER BY s.id",
        (platform, platform_user_id, chat_id),
    )
    return [Tracked(row["id"], row["message_id"], from_epoch(row["sent_at"])) for row in rows]


async def forget_tracked(tx: Transaction, ids: Sequence[int]) -> None:
    await tx.executemany("DELETE FROM sent_messages WHERE id = ?", [(i,) for i in ids])


# Records deleted by the first transaction (found through their index by age); later
# ones are sized to hold the writer about batching.AIM_SECONDS each.
PURGE_BATCH_ROWS = 1000


async def purge_older_than(db: Database, cutoff: datetime) -> int:
    """Forget sends older than `cutoff`, nothing /wipe could still use (run daily).

    In batches, each a short transaction, so the writer is never held long; returns how
    many records went.
    """
    purged = 0
    size = BatchSize(rows=PURGE_BATCH_ROWS, least=min(PURGE_BATCH_ROWS, BatchSize.least))

    async def batch(tx: Transaction) -> int:
        return await tx.execute(
            "DELETE FROM sent_messages WHERE id IN (SELECT id FROM sent_messages"
            " WHERE sent_at < ? ORDER BY sent_at LIMIT ?)",
            (to_epoch(cutoff), size.rows),
        )

    async with db.log_copied_aside():
        while True:
            asked = size.rows
            deleted = await db.in_one_hop(batch)
            purged += deleted
            if deleted < asked:
                return purged
            size.after(db.write_holds.last)
            await db.copy_log_aside()  # while other writes go on, before the next batch


async def count_for(db: Queryable, user_id: int) -> int:
    row = await db.fetch_one(
        "SELECT COUNT(*) AS n FROM sent_messages WHERE user_id = ?", (user_id,)
    )
    return 0 if row is None else int(row["n"])
