"""Old history is not kept forever: check-ins, their notes and kept drafts expire.

The daily purge runs while people are talking to the bot, and SQLite has one writer:
a purge in one transaction over millions of rows held every reply's write back for
seconds. So the purge walks each table in bounded batches of rows, by row id, one
short transaction each (sized by `bot.storage.batching`), and lets other writes in
between.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.storage import content_seen, outbox_rows, sent_messages
from bot.storage.batching import delete_walking_ids
from bot.storage.db import Database, Transaction
from bot.storage.queries import to_epoch

# Rows looked at by the first transaction; later ones are sized to hold the writer about
# batching.AIM_SECONDS each (a deletion costs far more than a row kept).
BATCH_ROWS = 1000


@dataclass(frozen=True, slots=True)
class Purged:
    checkins: int
    drafts: int
    pauses: int
    followups: int
    sent_records: int = 0  # ids of old sent messages (the daily purge only)
    seen_records: int = 0  # ids of content shown before the no-repeat window (daily only)
    # Outbox rows of sends whose worker died mid-request (never sent again), a day on.
    attempted_sends: int = 0
    reply_shapes: int = 0  # shared check-in shapes no waiting row names, unused for a day


# Long enough to count them after a crash (`outbox_rows.on_the_wire`, as the scale
# benchmark does); they hold no more than any queued message does.
ATTEMPTED_SENDS_KEPT = timedelta(days=1)
# A shape holds only the bot's own words; one left unused this long is from content
# that has changed since, or a locale nobody is due in.
UNUSED_SHAPES_KEPT = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class _Expiring:
    table: str
    column: str
    condition: str = ""  # more that must hold for a row to go


_EXPIRING = (
    _Expiring("checkins", "answered_at"),
    _Expiring("drafts", "created_at"),
    _Expiring("urge_pauses", "started_at"),
    _Expiring("followups", "delivered_at", " AND delivered_at IS NOT NULL"),
)


async def daily_purge(
    db: Database, now: datetime, retention_days: int, sent_kept: timedelta
) -> Purged:
    """The daily housekeeping: expired history, records of sent messages older than
    `sent_kept` (kept longer than a platform lets a bot delete, so /wipe can still say
    how many it could not), and what was shown before the no-repeat window."""
    purged = await purge_expired(db, now, retention_days)
    sent = await sent_messages.purge_older_than(db, now - sent_kept)
    seen = await content_seen.purge_older_than(db, now)
    async with db.transaction() as tx:
        attempted = await outbox_rows.purge_attempted(tx, now - ATTEMPTED_SENDS_KEPT)
        shapes = await outbox_rows.purge_shapes(tx, now - UNUSED_SHAPES_KEPT)
    return Purged(
        purged.checkins,
        purged.drafts,
        purged.pauses,
        purged.followups,
        sent,
        seen,
        attempted,
        shapes,
    )


async def purge_expired(
    db: Database, now: datetime, retention_days: int, user_id: int | None = None
) -> Purged:
    """Delete what is older than `retention_days`, or than the owner's own shorter choice.
    `user_id` limits it to one user (who just chose a shorter time): one transaction,
    through the indexes on their rows. Everyone's is done in batches (see the top).

    The user's own reasons list is not history: it stays until they remove it.
    """
    now_epoch = to_epoch(now)
    cutoff = to_epoch(now - timedelta(days=retention_days))
    counts: list[int] = []
    if user_id is not None:

        async def theirs(tx: Transaction) -> None:
            for expiring in _EXPIRING:
                sql = _older(expiring) + " AND user_id = ?"
                counts.append(await tx.execute(sql, (cutoff, now_epoch, user_id)))

        await db.in_one_hop(theirs)
    else:
        for expiring in _EXPIRING:
            counts.append(await _purge_in_batches(db, expiring, cutoff, now_epoch))
    checkins, drafts, pauses, followups = counts
    if checkins or drafts:
        await db.checkpoint()  # no old copy left in the write-ahead log
    return Purged(checkins, drafts, pauses, followups)


async def _purge_in_batches(db: Database, expiring: _Expiring, cutoff: int, now: int) -> int:
    """Walk the table by id (SQLite's row id), a batch a transaction, deleting the expired."""

    async def expired_between(tx: Transaction, after: int, last: int) -> int:
        return await tx.execute(
            _older(expiring) + " AND id > ? AND id <= ?", (cutoff, now, after, last)
        )

    return await delete_walking_ids(db, expiring.table, BATCH_ROWS, expired_between)


def _older(expiring: _Expiring) -> str:
    """Rows older than the later of two cutoffs: the operator's, and the owner's own.

    Parameters: the operator's cutoff, and now. Older than either cutoff is older than
    the later one; without a choice of the owner's (or an owner row, which /forget
    never leaves behind) the second comparison is NULL and only the first counts.
    """
    table, column = expiring.table, expiring.column
    return (
        f"DELETE FROM {table} WHERE ({column} < ? OR {column} < ("
        f" SELECT ? - u.keep_days * 86400"
        f" FROM users AS u WHERE u.id = {table}.user_id)){expiring.condition}"
    )
