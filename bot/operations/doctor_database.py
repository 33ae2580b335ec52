"""The doctor's database checks: reachable, its version, privileges, disk, migrations,
versions of the rows and of running workers, the key, the pool against max_connections
and the clock.

Nothing here writes: no migration runs, no key is made, no lock is taken.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

from bot.config import Settings
from bot.core.clock import Clock
from bot.operations.doctor_key import key_findings
from bot.operations.report import Finding, failed, ok, size, skipped
from bot.storage.inspection import (
    CONNECT_TIMEOUT_SECONDS,
    ServerFacts,
    StoredFacts,
    sqlite_facts,
    sqlite_library_version,
)
from bot.storage.opening import database_name
from bot.storage.versions import UPGRADE_HINT, describe_workers, this_code

# SQLite needs room to grow, and a backup or VACUUM needs as much again as the file.
LEAST_FREE_BYTES = 256 * 1000 * 1000
# Workers compare due times and leases with their own clocks; a few seconds apart is
# harmless, more starts to move check-ins and take-overs.
CLOCK_TOLERANCE = timedelta(seconds=5)
# A time written by the bot further ahead than this means the clock went back since.
STORED_TIME_TOLERANCE = timedelta(minutes=5)
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", ""})


@dataclass(frozen=True, slots=True)
class Opened:
    """What was read: the database's facts (None: nothing there yet), and the server's."""

    stored: StoredFacts | None
    server: ServerFacts | None = None
    skew: timedelta | None = None  # the server's clock minus this machine's


async def database_findings(settings: Settings, workers: int, clock: Clock) -> list[Finding]:
    """The lines from "database" to "clock" (DATABASE_CHECKS), the same on both backends:
    what does not apply to one says so as a skipped line."""
    if settings.database_url is None:
        found, opened = await _sqlite(settings)
    else:
        found, opened = await _postgres(settings, workers, clock)
    if opened is None:
        reason = "the database could not be read"
        return [
            *found,
            *(skipped(check, reason) for check in ("migrations", "versions")),
            *key_findings(settings, None, reachable=False),
            skipped("pool", reason),
            skipped("clock", reason),
        ]
    return [
        *found,
        _migrations(opened.stored),
        _versions(opened),
        *key_findings(settings, opened.stored, reachable=True),
        _pool(settings, opened.server, workers),
        _clock(opened, clock.now()),
    ]


async def _sqlite(settings: Settings) -> tuple[list[Finding], Opened | None]:
    """The database, privileges and disk lines, and what was read (None: unreadable)."""
    path = settings.database_file
    room = [_writable(path), _disk(path)]
    if not path.exists():
        return [ok("database", f"no database yet at {path}: the first start creates it"), *room], (
            Opened(None)
        )
    try:
        stored = await asyncio.to_thread(sqlite_facts, path)
    except sqlite3.Error as error:
        return [failed("database", f"{path} cannot be read as SQLite ({error})"), *room], None
    used = _file_size(path) + _file_size(path.with_name(path.name + "-wal"))
    detail = f"SQLite {sqlite_library_version()}, {path} ({size(used)})"
    return [ok("database", detail), *room], Opened(stored)


def _writable(path: Path) -> Finding:
    """SQLite's privileges: this user may write the database and the folder it is in
    (its journal and lock files are made beside it)."""
    folder = _nearest_folder(path)
    for place in (folder, path):
        if place.exists() and not os.access(place, os.W_OK):
            return failed(
                "privileges",
                f"this user may not write {place}: run Steady as its owner, or chown the"
                f" data folder to this user",
            )
    return ok("privileges", f"this user may write {folder}")


async def _postgres(
    settings: Settings, workers: int, clock: Clock
) -> tuple[list[Finding], Opened | None]:
    import asyncpg  # noqa: PLC0415 - only a PostgreSQL set-up loads the driver

    from bot.storage.inspection import postgres_facts  # noqa: PLC0415

    assert settings.database_url is not None
    where = database_name(settings)
    disk = skipped("disk", "PostgreSQL: the database server's disk is watched there")
    try:
        connection = await asyncpg.connect(settings.database_url, timeout=CONNECT_TIMEOUT_SECONDS)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        return [
            failed("database", f"cannot connect to {where} ({_reason(error)})"),
            skipped("privileges", "the database could not be reached"),
            disk,
        ], None
    try:
        before = clock.now()
        stored, server = await postgres_facts(connection)
        after = clock.now()
    except (asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        # Reached, but not readable as this role: Steady could not run on it either.
        return [
            failed("database", f"{where} cannot be read by this role ({_reason(error)})"),
            skipped("privileges", "the database could not be read"),
            disk,
        ], None
    finally:
        await connection.close()
    skew = server.now - (before + (after - before) / 2)
    host = urlsplit(settings.database_url).hostname or ""
    encrypted = "SSL on" if server.ssl else "SSL off"
    detail = f"PostgreSQL {server.version} at {where.removeprefix('PostgreSQL at ')}, {encrypted}"
    found = [
        ok("database", detail)
        if server.ssl or host in _LOOPBACK or host.startswith("/")
        else failed(
            "database",
            f"{detail}: the connection to another machine is not encrypted;"
            " add ?sslmode=require (or verify-full) to STEADY_DATABASE_URL",
        ),
        ok("privileges", "the role may create tables in its schema (migrations need it)")
        if server.can_create
        else failed(
            "privileges",
            "the role may not create tables in its schema, so migrations would fail: make it"
            " the database's owner (CREATE DATABASE steady OWNER steady)",
        ),
        disk,
    ]
    return found, Opened(stored if stored.schema else None, server, skew)


def _reason(error: BaseException) -> str:
    """Why a connection failed, without the address (which may hold a password)."""
    if isinstance(error, TimeoutError):
        return f"no answer within {CONNECT_TIMEOUT_SECONDS:g} s"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text.rstrip(".")


def _migrations(stored: StoredFacts | None) -> Finding:
    code = this_code().schema
    if stored is None:
        return ok("migrations", f"an empty database: the first start creates schema {code}")
    if stored.schema == code:
        return ok("migrations", f"schema {code}, as this version expects")
    if stored.schema > code:
        return failed(
            "migrations",
            f"the database is at schema {stored.schema}, newer than this version ({code}):"
            " run the newer version",
        )
    return failed(
        "migrations",
        f"the database is at schema {stored.schema}, this version at {code}: stop every"
        " worker, back it up (steady backup), then start this version alone; it migrates"
        " as it starts (README: Upgrading)",
    )


def _versions(opened: Opened) -> Finding:
    code = this_code()
    stored, server = opened.stored, opened.server
    recorded = None if stored is None else stored.row_format
    if recorded is not None and recorded > code.row_format:
        return failed(
            "versions",
            f"the database holds rows of row format {recorded}, newer than this version"
            f" writes ({code.row_format}): run the newer version",
        )
    written = (
        "none recorded yet" if recorded is None else f"row format {recorded} recorded"
    ) + f"; this version is {code}"
    workers = [] if server is None else list(server.workers)
    others = [worker for worker in workers if worker.versions != code]
    if others:
        return failed(
            "versions",
            f"{written}, but {describe_workers(others)} run on this database now: {UPGRADE_HINT}",
        )
    running = f"; {describe_workers(workers)} running now" if workers else ""
    return ok("versions", written + running)


def connections_per_worker(settings: Settings) -> int:
    """What one `steady run` may open on PostgreSQL at its busiest: its pool, the
    connection beside the writer, the running hold, the turns' pool, and one per
    role it campaigns for (Telegram polling, Discord's gateway)."""
    # Imported here: they load the PostgreSQL driver.
    from bot.coordination.workers import TURN_CONNECTIONS  # noqa: PLC0415
    from bot.storage.postgres import POOL_MAX  # noqa: PLC0415

    roles = int(bool(settings.telegram.token) and settings.telegram.webhook_url is None) + int(
        bool(settings.discord.token)
    )
    return POOL_MAX + 1 + 1 + TURN_CONNECTIONS + roles


def _pool(settings: Settings, server: ServerFacts | None, workers: int) -> Finding:
    if server is None:
        return skipped("pool", "SQLite: one process, no connection limit")
    each = connections_per_worker(settings)
    needed = workers * each
    allowed = server.max_connections - server.reserved_connections
    counted = (
        f"{workers} worker{'s' if workers != 1 else ''} x {each} connections = {needed}"
        f" of the {allowed} the server allows (max_connections {server.max_connections},"
        f" {server.reserved_connections} reserved)"
    )
    in_use = f"; {server.connections_in_use} in use now"
    if needed <= allowed:
        return ok("pool", counted + in_use)
    return failed(
        "pool",
        f"{counted}: raise max_connections to at least"
        f" {needed + server.reserved_connections}, or run fewer workers{in_use}",
    )


def _nearest_folder(path: Path) -> Path:
    """The database's folder, or the nearest one above it that exists (before a first
    start the data folder may not)."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _disk(path: Path) -> Finding:
    folder = _nearest_folder(path)
    free = shutil.disk_usage(folder).free
    used = _file_size(path) + _file_size(path.with_name(path.name + "-wal"))
    needed = max(LEAST_FREE_BYTES, 2 * used)
    detail = f"{size(free)} free in {folder} (needs {size(needed)}: room to grow and a backup)"
    return ok("disk", detail) if free >= needed else failed("disk", detail)


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _clock(opened: Opened, now: datetime) -> Finding:
    if opened.skew is not None and abs(opened.skew) > CLOCK_TOLERANCE:
        ahead = "ahead of" if opened.skew > timedelta(0) else "behind"
        return failed(
            "clock",
            f"the database server's clock is {_seconds(opened.skew)} {ahead} this machine's:"
            " keep both synchronised (NTP); due times and leases compare them",
        )
    stored = opened.stored
    if stored is not None and stored.newest_stamp is not None:
        newest = datetime.fromtimestamp(stored.newest_stamp, UTC)
        if newest - now > STORED_TIME_TOLERANCE:
            return failed(
                "clock",
                f"the database holds times up to {_seconds(newest - now)} ahead of this"
                " machine's clock: it was wrong then, or is now (check NTP)",
            )
    if opened.skew is not None:
        return ok("clock", f"within {_seconds(opened.skew)} of the database server's")
    return ok("clock", "no time stored in the database is ahead of this machine's clock")


def _seconds(span: timedelta) -> str:
    seconds = abs(span.total_seconds())
    if seconds >= 120:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.1f} s" if seconds >= 0.1 else "0.1 s"
