"""Check-in slots (a user's daily times) and snoozes: the rows the dispatcher claims."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from bot.storage.db import Transaction
from bot.storage.queries import Queryable, optional_from_epoch, to_epoch

MAX_SLOTS = 3


@dataclass(frozen=True, slots=True)
class Slot:
    id: int
    user_id: int
    local_time: str
    next_due_at: datetime | None
    next_local_date: date | None
    last_local_date: date | None


@dataclass(frozen=True, slots=True)
class SlotPlan:
    """Where a slot fires next; None fields mean "not scheduled" (stopped)."""

    slot_id: int
    next_due_at: datetime | None
    next_local_date: date | None


def _date(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(text)


async def list_slots(db: Queryable, user_id: int) -> list[Slot]:
    rows = await db.fetch_all(
        "SELECT id, user_id, local_time, next_due_at, next_local_date, last_local_date"
        " FROM checkin_slots WHERE user_id = ? ORDER BY local_time",
        (user_id,),
    )
    return [
        Slot(
            id=row["id"],
            user_id=row["user_id"],
            local_time=row["local_time"],
            next_due_at=optional_from_epoch(row["next_due_at"]),
            next_local_date=_date(row["next_local_date"]),
            last_local_date=_date(row["last_local_date"]),
        )
        for row in rows
    ]


async def replace_slots(tx: Transaction, user_id: int, local_times: Sequence[str]) -> None:
    """Make the user's slots exactly `local_times`; a kept time keeps its history.

    Keeping `last_local_date` for a time that stays means re-saving settings
    can never fire a second check-in for a slot already claimed today.
    """
    if not 0 < len(local_times) <= MAX_SLOTS:
        raise ValueError(f"between 1 and {MAX_SLOTS} check-in times")
    marks = ",".join("?" for _ in local_times)
    await tx.execute(
        f"DELETE FROM checkin_slots WHERE user_id = ? AND local_time NOT IN ({marks})",
        (user_id, *local_times),
    )
    await tx.executemany(
        "INSERT INTO checkin_slots (user_id, local_time) VALUES (?, ?)"
        " ON CONFLICT (user_id, local_time) DO NOTHING",
        [(user_id, local_time) for local_time in local_times],
    )


async def save_plans(tx: Transaction, plans: Sequence[SlotPlan]) -> None:
    await tx.executemany(
        "UPDATE checkin_slots SET next_due_at = ?, next_local_date = ? WHERE id = ?",
        [
            (
                None if plan.next_due_at is None else to_epoch(plan.next_due_at),
                None if plan.next_local_date is None else plan.next_local_date.isoformat(),
                plan.slot_id,
            )
            for plan in plans
        ],
    )


async def snooze(tx: Transaction, user_id: int, due_at: datetime) -> None:
    await tx.execute(
        "INSERT INTO checkin_snoozes (user_id, due_at) VALUES (?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET due_at = excluded.due_at",
        (user_id, to_epoch(due_at)),
    )


async def pending_snooze(db: Queryable, user_id: int) -> datetime | None:
    row = await db.fetch_one("SELECT due_at FROM checkin_snoozes WHERE user_id = ?", (user_id,))
    return None if row is None else optional_from_epoch(row["due_at"])


async def cancel_snooze(tx: Transaction, user_id: int) -> None:
    await tx.execute("DELETE FROM checkin_snoozes WHERE user_id = ?", (user_id,))


async def users_with_unplanned_slots(db: Queryable) -> list[int]:
    """Users not stopped who have a slot with no next due time (an upgrade, an interrupted
    change): without a plan such a slot would never fire."""
    rows = await db.fetch_all(
        "SELECT DISTINCT s.user_id FROM checkin_slots AS s JOIN users AS u ON u.id = s.user_id"
        " WHERE s.next_due_at IS NULL AND u.checkins_stopped = 0"
    )
    return [row["user_id"] for row in rows]
