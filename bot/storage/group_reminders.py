"""Group reminders: rows the dispatcher claims like check-in slots, owned by a group chat."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

from bot.storage.crypto import TextCipher
from bot.storage.db import Row, Transaction
from bot.storage.queries import Queryable, optional_from_epoch, to_epoch
from bot.storage.users import weekdays_from_mask, weekdays_to_mask

MAX_PER_CHAT = 10


class PausedBecause(StrEnum):
    ADMIN = "admin"
    NO_PERMISSION = "no_permission"  # the platform refused a post: kept, not deleted


@dataclass(frozen=True, slots=True)
class ReminderSpec:
    """What an admin asked for; `own_text` None means rotating affirmations."""

    timezone: str
    local_time: str
    weekdays: frozenset[int]
    theme: str | None
    own_text: str | None


@dataclass(frozen=True, slots=True)
class GroupReminder:
    id: int
    platform: str
    chat_id: str
    number: int
    creator_user_id: str | None
    locale: str
    spec: ReminderSpec
    posts: int
    paused: PausedBecause | None
    creator_told_at: datetime | None
    next_due_at: datetime | None
    next_local_date: date | None
    last_local_date: date | None


COLUMNS = (  # what reminder_from_row reads
    "id, platform, chat_id, number, creator_user_id, locale, timezone, local_time, weekdays,"
    " theme, own_text, posts, paused, creator_told_at, next_due_at, next_local_date,"
    " last_local_date"
)


def _date(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(text)


def reminder_from_row(row: Row, cipher: TextCipher) -> GroupReminder:
    sealed = row["own_text"]
    return GroupReminder(
        id=row["id"],
        platform=row["platform"],
        chat_id=row["chat_id"],
        number=row["number"],
        creator_user_id=row["creator_user_id"],
        locale=row["locale"],
        spec=ReminderSpec(
            timezone=row["timezone"],
            local_time=row["local_time"],
            weekdays=weekdays_from_mask(row["weekdays"]),
            theme=row["theme"],
            own_text=None if sealed is None else cipher.decrypt_for_reminder(sealed, row["id"]),
        ),
        posts=row["posts"],
        paused=None if row["paused"] is None else PausedBecause(row["paused"]),
        creator_told_at=optional_from_epoch(row["creator_told_at"]),
        next_due_at=optional_from_epoch(row["next_due_at"]),
        next_local_date=_date(row["next_local_date"]),
        last_local_date=_date(row["last_local_date"]),
    )


async def add_reminder(
    tx: Transaction,
    cipher: TextCipher,
    platform: str,
    chat_id: str,
    creator_user_id: str | None,
    locale: str,
    spec: ReminderSpec,
    now: datetime,
) -> GroupReminder | None:
    """A new reminder with the chat's next free number; None if the chat has the most allowed."""
    row = await tx.fetch_one(
        "SELECT COUNT(*) AS count, COALESCE(MAX(number), 0) AS highest FROM group_reminders"
        " WHERE platform = ? AND chat_id = ?",
        (platform, chat_id),
    )
    assert row is not None
    if row["count"] >= MAX_PER_CHAT:
        return None
    reminder_id = await tx.insert(
        "INSERT INTO group_reminders (platform, chat_id, number, creator_user_id, locale,"
        " timezone, local_time, weekdays, theme, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            platform,
            chat_id,
            row["highest"] + 1,
            creator_user_id,
            locale,
            spec.timezone,
            spec.local_time,
            weekdays_to_mask(spec.weekdays),
            spec.theme,
            to_epoch(now),
        ),
    )
    if spec.own_text is not None:  # sealed with its own id, which only exists now
        await tx.execute(
            "UPDATE group_reminders SET own_text = ? WHERE id = ?",
            (cipher.encrypt_for_reminder(spec.own_text, reminder_id), reminder_id),
        )
    return await get_reminder(tx, cipher, reminder_id)


async def get_reminder(db: Queryable, cipher: TextCipher, reminder_id: int) -> GroupReminder | None:
    row = await db.fetch_one(f"SELECT {COLUMNS} FROM group_reminders WHERE id = ?", (reminder_id,))
    return None if row is None else reminder_from_row(row, cipher)


async def find_by_number(
    db: Queryable, cipher: TextCipher, platform: str, chat_id: str, number: int
) -> GroupReminder | None:
    row = await db.fetch_one(
        f"SELECT {COLUMNS} FROM group_reminders WHERE platform = ? AND chat_id = ? AND number = ?",
        (platform, chat_id, number),
    )
    return None if row is None else reminder_from_row(row, cipher)


async def list_for_chat(
    db: Queryable, cipher: TextCipher, platform: str, chat_id: str
) -> list[GroupReminder]:
    rows = await db.fetch_all(
        f"SELECT {COLUMNS} FROM group_reminders WHERE platform = ? AND chat_id = ? ORDER BY number",
        (platform, chat_id),
    )
    return [reminder_from_row(row, cipher) for row in rows]


async def save_plan(
    tx: Transaction, reminder_id: int, next_due_at: datetime | None, next_local_date: date | None
) -> None:
    await tx.execute(
        "UPDATE group_reminders SET next_due_at = ?, next_local_date = ? WHERE id = ?",
        (
            None if next_due_at is None else to_epoch(next_due_at),
            None if next_local_date is None else next_local_date.isoformat(),
            reminder_id,
        ),
    )


