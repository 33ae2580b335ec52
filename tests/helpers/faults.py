"""Faults put into a database for a test, reaching every way it reads."""

from __future__ import annotations

import pytest

from bot.storage.db import Database


def every_read_through_fetch_all(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bounded reads (the crisis path's lookups) go through the database's own fetch_all,
    so a fault put there reaches them too (SQLite sends them to its reader's thread)."""
    monkeypatch.setattr(type(db), "bounded", property(lambda itself: itself))
