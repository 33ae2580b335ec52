"""What the scheduler takes off the schedule each tick: due check-in slots, snoozes and
follow-ups, each with its user and where that user is in a conversation.

The reads and the writes that advance them belong together: the dispatcher runs
both in one transaction, so a due item is claimed and moved on before anything
is sent, and a crash can lose a message but never repeat it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from typing import Any

from bot.storage.backend import Dialect
from bot.storage.db import Row, Transaction
from bot.storage.queries import Queryable, from_epoch, optional_from_epoch, to_epoch
from bot.storage.user_rows import ColumnPlaces, UserRows
from bot.storage.users import User, prefixed_columns

_USER_COLUMNS = (
    f"{prefixed_columns('u')},"
    " fp.flow AS current_flow, fp.step AS current_step, fp.updated_at AS flow_updated_at"
)
_WITH_USER = """
JOIN users AS u ON u.id = {alias}.user_id
LEFT JOIN flow_positions AS fp ON fp.user_id = u.id
"""


@dataclass(frozen=True, slots=True)
class Whereabouts:
    """Where the user is in a conversation when claimed: None fields when in none."""

    flow: str | None
    step: str | None
    updated_at: datetime | None


@dataclass(frozen=True, slots=True)
class DueSlot:
    slot_id: int
    local_time: str
    due_at: datetime
    local_date: date  # the local date this firing belongs to
    user: User
    whereabouts: Whereabouts


@dataclass(frozen=True, slots=True)
class DueSnooze:
    due_at: datetime
    user: User
    whereabouts: Whereabouts


@dataclass(frozen=True, slots=True)
class DueFollowup:
    followup_id: int
    user: User
    whereabouts: Whereabouts


@dataclass(frozen=True, slots=True)
class SlotAdvance:
    """A claimed slot moved on: its next firing (None while check-ins are stopped)."""

    slot_id: int
    next_due_at: datetime | None
    next_local_date: date | None
    claimed_date: date


class _ClaimedRows:
    """A claim's rows read by column position (see `ColumnPlaces`): the user, where they
    are in a conversation, and the columns of the claimed row itself."""

    def __init__(self, *own: str) -> None:
        self.users = UserRows()
        self._own = ColumnPlaces(own)
        self._place = ColumnPlaces(("current_flow", "current_step", "flow_updated_at"))

    def own(self, row: Row) -> tuple[Any, ...]:
        return self._own.values(row)

    def whereabouts(self, row: Row) -> Whereabouts:
        flow, step, updated_at = self._place.values(row)
        return Whereabouts(flow, step, optional_from_epoch(updated_at))


# The first `limit` due slots, and every other due slot of their users with them: a
# user's slots are claimed together, so two due at once after downtime make one
# check-in even when claims come in chunks.
_DUE_SLOTS = f"""
WITH first_due AS (
  SELECT user_id FROM checkin_slots AS first
  WHERE next_due_at IS NOT NULL AND next_due_at <= ?
  ORDER BY next_due_at
  LIMIT ?{{lock_first}}
)
SELECT s.id AS slot_id, s.local_time, s.next_due_at, s.next_local_date, {_USER_COLUMNS}
FROM checkin_slots AS s {_WITH_USER.format(alias="s")}
WHERE s.next_due_at IS NOT NULL AND s.next_due_at <= ?
  AND s.user_id IN (SELECT user_id FROM first_due)
