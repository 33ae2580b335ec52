"""Hard days on the calendar: the dates a user marked, and when each sends its next check-in.

The label is the user's own words, encrypted like a reason. Claiming a due date and
moving it on happen in the tick's one transaction (`due_dates`, then `move_on`), so a
crash can lose an extra check-in but never send one twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from functools import cache

from bot.storage.backend import Dialect
from bot.storage.claims import Whereabouts
from bot.storage.crypto import TextCipher
from bot.storage.db import Row, Transaction
from bot.storage.queries import Queryable, from_epoch, optional_from_epoch, to_epoch
from bot.storage.users import User, prefixed_columns, user_from_row


class DateKind(StrEnum):
    """What kind of day it is: picks the words of its check-ins. Stored: never renamed."""

    ANNIVERSARY = "anniversary"
    BIRTHDAY = "birthday"
    HOLIDAY = "holiday"
    LEGAL = "legal"
    CHILDREN = "children"
    OTHER = "other"


class Moment(StrEnum):
    """Which message of a date is next. Stored: never renamed."""

    EVE = "eve"  # the evening before
    DAY = "day"  # the morning of
    END = "end"  # the night after a one-off date: the row goes, nothing is sent


@dataclass(frozen=True, slots=True)
class Upcoming:
    """The next thing a date does: at `due_at`, `moment` of the date `on`."""

    due_at: datetime
    moment: Moment
    on: date


@dataclass(frozen=True, slots=True)
class HardDate:
    id: int
    user_id: int
    kind: DateKind
    label: str
    month: int
    day: int
    year: int | None  # None: every year
    upcoming: Upcoming | None
    created_at: datetime

    @property
    def yearly(self) -> bool:
        return self.year is None


@dataclass(frozen=True, slots=True)
class DueDate:
    """A date whose next moment is due, with its user and where they are in a conversation."""

    id: int
    kind: DateKind
    sealed_label: bytes
    month: int
    day: int
    year: int | None
    upcoming: Upcoming
    user: User
    whereabouts: Whereabouts
    checkin_times: tuple[str, ...]  # the user's check-in times (HH:MM): they place the moments


_COLUMNS = "id, user_id, kind, label, month, day, year, next_due_at, next_moment, next_date"


def _upcoming(row: Row) -> Upcoming | None:
    due = optional_from_epoch(row["next_due_at"])
    if due is None or row["next_moment"] is None or row["next_date"] is None:
        return None
    return Upcoming(due, Moment(row["next_moment"]), date.fromisoformat(row["next_date"]))


def _plan_values(upcoming: Upcoming | None) -> tuple[int | None, str | None, str | None]:
    if upcoming is None:
        return None, None, None
    return to_epoch(upcoming.due_at), upcoming.moment.value, upcoming.on.isoformat()


async def add_date(
    tx: Transaction,
    cipher: TextCipher,
    user_id: int,
    kind: DateKind,
    label: str,
    on: tuple[int, int, int | None],
    upcoming: Upcoming | None,
    now: datetime,
) -> int:
    """`on` is (month, day, year or None for every year)."""
    month, day, year = on
    return await tx.insert(
        "INSERT INTO hard_dates (user_id, kind, label, month, day, year, next_due_at,"
        " next_moment, next_date, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            user_id,
            kind.value,
            cipher.encrypt(label, user_id),
            month,
            day,
            year,
            *_plan_values(upcoming),
            to_epoch(now),
        ),
    )


async def list_dates(db: Queryable, cipher: TextCipher, user_id: int) -> list[HardDate]:
    """The user's dates in the order they were added."""
    rows = await db.fetch_all(
        f"SELECT {_COLUMNS}, created_at FROM hard_dates WHERE user_id = ? ORDER BY id", (user_id,)
    )
    return [_hard_date(cipher, row) for row in rows]


async def get_date(
    db: Queryable, cipher: TextCipher, user_id: int, date_id: int
) -> HardDate | None:
    row = await db.fetch_one(
        f"SELECT {_COLUMNS}, created_at FROM hard_dates WHERE id = ? AND user_id = ?",
        (date_id, user_id),
    )
    return None if row is None else _hard_date(cipher, row)


def _hard_date(cipher: TextCipher, row: Row) -> HardDate:
    return HardDate(
        id=row["id"],
        user_id=row["user_id"],
        kind=DateKind(row["kind"]),
        label=cipher.decrypt(row["label"], row["user_id"]),
        month=row["month"],
        day=row["day"],
        year=row["year"],
        upcoming=_upcoming(row),
        created_at=from_epoch(row["created_at"]),
    )


