"""Many user rows into `User`s at once, as the scheduler's claims read them.

`users.user_from_row` parses every column of every row. A claim of thousands of
rows holds only a few distinct weekday sets, quiet hours and times (most users
share them), so here each distinct value is parsed once per claim and shared,
and columns are read by position, found once per claim.
The result is exactly what `user_from_row` gives (a test compares the two field
by field, and fails when `User` gains a field this module does not read).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, time
from operator import itemgetter
from typing import Any

from bot.storage.db import Row
from bot.storage.queries import from_epoch
from bot.storage.users import QuietHours, User, weekdays_from_mask

# Every field of `User` read below, in order: the test checks it against `User`.
READS = (
    "id",
    "platform",
    "platform_user_id",
    "chat_id",
    "locale",
    "timezone",
    "weekdays",
    "quiet_hours",
    "paused_until",
    "checkins_stopped",
    "unreachable_since",
    "last_reply_id",
    "country",
    "discreet",
    "created_at",
    "onboarded_at",
    "keep_days",
    "has_plan",
)


# The columns read, by name (as `users.prefixed_columns` selects them).
_COLUMNS = (
    "id",
    "platform",
    "platform_user_id",
    "chat_id",
    "locale",
    "timezone",
    "weekdays",
    "quiet_start",
    "quiet_end",
    "paused_until",
    "checkins_stopped",
    "unreachable_since",
    "last_reply_id",
    "country",
    "discreet",
    "created_at",
    "onboarded_at",
    "keep_days",
    "has_plan",
)


class ColumnPlaces:
    """Where named columns sit in the rows of one query, found from its first row.

    A Row looks a name up by comparing it with every column's name; for thousands
    of rows of 20-odd columns that adds up, and reading by position does not.
    """

    def __init__(self, names: Sequence[str]) -> None:
        self._names = names
        self._read: Callable[[Row], tuple[Any, ...]] | None = None

    def values(self, row: Row) -> tuple[Any, ...]:
        read = self._read
        if read is None:
            columns = row.keys()  # iterating a Row gives its values, not its names
            lowered = [name.lower() for name in columns]
            places = [lowered.index(name) for name in self._names]
            # itemgetter picks them all in one C call; with one place it returns the
            # value itself, so that case is wrapped to keep a tuple.
            if len(places) == 1:
                only = places[0]
                self._read = read = lambda row: (row[only],)
            else:
                self._read = read = itemgetter(*places)
        return read(row)


class UserRows:
    """Turns rows into users, each distinct weekday mask, pair of quiet hours and
    moment parsed once for as long as this lives (one claim)."""

    def __init__(self) -> None:
        self._weekdays: dict[int, frozenset[int]] = {}
        self._quiet: dict[tuple[str, str], QuietHours] = {}
        self._moments: dict[int, datetime] = {}
        self._columns = ColumnPlaces(_COLUMNS)

    def user(self, row: Row) -> User:
        (
            user_id,
            platform,
            platform_user_id,
            chat_id,
            locale,
            timezone,
            weekdays,
            quiet_start,
            quiet_end,
            paused_until,
            checkins_stopped,
            unreachable_since,
            last_reply_id,
            country,
            discreet,
            created_at,
            onboarded_at,
            keep_days,
            has_plan,
        ) = self._columns.values(row)
        return User(
            id=user_id,
            platform=platform,
            platform_user_id=platform_user_id,
            chat_id=chat_id,
            locale=locale,
            timezone=timezone,
            weekdays=self._days(weekdays),
            quiet_hours=self._quiet_hours(quiet_start, quiet_end),
            paused_until=self._moment(paused_until),
            checkins_stopped=bool(checkins_stopped),
            unreachable_since=self._moment(unreachable_since),
            last_reply_id=last_reply_id,
            country=country,
            discreet=bool(discreet),
            created_at=from_epoch(created_at),
            onboarded_at=self._moment(onboarded_at),
            keep_days=keep_days,
            has_plan=bool(has_plan),
        )

    def _days(self, mask: int) -> frozenset[int]:
        days = self._weekdays.get(mask)
        if days is None:
            days = self._weekdays[mask] = weekdays_from_mask(mask)
        return days

    def _quiet_hours(self, start: str | None, end: str | None) -> QuietHours | None:
        if start is None or end is None:
            return None
        quiet = self._quiet.get((start, end))
        if quiet is None:
            quiet = QuietHours(time.fromisoformat(start), time.fromisoformat(end))
            self._quiet[(start, end)] = quiet
        return quiet

    def _moment(self, seconds: int | None) -> datetime | None:
        if seconds is None:
            return None
        moment = self._moments.get(seconds)
        if moment is None:
            moment = self._moments[seconds] = from_epoch(seconds)
        return moment