ORDER BY s.next_due_at, s.id{{lock_all}}
"""


@cache
def _due_slots(dialect: Dialect) -> str:
    """Several workers (PostgreSQL): the first due slots are taken among those no other
    worker is claiming; the same users' other due slots are locked with them. (Should
    another worker have taken one of those first, in the same instant, that user gets
    two check-ins from two slots due at once: only after downtime, and never one slot
    twice.)"""
    return _DUE_SLOTS.format(
        lock_first=dialect.claim_lock.format("first"), lock_all=dialect.claim_lock.format("s")
    )


async def due_checkins(tx: Transaction, now: datetime, limit: int) -> list[DueSlot]:
    """Check-in slots due at or before `now`, earliest first: the first `limit`, and any
    other due slots of the same users (so possibly a few more than `limit`)."""
    due = to_epoch(now)
    rows = await tx.fetch_all(_due_slots(tx.dialect), (due, limit, due))
    read = _ClaimedRows("slot_id", "local_time", "next_due_at", "next_local_date")
    slots = []
    for row in rows:
        slot_id, local_time, due_at, local_date = read.own(row)
        slots.append(
            DueSlot(
                slot_id=slot_id,
                local_time=local_time,
                due_at=from_epoch(due_at),
                local_date=date.fromisoformat(local_date),
                user=read.users.user(row),
                whereabouts=read.whereabouts(row),
            )
        )
    return slots


async def advance_slots(tx: Transaction, advances: Sequence[SlotAdvance]) -> None:
    await tx.executemany(
        "UPDATE checkin_slots SET next_due_at = ?, next_local_date = ?, last_local_date = ?"
        " WHERE id = ?",
        [
            (
                None if a.next_due_at is None else to_epoch(a.next_due_at),
                None if a.next_local_date is None else a.next_local_date.isoformat(),
                a.claimed_date.isoformat(),
                a.slot_id,
            )
            for a in advances
        ],
    )


_DUE_SNOOZES = f"""
SELECT sn.due_at AS next_due_at, {_USER_COLUMNS}
FROM checkin_snoozes AS sn {_WITH_USER.format(alias="sn")}
WHERE sn.due_at <= ?
ORDER BY sn.due_at, sn.user_id
LIMIT ?
"""


async def take_due_snoozes(tx: Transaction, now: datetime, limit: int) -> list[DueSnooze]:
    """Snoozed check-ins due at or before `now`, earliest first, at most `limit`,
    removed as they are read."""
    rows = await tx.fetch_all(
        _DUE_SNOOZES + tx.dialect.claim_lock.format("sn"), (to_epoch(now), limit)
    )
    read = _ClaimedRows()
    taken = [
        DueSnooze(from_epoch(row["next_due_at"]), read.users.user(row), read.whereabouts(row))
        for row in rows
    ]
    await drop_due_snoozes(tx, [snooze.user.id for snooze in taken], now)
    return taken


async def drop_due_snoozes(tx: Transaction, user_ids: Sequence[int], now: datetime) -> None:
    """Remove these users' snoozes due by `now`: they are asked (or not) with a slot of
    theirs claimed at the same time, once."""
    if user_ids:
        # One statement, found through the due-time index: usually no snooze is due at
        # all, and a thousand single deletes would each look.
        await tx.execute(
            "DELETE FROM checkin_snoozes WHERE due_at <= ?"
            f" AND user_id IN ({tx.dialect.integers_from_json})",
            (to_epoch(now), json.dumps(list(user_ids))),
        )


async def defer_checkins(tx: Transaction, until: Sequence[tuple[int, datetime]]) -> None:
    """(user id, when): ask those users a little later instead, replacing any snooze."""
    if until:
        await tx.executemany(
            "INSERT INTO checkin_snoozes (due_at, user_id) VALUES (?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET due_at = excluded.due_at",
            [(to_epoch(when), user_id) for user_id, when in until],
        )


async def next_checkin_due(db: Queryable) -> datetime | None:
    """The earliest due slot or snooze, if any."""
    row = await db.fetch_one(
        "SELECT MIN(due) AS due FROM ("
        " SELECT MIN(next_due_at) AS due FROM checkin_slots WHERE next_due_at IS NOT NULL"
        " UNION ALL SELECT MIN(due_at) FROM checkin_snoozes) AS earliest"
    )
    return None if row is None else optional_from_epoch(row["due"])


_DUE_FOLLOWUPS = f"""
SELECT f.id AS followup_id, {_USER_COLUMNS}
FROM followups AS f {_WITH_USER.format(alias="f")}
WHERE f.delivered_at IS NULL AND f.due_at <= ?
  AND (f.claimed_at IS NULL OR (f.claimed_by <> ? AND f.claimed_at <= ?
       AND NOT EXISTS (SELECT 1 FROM outbox AS o
                       WHERE o.guard_target = 'followup' AND o.guard_id = f.id)))
ORDER BY f.due_at, f.id
LIMIT ?
"""


async def due_followups(
    tx: Transaction, now: datetime, claimer: str, lease_ended: datetime, limit: int
) -> list[DueFollowup]:
    """Undelivered follow-ups due by `now`, earliest first, at most `limit`: unclaimed, or
    claimed by another `claimer` at or before `lease_ended` whose message is no longer in
    the outbox (its sends were given up on). A message still in the outbox is the
    outbox's to send, or was on the wire when its worker died: never claimed again."""
    rows = await tx.fetch_all(
        _DUE_FOLLOWUPS + tx.dialect.claim_lock.format("f"),
        (to_epoch(now), claimer, to_epoch(lease_ended), limit),
    )
    read = _ClaimedRows()
    return [
        DueFollowup(row["followup_id"], read.users.user(row), read.whereabouts(row)) for row in rows
    ]


async def claim_followups(
    tx: Transaction, followup_ids: Sequence[int], claimer: str, now: datetime
) -> None:
    await tx.executemany(
        "UPDATE followups SET claimed_at = ?, claimed_by = ? WHERE id = ?",
        [(to_epoch(now), claimer, followup_id) for followup_id in followup_ids],
    )


async def postpone_followups(tx: Transaction, until: Sequence[tuple[int, datetime]]) -> None:
    """(follow-up id, new due time)."""
    await tx.executemany(
        "UPDATE followups SET due_at = ? WHERE id = ?",
        [(to_epoch(when), followup_id) for followup_id, when in until],
    )


async def close_followups(tx: Transaction, followup_ids: Sequence[int], now: datetime) -> None:
    """Closed without sending: marked delivered so they are never claimed again."""
    await tx.executemany(
        "UPDATE followups SET delivered_at = ? WHERE id = ?",
        [(to_epoch(now), followup_id) for followup_id in followup_ids],
    )


async def next_followup_due(db: Queryable) -> datetime | None:
    row = await db.fetch_one("SELECT MIN(due_at) AS due FROM followups WHERE delivered_at IS NULL")
    return None if row is None else optional_from_epoch(row["due"])
