"""The users table: one row per person per platform."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time

from bot.core.events import Address
from bot.storage.db import Row, Transaction
from bot.storage.queries import Queryable, from_epoch, optional_from_epoch, to_epoch

ALL_WEEKDAYS_MASK = 0b1111111


@dataclass(frozen=True, slots=True)
class QuietHours:
    """Local hours in which nothing routine is sent. May wrap past midnight (22:00-07:00)."""

    start: time
    end: time

    def contains(self, local: time) -> bool:
        if self.start <= self.end:
            return self.start <= local < self.end
        return local >= self.start or local < self.end

    def __str__(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M}"


@dataclass(frozen=True, slots=True)
class User:
    id: int
    platform: str
    platform_user_id: str
    chat_id: str
    locale: str
    timezone: str | None
    weekdays: frozenset[int]
    quiet_hours: QuietHours | None
    paused_until: datetime | None
    checkins_stopped: bool
    unreachable_since: datetime | None
    last_reply_id: str | None
    country: str | None
    discreet: bool
    created_at: datetime
    onboarded_at: datetime | None
    keep_days: int | None = None  # None: as long as the operator's retention allows
    has_plan: bool = False  # a safety plan with something in it: "My plan" under crisis replies

    @property
    def address(self) -> Address:
        return Address(self.platform, self.chat_id, self.platform_user_id)


_COLUMNS = (
    "id, platform, platform_user_id, chat_id, locale, timezone, weekdays, quiet_start, quiet_end,"
    " paused_until, checkins_stopped, unreachable_since, last_reply_id,"
    " country, discreet, created_at, onboarded_at, keep_days, has_plan"
)


def prefixed_columns(alias: str) -> str:
    """The columns `user_from_row` reads, each as `alias.column`, for joins."""
    return ", ".join(f"{alias}.{column.strip()}" for column in _COLUMNS.split(","))


def weekdays_from_mask(mask: int) -> frozenset[int]:
    return frozenset(day for day in range(7) if mask & (1 << day))


def weekdays_to_mask(days: frozenset[int]) -> int:
    return sum(1 << day for day in days)


def _quiet(start: str | None, end: str | None) -> QuietHours | None:
    if start is None or end is None:
        return None
    return QuietHours(time.fromisoformat(start), time.fromisoformat(end))


def user_from_row(row: Row) -> User:
    return User(
        id=row["id"],
        platform=row["platform"],
        platform_user_id=row["platform_user_id"],
        chat_id=row["chat_id"],
        locale=row["locale"],
        timezone=row["timezone"],
        weekdays=weekdays_from_mask(row["weekdays"]),
        quiet_hours=_quiet(row["quiet_start"], row["quiet_end"]),
        paused_until=optional_from_epoch(row["paused_until"]),
        checkins_stopped=bool(row["checkins_stopped"]),
        unreachable_since=optional_from_epoch(row["unreachable_since"]),
        last_reply_id=row["last_reply_id"],
        country=row["country"],
        discreet=bool(row["discreet"]),
        created_at=from_epoch(row["created_at"]),
        onboarded_at=optional_from_epoch(row["onboarded_at"]),
        keep_days=row["keep_days"],
        has_plan=bool(row["has_plan"]),
    )


async def find_user(db: Queryable, platform: str, platform_user_id: str) -> User | None:
    row = await db.fetch_one(
        f"SELECT {_COLUMNS} FROM users WHERE platform = ? AND platform_user_id = ?",
        (platform, platform_user_id),
    )
    return None if row is None else user_from_row(row)


async def get_user(db: Queryable, user_id: int) -> User | None:
    row = await db.fetch_one(f"SELECT {_COLUMNS} FROM users WHERE id = ?", (user_id,))
    return None if row is None else user_from_row(row)


async def ensure_user(tx: Transaction, address: Address, locale: str, now: datetime) -> User:
    """The user's row, created on first need. Keeps the chat id current."""
    tx.changed_user_rows()
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
    tx.changed_user_rows()
    await tx.execute("UPDATE users SET timezone = ? WHERE id = ?", (timezone, user_id))


