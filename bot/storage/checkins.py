"""Answers to check-ins. The optional note is stored encrypted."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.storage.db import Transaction
from bot.storage.queries import Queryable, from_epoch, to_epoch


@dataclass(frozen=True, slots=True)
class CheckInAnswer:
    id: int
    answered_at: datetime
    mood: int
    urge: str
    sealed_note: bytes | None


async def add_checkin(
    tx: Transaction,
    user_id: int,
    answered_at: datetime,
    mood: int,
    urge: str,
    sealed_note: bytes | None,
) -> int:
    return await tx.insert(
        "INSERT INTO checkins (user_id, answered_at, mood, urge, note) VALUES (?, ?, ?, ?, ?)",
        (user_id, to_epoch(answered_at), mood, urge, sealed_note),
    )


async def list_checkins(db: Queryable, user_id: int) -> list[CheckInAnswer]:
    return await list_checkins_since(db, user_id, None)


async def list_checkins_since(
    db: Queryable, user_id: int, since: datetime | None
) -> list[CheckInAnswer]:
    rows = await db.fetch_all(
        "SELECT id, answered_at, mood, urge, note FROM checkins"
        " WHERE user_id = ? AND answered_at >= ? ORDER BY answered_at, id",
        (user_id, 0 if since is None else to_epoch(since)),
    )
    return [
        CheckInAnswer(
            row["id"], from_epoch(row["answered_at"]), row["mood"], row["urge"], row["note"]
        )
        for row in rows
    ]