@dataclass(frozen=True, slots=True)
class ReminderAdvance:
    """A claimed reminder moved on to its next post; `posts` counts the ones made."""

    reminder_id: int
    next_due_at: datetime
    next_local_date: date
    claimed_date: date
    posts: int


async def due_reminders(
    tx: Transaction, cipher: TextCipher, now: datetime, limit: int
) -> list[GroupReminder]:
    """Active reminders due at or before `now`, earliest first, at most `limit`."""
    rows = await tx.fetch_all(
        f"SELECT {COLUMNS} FROM group_reminders AS r"
        " WHERE next_due_at IS NOT NULL AND next_due_at <= ? AND paused IS NULL"
        " ORDER BY next_due_at LIMIT ?" + tx.dialect.claim_lock.format("r"),
        (to_epoch(now), limit),
    )
    return [reminder_from_row(row, cipher) for row in rows]


async def advance_reminders(tx: Transaction, advances: Sequence[ReminderAdvance]) -> None:
    await tx.executemany(
        "UPDATE group_reminders SET next_due_at = ?, next_local_date = ?, last_local_date = ?,"
        " posts = ? WHERE id = ?",
        [
            (
                to_epoch(a.next_due_at),
                a.next_local_date.isoformat(),
                a.claimed_date.isoformat(),
                a.posts,
                a.reminder_id,
            )
            for a in advances
        ],
    )


async def next_reminder_due(db: Queryable) -> datetime | None:
    row = await db.fetch_one(
        "SELECT MIN(next_due_at) AS due FROM group_reminders WHERE next_due_at IS NOT NULL"
    )
    return None if row is None else optional_from_epoch(row["due"])


async def pause(tx: Transaction, reminder_id: int, because: PausedBecause) -> None:
    await tx.execute(
        "UPDATE group_reminders SET paused = ?, next_due_at = NULL, next_local_date = NULL"
        " WHERE id = ?",
        (because.value, reminder_id),
    )


async def resume(tx: Transaction, reminder_id: int) -> None:
    """Active again; the caller plans its next post. A later loss of permission is told anew."""
    await tx.execute(
        "UPDATE group_reminders SET paused = NULL, creator_told_at = NULL WHERE id = ?",
        (reminder_id,),
    )


async def delete(tx: Transaction, reminder_id: int) -> None:
    await tx.execute("DELETE FROM group_reminders WHERE id = ?", (reminder_id,))


async def pause_for_lost_permission(tx: Transaction, reminder_id: int, now: datetime) -> bool:
    """Pause a reminder the platform would not post; True the first time (tell its admin).

    Paused, not deleted: an admin who gives the permission back resumes it as it was.
    A reminder an admin paused meanwhile stays paused as they left it, and nobody is told.
    """
    changed = await tx.execute(
        "UPDATE group_reminders SET paused = ?, next_due_at = NULL, next_local_date = NULL"
        " WHERE id = ? AND paused IS NULL",
        (PausedBecause.NO_PERMISSION.value, reminder_id),
    )
    if changed != 1:
        return False
    told = await tx.execute(
        "UPDATE group_reminders SET creator_told_at = ?"
        " WHERE id = ? AND creator_told_at IS NULL AND creator_user_id IS NOT NULL",
        (to_epoch(now), reminder_id),
    )
    return told == 1


async def move_chat(tx: Transaction, platform: str, old_chat_id: str, new_chat_id: str) -> None:
    """A Telegram group became a supergroup with a new id: its reminders follow it.

    If admins already made reminders in the new chat (the upgrade was noticed late),
    the moved ones are numbered after those, so both sets stay reachable.
    """
    row = await tx.fetch_one(
        "SELECT COALESCE(MAX(number), 0) AS highest FROM group_reminders"
        " WHERE platform = ? AND chat_id = ?",
        (platform, new_chat_id),
    )
    highest = 0 if row is None else int(row["highest"])
    if highest == 0:
        await tx.execute(
            "UPDATE group_reminders SET chat_id = ? WHERE platform = ? AND chat_id = ?",
            (new_chat_id, platform, old_chat_id),
        )
        return
    moving = await tx.fetch_all(
        "SELECT id FROM group_reminders WHERE platform = ? AND chat_id = ? ORDER BY number",
        (platform, old_chat_id),
    )
    await tx.executemany(
        "UPDATE group_reminders SET chat_id = ?, number = ? WHERE id = ?",
        [(new_chat_id, highest + place, row["id"]) for place, row in enumerate(moving, 1)],
    )


async def forget_creator(tx: Transaction, platform: str, platform_user_id: str) -> None:
    """The admin used /forget: the group keeps its reminders, without their id."""
    await tx.execute(
        "UPDATE group_reminders SET creator_user_id = NULL"
        " WHERE platform = ? AND creator_user_id = ?",
        (platform, platform_user_id),
    )


async def count_created_by(db: Queryable, platform: str, platform_user_id: str) -> int:
    row = await db.fetch_one(
        "SELECT COUNT(*) AS count FROM group_reminders WHERE platform = ? AND creator_user_id = ?",
        (platform, platform_user_id),
    )
    return 0 if row is None else int(row["count"])