async def set_locale(tx: Transaction, user_id: int, locale: str) -> None:
    await tx.execute("UPDATE users SET locale = ? WHERE id = ?", (locale, user_id))


async def set_discreet(tx: Transaction, user_id: int, discreet: bool) -> None:
    tx.changed_user_rows()
    await tx.execute("UPDATE users SET discreet = ? WHERE id = ?", (int(discreet), user_id))


async def set_country(tx: Transaction, user_id: int, country: str | None) -> None:
    tx.changed_user_rows()
    await tx.execute("UPDATE users SET country = ? WHERE id = ?", (country, user_id))


async def set_weekdays(tx: Transaction, user_id: int, days: frozenset[int]) -> None:
    tx.changed_user_rows()
    await tx.execute(
        "UPDATE users SET weekdays = ? WHERE id = ?", (weekdays_to_mask(days), user_id)
    )


async def set_quiet_hours(tx: Transaction, user_id: int, quiet: QuietHours | None) -> None:
    start = None if quiet is None else f"{quiet.start:%H:%M}"
    end = None if quiet is None else f"{quiet.end:%H:%M}"
    tx.changed_user_rows()
    await tx.execute(
        "UPDATE users SET quiet_start = ?, quiet_end = ? WHERE id = ?", (start, end, user_id)
    )


async def set_paused_until(tx: Transaction, user_id: int, until: datetime | None) -> None:
    value = None if until is None else to_epoch(until)
    tx.changed_user_rows()
    await tx.execute("UPDATE users SET paused_until = ? WHERE id = ?", (value, user_id))


async def set_keep_days(tx: Transaction, user_id: int, days: int | None) -> None:
    tx.changed_user_rows()
    await tx.execute("UPDATE users SET keep_days = ? WHERE id = ?", (days, user_id))


async def set_checkins_stopped(tx: Transaction, user_id: int, stopped: bool) -> None:
    tx.changed_user_rows()
    await tx.execute("UPDATE users SET checkins_stopped = ? WHERE id = ?", (int(stopped), user_id))


async def set_last_reply(tx: Transaction, user_id: int, reply_id: str) -> None:
    tx.changed_user_rows()
    await tx.execute("UPDATE users SET last_reply_id = ? WHERE id = ?", (reply_id, user_id))


async def mark_unreachable(tx: Transaction, address: Address, now: datetime) -> None:
    tx.changed_user_rows()
    await tx.execute(
        "UPDATE users SET unreachable_since = COALESCE(unreachable_since, ?)"
        " WHERE platform = ? AND platform_user_id = ?",
        (to_epoch(now), address.platform, address.user_id),
    )


async def mark_reachable(tx: Transaction, user_id: int) -> None:
    tx.changed_user_rows()
    await tx.execute("UPDATE users SET unreachable_since = NULL WHERE id = ?", (user_id,))


async def mark_onboarded(tx: Transaction, user_id: int, now: datetime) -> None:
    tx.changed_user_rows()
    await tx.execute(
        "UPDATE users SET onboarded_at = COALESCE(onboarded_at, ?) WHERE id = ?",
        (to_epoch(now), user_id),
    )


async def move_chat(
    tx: Transaction, platform: str, old_chat_id: str, new_chat_id: str, most: int
) -> int:
    """Follow a chat to its new id (a Telegram group upgraded to a supergroup): up to
    `most` of its people, found through the index on (platform, chat_id). Returns how
    many moved: fewer than `most` once none is left."""
    tx.changed_user_rows()
    return await tx.execute(
        "UPDATE users SET chat_id = ? WHERE id IN"
        " (SELECT id FROM users WHERE platform = ? AND chat_id = ? LIMIT ?)",
        (new_chat_id, platform, old_chat_id, most),
    )
