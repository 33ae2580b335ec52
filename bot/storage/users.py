"""The users table: one row per person per platform."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.core.events import Address
from bot.storage.db import Row, Transaction
from bot.storage.queries import Queryable, from_epoch, optional_from_epoch, to_epoch


@dataclass(frozen=True, slots=True)
class User:
    id: int
    platform: str
    platform_user_id: str
    chat_id: str
    locale: str
    timezone: str | None
    checkin_time: str | None
    discreet: bool
    created_at: datetime
    onboarded_at: datetime | None


_COLUMNS = (
    "id, platform, platform_user_id, chat_id, locale, timezone, checkin_time, discreet,"
    " created_at, onboarded_at"
)


def _user(row: Row) -> User:
    return User(
        id=row["id"],
        platform=row["platform"],
        platform_user_id=row["platform_user_id"],
        chat_id=row["chat_id"],
        locale=row["locale"],
        timezone=row["timezone"],
        checkin_time=row["checkin_time"],
        discreet=bool(row["discreet"]),
        created_at=from_epoch(row["created_at"]),
        onboarded_at=optional_from_epoch(row["onboarded_at"]),
    )


async def find_user(db: Queryable, platform: str, platform_user_id: str) -> User | None:
    row = await db.fetch_one(
        f"SELECT {_COLUMNS} FROM users WHERE platform = ? AND platform_user_id = ?",
        (platform, platform_user_id),
    )
    return None if row is None else _user(row)


async def ensure_user(tx: Transaction, address: Address, locale: str, now: datetime) -> User:
    """The user's row, created on first need. Keeps the chat id current."""
    await tx.execute(
        "INSERT INTO users (platform, platform_user_id, chat_id, locale, created_at)"
        " VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (platform, platform_user_id) DO NOTHING",
        (address.platform, address.user_id, address.chat_id, locale, to_epoch(now)),
    )
    user = await find_user(tx, address.platform, address.user_id)
    if user is None:  # pragma: no cover - the insert above guarantees a row
        raise RuntimeError("user row vanished inside its own transaction")
    return user


async def set_timezone(tx: Transaction, user_id: int, timezone: str) -> None:
    await tx.execute("UPDATE users SET timezone = ? WHERE id = ?", (timezone, user_id))


async def set_checkin_time(tx: Transaction, user_id: int, checkin_time: str) -> None:
    await tx.execute("UPDATE users SET checkin_time = ? WHERE id = ?", (checkin_time, user_id))


async def mark_onboarded(tx: Transaction, user_id: int, now: datetime) -> None:
    await tx.execute(
        "UPDATE users SET onboarded_at = COALESCE(onboarded_at, ?) WHERE id = ?",
        (to_epoch(now), user_id),
    )
