"""SQLite reads in place: on the event loop's own thread, on a connection of its own.

A small indexed read takes a few microseconds there, where a trip to a connection's
thread and back costs some 75 us of CPU (two thread wake-ups). A read that turns out long
is stopped by a progress handler after `READ_IN_PLACE_STEPS` steps of SQLite's machine
(well under a millisecond), and so is one that would have to wait for a lock; either is
then run again on the reader connection, in its thread, where it may take its time. A
read has no effects, so running it again changes nothing.

`SqliteDatabase.fetch_all` (`bot.storage.db`) tries here first.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.storage.backend import Params, Row

# SQLite machine steps a read may take on the event loop's thread before it is moved to
# the reader's thread: a few hundred microseconds' worth, whatever the query.
READ_IN_PLACE_STEPS = 20_000
READ_IN_PLACE_ROWS = 200  # rows, likewise


def in_place_reader(path: Path) -> sqlite3.Connection:
    """The event loop's own read-only connection (see the top): it never waits for a lock
    (busy timeout 0) and stops any statement past READ_IN_PLACE_STEPS machine steps."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.row_factory = sqlite3.Row
    connection.execute("PRAGMA busy_timeout=0")
    connection.execute("PRAGMA query_only=ON")
    # Asked every READ_IN_PLACE_STEPS steps; answering True stops the statement.
    connection.set_progress_handler(lambda: True, READ_IN_PLACE_STEPS)
    return connection


def fetched_in_place(connection: sqlite3.Connection, sql: str, params: Params) -> list[Row] | None:
    """All the rows, or None when there are more than READ_IN_PLACE_ROWS (each row is
    work on the event loop's thread too: such a read goes to the reader's thread)."""
    cursor = connection.execute(sql, params)
    try:
        rows: list[Row] = cursor.fetchmany(READ_IN_PLACE_ROWS + 1)
    finally:
        cursor.close()
    return rows if len(rows) <= READ_IN_PLACE_ROWS else None


def stopped_or_busy(error: sqlite3.OperationalError) -> bool:
    """The in-place read gave up (too long, or a lock to wait for), not a real error."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return False
    primary = code & 0xFF  # an extended code (SQLITE_BUSY_RECOVERY, ...) keeps its kind
    return primary in (sqlite3.SQLITE_INTERRUPT, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
