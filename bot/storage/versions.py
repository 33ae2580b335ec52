"""Which rows this code can read, and refusing to run where it would misread them.

Two numbers say what a worker writes and reads:

- the schema version: the number of the last migration (`migrations/NNNN_*.sql`),
  kept by SQLite in `PRAGMA user_version` and by PostgreSQL in `schema_version`;
- the row format: how the outbox's rows hold a message (the reply's JSON of
  `bot/delivery/reply_codec.py`, the shapes and tokens of migration 0016), which can
  change without a migration. It is recorded in `meta` as `row_format`: the newest
  format any worker has written there.

A worker refuses to start (VersionMismatch, one line) when it would misread rows:

- the database holds rows of a newer format than this code reads (an older version
  started after a newer one ran);
- on PostgreSQL, another worker of a different schema or row format runs on the same
  database now. Each worker says its versions by holding a shared advisory lock whose
  key is them (`declare`), taken before the lock every running worker holds, so
  `running_workers` sees them in `pg_locks` without any table, before any migration,
  and a worker killed with `kill -9` is gone from the list with its connection.

The history of row formats (raise ROW_FORMAT when the outbox's rows change shape, and
OLDEST_READABLE_ROW_FORMAT when this code stops reading an old one):

1. migration 0015: a row holds its reply's JSON, or sealed words.
2. migration 0016: or the id of a shared shape (`outbox_shapes`) and its token.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from bot.storage.backend import Database
from bot.storage.migrations import MigrationError, bundled_migrations

if TYPE_CHECKING:
    import asyncpg

ROW_FORMAT = 2
OLDEST_READABLE_ROW_FORMAT = 1
# A database from before formats were recorded holds rows of format 1 or 2.
UNRECORDED_ROW_FORMAT = 1
_META_KEY = "row_format"

# The advisory lock a worker holds shared to say its versions: this class (any fixed
# number; "STDV") and the versions as one number (schema * 1000 + row format).
VERSION_LOCK_CLASS = 0x53544456
_PER_SCHEMA = 1000


class VersionMismatch(MigrationError):
    """This code would misread rows of the database, or of a worker running on it.
    The message is one line for the operator."""


@dataclass(frozen=True, slots=True)
class Versions:
    schema: int
    row_format: int

    def __str__(self) -> str:
        return f"schema {self.schema}, row format {self.row_format}"

    @property
    def lock_key(self) -> int:
        return self.schema * _PER_SCHEMA + self.row_format

    @classmethod
    def from_lock_key(cls, key: int) -> Versions:
        return cls(key // _PER_SCHEMA, key % _PER_SCHEMA)


@cache
def this_code() -> Versions:
    """The schema this code migrates to and the row format it writes."""
    return Versions(bundled_migrations()[-1].version, ROW_FORMAT)


@dataclass(frozen=True, slots=True)
class RunningWorker:
    """Another session holding the running lock: a worker (or a key rotation).
    `versions` is None for a Steady from before versions were declared."""

    pid: int
    versions: Versions | None


UPGRADE_HINT = "stop every worker, then start this version alone (README: Upgrading)"


async def recorded_row_format(db: Database) -> int | None:
    """The newest row format written to this database; None before it was recorded."""
    row = await db.fetch_one("SELECT value FROM meta WHERE key = ?", (_META_KEY,))
    return None if row is None else int(bytes(row["value"]).decode("ascii"))


async def settle_row_format(db: Database) -> None:
    """After the migrations: refuse rows this code cannot read, then record its own
    format (raised, never lowered: rows of the newer one may already be waiting)."""
    recorded = await recorded_row_format(db)
    found = UNRECORDED_ROW_FORMAT if recorded is None else recorded
    if found > ROW_FORMAT:
        raise VersionMismatch(
            f"this database holds rows of row format {found}, written by a newer Steady;"
            f" this version reads {OLDEST_READABLE_ROW_FORMAT} to {ROW_FORMAT}. Start the"
            " newer version again (README: Upgrading)"
        )
    if found < OLDEST_READABLE_ROW_FORMAT and await _outbox_waiting(db):
        raise VersionMismatch(
            f"this database holds waiting messages of row format {found}, which this"
            f" version no longer reads (it reads {OLDEST_READABLE_ROW_FORMAT} to"
            f" {ROW_FORMAT}). Run the version that wrote them until the outbox is empty"
            " (README: Upgrading)"
        )
    if recorded != ROW_FORMAT:
        async with db.transaction() as tx:
            await tx.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (_META_KEY, str(ROW_FORMAT).encode("ascii")),
            )


async def _outbox_waiting(db: Database) -> bool:
    return await db.fetch_one("SELECT 1 AS waiting FROM outbox LIMIT 1") is not None


async def declare(connection: asyncpg.Connection, versions: Versions) -> None:
    """Say this worker's versions for as long as `connection` stays open."""
    await connection.execute(
        "SELECT pg_advisory_lock_shared($1, $2)", VERSION_LOCK_CLASS, versions.lock_key
    )


# The running lock is a bigint key: pg_locks shows its high half as classid, its low
# half as objid, and objsubid 1; a lock of two int keys has objsubid 2.
_RUNNING_WORKERS = """
SELECT running.pid AS pid, declared.objid::bigint AS versions
FROM pg_locks AS running
LEFT JOIN pg_locks AS declared
  ON declared.pid = running.pid AND declared.locktype = 'advisory'
  AND declared.database = running.database AND declared.objsubid = 2
  AND declared.classid::bigint = $3 AND declared.granted
WHERE running.locktype = 'advisory' AND running.objsubid = 1 AND running.granted
  AND running.classid::bigint = $1 AND running.objid::bigint = $2
  AND running.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND running.pid <> pg_backend_pid()
ORDER BY running.pid
"""


async def running_workers(connection: asyncpg.Connection, running_lock: int) -> list[RunningWorker]:
    """Every other session holding `running_lock` on this database, with its versions."""
    rows = await connection.fetch(
        _RUNNING_WORKERS, running_lock >> 32, running_lock & 0xFFFF_FFFF, VERSION_LOCK_CLASS
    )
    return [
        RunningWorker(
            int(row["pid"]),
            None if row["versions"] is None else Versions.from_lock_key(int(row["versions"])),
        )
        for row in rows
    ]


def describe_workers(workers: list[RunningWorker]) -> str:
    """`2 workers of schema 16, row format 2 and 1 worker from before versions were
    recorded`."""
    counts: dict[str, int] = {}
    for worker in workers:
        what = (
            f"of {worker.versions}"
            if worker.versions is not None
            else "from before versions were recorded"
        )
        counts[what] = counts.get(what, 0) + 1
    parts = [f"{n} worker{'s' if n != 1 else ''} {what}" for what, n in counts.items()]
    return " and ".join(parts)


async def refuse_other_versions(connection: asyncpg.Connection, running_lock: int) -> None:
    """VersionMismatch when a worker of another version runs on this database now: it
    would misread this one's rows, or this one its rows (and a migration would change
    the schema under it)."""
    code = this_code()
    others = [
        worker
        for worker in await running_workers(connection, running_lock)
        if worker.versions != code
    ]
    if others:
        raise VersionMismatch(
            f"a Steady of another version runs on this database ({describe_workers(others)});"
            f" this worker is {code}. Workers of different versions misread each other's"
            f" rows: {UPGRADE_HINT}"
        )
