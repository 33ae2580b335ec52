"""Caring checks: the one message a user asked for after a crisis reply ("check on me
tomorrow"), and when it was last offered. One row per user at most; no text.

A check is pending while `next_due_at` is set. The scheduler takes it off the
schedule and marks it claimed in the tick's transaction, before anything is sent,
so a crash can lose it but never send it twice; delivery (or a refusal) ends the claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from bot.storage.db import Transaction
from bot.storage.queries import Queryable, from_epoch, optional_from_epoch, to_epoch
from bot.storage.users import User, prefixed_columns, user_from_row


@dataclass(frozen=True, slots=True)
class CaringCheck:
    """A user's row: what was offered, and what is pending or on its way."""

    offered_on: date | None
    next_due_at: datetime | None  # None: nothing pending
    asked_at: datetime | None
    asked_while_stopped: bool
    claimed_at: datetime | None  # taken by the scheduler, not yet confirmed delivered


@dataclass(frozen=True, slots=True)
class DueCaringCheck:
    due_at: datetime
    asked_while_stopped: bool
    user: User


_COLUMNS = "offered_on, next_due_at, asked_at, asked_while_stopped, claimed_at"


async def get_check(db: Queryable, user_id: int) -> CaringCheck | None:
    row = await db.fetch_one(f"SELECT {_COLUMNS} FROM caring_checks WHERE user_id = ?", (user_id,))
    if row is None:
        return None
    offered = row["offered_on"]
    return CaringCheck(
        offered_on=None if offered is None else date.fromisoformat(offered),
        next_due_at=optional_from_epoch(row["next_due_at"]),
        asked_at=optional_from_epoch(row["asked_at"]),
        asked_while_stopped=bool(row["asked_while_stopped"]),
        claimed_at=optional_from_epoch(row["claimed_at"]),
    )


async def record_offer(tx: Transaction, user_id: int, today: date) -> bool:
    """Note an offer made on the user's local `today`, unless a check is pending or an
    offer was made that day already. True when the offer should be shown. One statement,
    so two crisis messages at once cannot both be offered."""
    changed = await tx.execute(
        "INSERT INTO caring_checks (user_id, offered_on) VALUES (?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET offered_on = excluded.offered_on"
        " WHERE caring_checks.next_due_at IS NULL"
        " AND (caring_checks.offered_on IS NULL"
        "      OR caring_checks.offered_on <> excluded.offered_on)",
        (user_id, today.isoformat()),
    )
    return changed > 0


async def schedule_check(
    tx: Transaction, user_id: int, due_at: datetime, asked_at: datetime, while_stopped: bool
) -> None:
    """The user said yes: one check at `due_at`, replacing anything claimed earlier."""
    await tx.execute(
        "INSERT INTO caring_checks (user_id, next_due_at, asked_at, asked_while_stopped)"
        " VALUES (?, ?, ?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET next_due_at = excluded.next_due_at,"
        " asked_at = excluded.asked_at, asked_while_stopped = excluded.asked_while_stopped,"
        " claimed_at = NULL",
        (user_id, to_epoch(due_at), to_epoch(asked_at), int(while_stopped)),
    )


async def cancel_check(tx: Transaction, user_id: int) -> None:
    """The user said no: nothing pending, and nothing on its way is sent (its outbox guard,
    `Target.CARING`, names the claim)."""
    await tx.execute(
        "UPDATE caring_checks SET next_due_at = NULL, asked_at = NULL, claimed_at = NULL"
        " WHERE user_id = ?",
        (user_id,),
    )


async def earliest_checkin_time(db: Queryable, user_id: int) -> str | None:
    """The user's first check-in time of the day ("08:30"), if they have one."""
    row = await db.fetch_one(
        "SELECT MIN(local_time) AS first FROM checkin_slots WHERE user_id = ?", (user_id,)
    )
    return None if row is None else row["first"]


_DUE = f"""
SELECT c.next_due_at, c.asked_while_stopped, {prefixed_columns("u")}
FROM caring_checks AS c JOIN users AS u ON u.id = c.user_id
WHERE c.next_due_at IS NOT NULL AND c.next_due_at <= ?
ORDER BY c.next_due_at
LIMIT ?
"""


async def due_checks(tx: Transaction, now: datetime, limit: int) -> list[DueCaringCheck]:
    """Pending checks due at or before `now`, earliest first, at most `limit`."""
    rows = await tx.fetch_all(_DUE + tx.dialect.claim_lock.format("c"), (to_epoch(now), limit))
    return [
        DueCaringCheck(
            from_epoch(row["next_due_at"]), bool(row["asked_while_stopped"]), user_from_row(row)
        )
        for row in rows
    ]


async def claim_checks(tx: Transaction, user_ids: Sequence[int], now: datetime) -> None:
    """Off the schedule and marked as on its way, in the claiming transaction."""
    await tx.executemany(
        "UPDATE caring_checks SET next_due_at = NULL, claimed_at = ? WHERE user_id = ?",
        [(to_epoch(now), user_id) for user_id in user_ids],
    )


async def postpone_checks(tx: Transaction, until: Sequence[tuple[int, datetime]]) -> None:
    """(user id, new due time)."""
    await tx.executemany(
        "UPDATE caring_checks SET next_due_at = ? WHERE user_id = ?",
        [(to_epoch(when), user_id) for user_id, when in until],
    )


async def close_checks(tx: Transaction, user_ids: Sequence[int]) -> None:
    """Off the schedule without sending."""
    await tx.executemany(
        "UPDATE caring_checks SET next_due_at = NULL, asked_at = NULL WHERE user_id = ?",
        [(user_id,) for user_id in user_ids],
    )


async def end_claim(tx: Transaction, user_id: int, claimed_at: datetime) -> None:
    """The claim made at `claimed_at` is over: delivered, or refused by the platform."""
    await tx.execute(
        "UPDATE caring_checks SET claimed_at = NULL, asked_at = NULL"
        " WHERE user_id = ? AND claimed_at = ?",
        (user_id, to_epoch(claimed_at)),
    )


async def next_check_due(db: Queryable) -> datetime | None:
    row = await db.fetch_one(
        "SELECT MIN(next_due_at) AS due FROM caring_checks WHERE next_due_at IS NOT NULL"
    )
    return None if row is None else optional_from_epoch(row["due"])
