"""Watching SQLite's write-ahead log being copied back: its own setting, and the copies a
job makes itself (`Database.log_copied_aside`, `copy_log_aside`)."""

from __future__ import annotations

import pytest

from bot.storage.db import Database, Transaction


async def autocheckpoint_pages(tx: Transaction) -> int:
    """Past how many pages SQLite copies the log back inside a COMMIT (0: never)."""
    row = await tx.fetch_one("PRAGMA wal_autocheckpoint")
    return -1 if row is None else int(row[0])


class LogCopies:
    """Counts the database's `copy_log_aside` calls; each still copies."""

    def __init__(self, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        copy_log_aside = db.copy_log_aside

        async def counted() -> None:
            self.count += 1
            await copy_log_aside()

        monkeypatch.setattr(db, "copy_log_aside", counted)
