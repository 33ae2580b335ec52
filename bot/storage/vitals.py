"""What the health check and the metrics ask the database: is it there, and how much
scheduled work is due and not yet taken."""

from __future__ import annotations

from datetime import datetime

from bot.storage.queries import Queryable, to_epoch

# Every table of due work, with the column that says when and what makes a row pending.
# A new kind of scheduled message adds its line here (tests/observability checks that
# every table with a due column is listed). Each has an index on its due column.
DUE_ROWS: tuple[tuple[str, str, str], ...] = (
    ("checkin_slots", "next_due_at", ""),
    ("checkin_snoozes", "due_at", ""),
    ("followups", "due_at", "delivered_at IS NULL AND claimed_at IS NULL"),
    ("group_reminders", "next_due_at", ""),
    ("plan_reviews", "next_due_at", ""),
    ("hard_dates", "next_due_at", ""),
    ("caring_checks", "next_due_at", ""),
)


def _count(table: str, column: str, pending: str) -> str:
    extra = f" AND {pending}" if pending else ""
    return f"(SELECT COUNT(*) FROM {table} WHERE {column} <= :now{extra})"


_DUE_BACKLOG = "SELECT " + " + ".join(_count(*row) for row in DUE_ROWS) + " AS due"


async def ping(db: Queryable) -> None:
    """One trivial read: raises if the database cannot answer."""
    await db.fetch_one("SELECT 1")


async def due_backlog(db: Queryable, now: datetime) -> int:
    """Rows of every kind whose time has come and that no tick has taken yet."""
    row = await db.fetch_one(_DUE_BACKLOG, {"now": to_epoch(now)})
    return 0 if row is None else int(row["due"])
