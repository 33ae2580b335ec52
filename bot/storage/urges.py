"""Pauses taken, their outcomes, follow-ups after an urge timer, and the no-contact counter."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.storage.db import Transaction
from bot.storage.queries import Queryable, from_epoch, to_epoch


@dataclass(frozen=True, slots=True)
class PauseCounts:
    paused: int
    passed: int
    reached_out: int


async def start_pause(tx: Transaction, user_id: int, now: datetime) -> int:
    return await tx.insert(
        "INSERT INTO urge_pauses (user_id, started_at) VALUES (?, ?)", (user_id, to_epoch(now))
    )


async def resolve_latest_pause(tx: Transaction, user_id: int, outcome: str, now: datetime) -> None:
    """Record how the latest pause ended (a later answer replaces an earlier one)."""
    await tx.execute(
        "UPDATE urge_pauses SET outcome = ?, resolved_at = ?"
        " WHERE id = (SELECT MAX(id) FROM urge_pauses WHERE user_id = ?)",
        (outcome, to_epoch(now), user_id),
    )


async def pause_counts(db: Queryable, user_id: int, since: datetime) -> PauseCounts:
    row = await db.fetch_one(
        "SELECT COUNT(*) AS paused,"
        " COALESCE(SUM(CASE WHEN outcome = 'passed' THEN 1 ELSE 0 END), 0) AS passed,"
        " COALESCE(SUM(CASE WHEN outcome = 'reached_out' THEN 1 ELSE 0 END), 0) AS reached_out"
        " FROM urge_pauses WHERE user_id = ? AND started_at >= ?",
        (user_id, to_epoch(since)),
    )
    assert row is not None
    return PauseCounts(row["paused"], row["passed"], row["reached_out"])


async def schedule_followup(tx: Transaction, user_id: int, due_at: datetime) -> None:
    """One pending follow-up per user: a new timer replaces an undelivered one."""
    await tx.execute("DELETE FROM followups WHERE user_id = ? AND delivered_at IS NULL", (user_id,))
    await tx.execute(
        "INSERT INTO followups (user_id, due_at) VALUES (?, ?)", (user_id, to_epoch(due_at))
    )


async def pending_followup(db: Queryable, user_id: int) -> datetime | None:
    row = await db.fetch_one(
        "SELECT due_at FROM followups WHERE user_id = ? AND delivered_at IS NULL", (user_id,)
    )
    return None if row is None else from_epoch(row["due_at"])


async def mark_followup_delivered(tx: Transaction, followup_id: int, now: datetime) -> None:
    await tx.execute(
        "UPDATE followups SET delivered_at = ? WHERE id = ?", (to_epoch(now), followup_id)
    )


@dataclass(frozen=True, slots=True)
class NoContact:
    since: datetime
    longest_days: int
    restarts: int
    practical_contacts: int = 0  # handovers and shared matters: counted apart, never a reset

    def current_days(self, now: datetime) -> int:
        return max(0, (now - self.since) // timedelta(days=1))


async def get_no_contact(db: Queryable, user_id: int) -> NoContact | None:
    row = await db.fetch_one(
        "SELECT since, longest_days, restarts, practical_contacts FROM no_contact"
        " WHERE user_id = ?",
        (user_id,),
    )
    if row is None:
        return None
    return NoContact(
        from_epoch(row["since"]), row["longest_days"], row["restarts"], row["practical_contacts"]
    )


async def note_practical_contact(tx: Transaction, user_id: int) -> int:
    """A handover or a shared matter: noted, and the count of days goes on untouched."""
    await tx.execute(
        "UPDATE no_contact SET practical_contacts = practical_contacts + 1 WHERE user_id = ?",
        (user_id,),
    )
    counter = await get_no_contact(tx, user_id)
    return 0 if counter is None else counter.practical_contacts


async def start_no_contact(tx: Transaction, user_id: int, now: datetime) -> None:
    await tx.execute(
        "INSERT INTO no_contact (user_id, since) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING",
        (user_id, to_epoch(now)),
    )


async def restart_no_contact(tx: Transaction, user_id: int, now: datetime) -> NoContact:
    """Start counting again; the longest stretch so far is kept, never wiped."""
    current = await get_no_contact(tx, user_id)
    if current is None:
        await start_no_contact(tx, user_id, now)
        return NoContact(now, 0, 0)
    longest = max(current.longest_days, current.current_days(now))
    await tx.execute(
        "UPDATE no_contact SET since = ?, longest_days = ?, restarts = restarts + 1"
        " WHERE user_id = ?",
        (to_epoch(now), longest, user_id),
    )
    return NoContact(now, longest, current.restarts + 1, current.practical_contacts)


async def stop_no_contact(tx: Transaction, user_id: int) -> None:
    await tx.execute("DELETE FROM no_contact WHERE user_id = ?", (user_id,))
