"""The safety plan a user writes for themselves, sealed, and the opt-in offer to review it.

Every change to the parts also sets `users.has_plan` in the same transaction, so the
crisis reply can offer "My plan" from the user row it reads anyway.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.storage.claims import Whereabouts
from bot.storage.crypto import TextCipher
from bot.storage.db import Transaction
from bot.storage.queries import Queryable, from_epoch, optional_from_epoch, to_epoch
from bot.storage.users import User, prefixed_columns, user_from_row


@dataclass(frozen=True, slots=True)
class PlanPart:
    """One filled-in part of a plan: which part (the flow names them), and its words."""

    part: str
    text: str
    updated_at: datetime


async def read_plan(db: Queryable, cipher: TextCipher, user_id: int) -> list[PlanPart]:
    rows = await db.fetch_all(
        "SELECT part, body, updated_at FROM safety_plan_parts WHERE user_id = ? ORDER BY part",
        (user_id,),
    )
    return [
        PlanPart(row["part"], cipher.decrypt(row["body"], user_id), from_epoch(row["updated_at"]))
        for row in rows
    ]


async def save_part(
    tx: Transaction, cipher: TextCipher, user_id: int, part: str, text: str, now: datetime
) -> None:
    """The part's words, replacing what it held."""
    await tx.execute(
        "INSERT INTO safety_plan_parts (user_id, part, body, updated_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (user_id, part) DO UPDATE SET body = excluded.body,"
        " updated_at = excluded.updated_at",
        (user_id, part, cipher.encrypt(text, user_id), to_epoch(now)),
    )
    await _note_has_plan(tx, user_id)


async def clear_part(tx: Transaction, user_id: int, part: str) -> None:
    await tx.execute(
        "DELETE FROM safety_plan_parts WHERE user_id = ? AND part = ?", (user_id, part)
    )
    await _note_has_plan(tx, user_id)


async def delete_plan(tx: Transaction, user_id: int) -> None:
    """Every part, and the offer to review a plan that is no longer there."""
    await tx.execute("DELETE FROM safety_plan_parts WHERE user_id = ?", (user_id,))
    await tx.execute("DELETE FROM plan_reviews WHERE user_id = ?", (user_id,))
    await _note_has_plan(tx, user_id)


async def _note_has_plan(tx: Transaction, user_id: int) -> None:
    await tx.execute(
        "UPDATE users SET has_plan = CASE WHEN EXISTS"
        " (SELECT 1 FROM safety_plan_parts WHERE user_id = ?) THEN 1 ELSE 0 END WHERE id = ?",
        (user_id, user_id),
    )


# The offer to review ------------------------------------------------------------------


async def set_review(tx: Transaction, user_id: int, next_due_at: datetime | None) -> None:
    """Turn the offer on (first due at `next_due_at`) or off (None)."""
    if next_due_at is None:
        await tx.execute("DELETE FROM plan_reviews WHERE user_id = ?", (user_id,))
        return
    await tx.execute(
        "INSERT INTO plan_reviews (user_id, next_due_at) VALUES (?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET next_due_at = excluded.next_due_at",
        (user_id, to_epoch(next_due_at)),
    )


async def review_due_at(db: Queryable, user_id: int) -> datetime | None:
    """When the next offer is due; None when the user has not asked for them."""
    row = await db.fetch_one("SELECT next_due_at FROM plan_reviews WHERE user_id = ?", (user_id,))
    return None if row is None else from_epoch(row["next_due_at"])


@dataclass(frozen=True, slots=True)
class ReviewExport:
    next_due_at: datetime
    last_sent_at: datetime | None


async def review_for_export(db: Queryable, user_id: int) -> ReviewExport | None:
    row = await db.fetch_one(
        "SELECT next_due_at, last_sent_at FROM plan_reviews WHERE user_id = ?", (user_id,)
    )
    if row is None:
        return None
    return ReviewExport(from_epoch(row["next_due_at"]), optional_from_epoch(row["last_sent_at"]))


@dataclass(frozen=True, slots=True)
class DueReview:
    due_at: datetime
    checkin_time: str | None  # the user's earliest check-in time ('HH:MM'), if they set one
    user: User
    whereabouts: Whereabouts


_DUE_REVIEWS = f"""
SELECT r.next_due_at, {prefixed_columns("u")},
       (SELECT MIN(s.local_time) FROM checkin_slots AS s WHERE s.user_id = u.id) AS checkin_time,
       fp.flow AS current_flow, fp.step AS current_step, fp.updated_at AS flow_updated_at
FROM plan_reviews AS r
JOIN users AS u ON u.id = r.user_id
LEFT JOIN flow_positions AS fp ON fp.user_id = u.id
WHERE r.next_due_at <= ?
ORDER BY r.next_due_at
LIMIT ?
"""


async def due_reviews(tx: Transaction, now: datetime, limit: int) -> list[DueReview]:
    rows = await tx.fetch_all(
        _DUE_REVIEWS + tx.dialect.claim_lock.format("r"), (to_epoch(now), limit)
    )
    return [
        DueReview(
            due_at=from_epoch(row["next_due_at"]),
            checkin_time=row["checkin_time"],
            user=user_from_row(row),
            whereabouts=Whereabouts(
                row["current_flow"],
                row["current_step"],
                optional_from_epoch(row["flow_updated_at"]),
            ),
        )
        for row in rows
    ]


async def move_reviews(tx: Transaction, moves: Sequence[tuple[int, datetime]]) -> None:
    """(user id, next due time): claimed offers moved on, in the claiming transaction."""
    await tx.executemany(
        "UPDATE plan_reviews SET next_due_at = ? WHERE user_id = ?",
        [(to_epoch(when), user_id) for user_id, when in moves],
    )


async def mark_review_sent(tx: Transaction, user_id: int, now: datetime) -> None:
    await tx.execute(
        "UPDATE plan_reviews SET last_sent_at = ? WHERE user_id = ?", (to_epoch(now), user_id)
    )


async def next_review_due(db: Queryable) -> datetime | None:
    row = await db.fetch_one("SELECT MIN(next_due_at) AS due FROM plan_reviews")
    return None if row is None else optional_from_epoch(row["due"])
