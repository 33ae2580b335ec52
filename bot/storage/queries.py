"""What repositories need from a connection: the reader and a transaction both qualify."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol

from bot.storage.backend import Dialect, Params, Row


class Queryable(Protocol):
    @property
    def dialect(self) -> Dialect: ...

    async def fetch_all(self, sql: str, params: Params = ...) -> list[Row]: ...

    async def fetch_one(self, sql: str, params: Params = ...) -> Row | None: ...


def to_epoch(instant: datetime) -> int:
    return int(instant.timestamp())


def from_epoch(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def optional_from_epoch(seconds: int | None) -> datetime | None:
    return None if seconds is None else from_epoch(seconds)