async def count_dates(db: Queryable, user_id: int) -> int:
    row = await db.fetch_one("SELECT COUNT(*) AS n FROM hard_dates WHERE user_id = ?", (user_id,))
    return 0 if row is None else int(row["n"])


async def set_label(
    tx: Transaction, cipher: TextCipher, user_id: int, date_id: int, label: str
) -> bool:
    changed = await tx.execute(
        "UPDATE hard_dates SET label = ? WHERE id = ? AND user_id = ?",
        (cipher.encrypt(label, user_id), date_id, user_id),
    )
    return changed > 0


async def set_when(
    tx: Transaction,
    user_id: int,
    date_id: int,
    on: tuple[int, int, int | None],
    upcoming: Upcoming | None,
) -> bool:
    """A new date or repeat, with the next moment planned for it."""
    month, day, year = on
    changed = await tx.execute(
        "UPDATE hard_dates SET month = ?, day = ?, year = ?, next_due_at = ?, next_moment = ?,"
        " next_date = ? WHERE id = ? AND user_id = ?",
        (month, day, year, *_plan_values(upcoming), date_id, user_id),
    )
    return changed > 0


async def remove_date(tx: Transaction, user_id: int, date_id: int) -> bool:
    deleted = await tx.execute(
        "DELETE FROM hard_dates WHERE id = ? AND user_id = ?", (date_id, user_id)
    )
    return deleted > 0


async def pending_moments(
    db: Queryable, user_id: int
) -> list[tuple[int, tuple[int, int, int | None], Upcoming]]:
    """(date id, (month, day, year), its pending moment) for each of the user's dates."""
    rows = await db.fetch_all(
        f"SELECT {_COLUMNS} FROM hard_dates WHERE user_id = ? AND next_due_at IS NOT NULL",
        (user_id,),
    )
    found = []
    for row in rows:
        upcoming = _upcoming(row)
        if upcoming is not None:
            found.append((row["id"], (row["month"], row["day"], row["year"]), upcoming))
    return found


_DUE = f"""
SELECT d.id AS date_id, d.kind, d.label, d.month, d.day, d.year,
       d.next_due_at, d.next_moment, d.next_date,
       (SELECT {{joined}} FROM checkin_slots AS s WHERE s.user_id = d.user_id)
           AS checkin_times,
       {prefixed_columns("u")},
       fp.flow AS current_flow, fp.step AS current_step, fp.updated_at AS flow_updated_at
FROM hard_dates AS d
JOIN users AS u ON u.id = d.user_id
LEFT JOIN flow_positions AS fp ON fp.user_id = u.id
WHERE d.next_due_at IS NOT NULL AND d.next_due_at <= ?
ORDER BY d.next_due_at
LIMIT ?
"""


@cache
def _due(dialect: Dialect) -> str:
    joined = dialect.comma_joined.format("s.local_time")
    return _DUE.format(joined=joined) + dialect.claim_lock.format("d")


async def due_dates(tx: Transaction, now: datetime, limit: int) -> list[DueDate]:
    """Dates whose next moment is due at or before `now`, earliest first, at most `limit`."""
    rows = await tx.fetch_all(_due(tx.dialect), (to_epoch(now), limit))
    found = []
    for row in rows:
        upcoming = _upcoming(row)
        assert upcoming is not None  # the query takes only rows with a due time
        found.append(
            DueDate(
                id=row["date_id"],
                kind=DateKind(row["kind"]),
                sealed_label=row["label"],
                month=row["month"],
                day=row["day"],
                year=row["year"],
                upcoming=upcoming,
                user=user_from_row(row),
                whereabouts=Whereabouts(
                    row["current_flow"],
                    row["current_step"],
                    optional_from_epoch(row["flow_updated_at"]),
                ),
                checkin_times=tuple(row["checkin_times"].split(","))
                if row["checkin_times"]
                else (),
            )
        )
    return found


async def move_on(tx: Transaction, plans: Sequence[tuple[int, Upcoming | None]]) -> None:
    """(date id, its next moment): a one-off date past its day is deleted instead (None)."""
    ended = [(date_id,) for date_id, upcoming in plans if upcoming is None]
    await tx.executemany(
        "UPDATE hard_dates SET next_due_at = ?, next_moment = ?, next_date = ? WHERE id = ?",
        [(*_plan_values(upcoming), date_id) for date_id, upcoming in plans if upcoming is not None],
    )
    if ended:
        await tx.executemany("DELETE FROM hard_dates WHERE id = ?", ended)


async def next_date_due(db: Queryable) -> datetime | None:
    row = await db.fetch_one(
        "SELECT MIN(next_due_at) AS due FROM hard_dates WHERE next_due_at IS NOT NULL"
    )
    return None if row is None else optional_from_epoch(row["due"])
