"""`steady backup PATH`: the database and its key copied into a new folder, and checked.

SQLite is copied with its online backup API, on a connection of its own: Steady may
keep running and writing meanwhile (WAL lets a reader copy a consistent state while
writes go on). PostgreSQL is dumped with `pg_dump --format=custom`, which reads one
consistent snapshot while workers run. Either way the key goes beside the copy: a
database without its key is every user's sealed text lost.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

from bot.config import Settings
from bot.operations.backup_files import (
    DATABASE_COPY,
    KEY_COPY,
    POSTGRES_DUMP,
    configured_key,
    reported,
    write_private,
)
from bot.storage.copies import OperationError, check_sqlite_copy, online_copy
from bot.storage.key_rotation import sync_folder

# Tables a dump of Steady's database must list (its table of contents is checked).
DUMPED_TABLES = ("meta", "users", "checkins", "schema_version")


def run_backup(settings: Settings, folder: Path) -> int:
    return reported(lambda: backup(settings, folder), "backup failed")


def backup(settings: Settings, folder: Path) -> list[str]:
    """Make and check the backup; what was done, a line each for the operator."""
    key_text = configured_key(settings)
    if settings.database_url is None and not settings.database_file.is_file():
        raise OperationError(f"there is no database at {settings.database_file}")
    _prepare_empty_folder(folder)
    try:
        made = _copy_database(settings, key_text, folder)
    except BaseException:
        # A copy that failed its check is no backup: nothing is left to be mistaken for one.
        for name in (DATABASE_COPY, POSTGRES_DUMP):
            (folder / name).unlink(missing_ok=True)
        raise
    write_private(folder / KEY_COPY, key_text + "\n")
    sync_folder(folder)
    return [
        f"steady: {made}.",
        f"steady: the key is in {folder / KEY_COPY} (mode 0600). Keep it with the copy, and"
        " both somewhere other than this machine: without the key the copy's notes are lost.",
        f"steady: backup done. `steady restore {folder}` puts it back.",
    ]


def _copy_database(settings: Settings, key_text: str, folder: Path) -> str:
    if settings.database_url is not None:
        return _dump_postgres(settings.database_url, key_text, folder / POSTGRES_DUMP)
    copy = folder / DATABASE_COPY
    online_copy(settings.database_file, copy)
    checked = check_sqlite_copy(copy, key_text)
    return f"copied {settings.database_file} to {copy}: {checked.describe()}"


def _prepare_empty_folder(folder: Path) -> None:
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise OperationError(f"{folder} is not an empty folder; give a new or empty one")
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise OperationError(f"cannot create {folder}: {error.strerror or error}") from None


def _dump_postgres(url: str, key_text: str, dump: Path) -> str:
    # Imported here: a SQLite install never loads the PostgreSQL driver.
    from bot.storage.postgres_target import check_key_and_count_users  # noqa: PLC0415

    asyncio.run(check_key_and_count_users(url, key_text))
    pg_dump = shutil.which("pg_dump")
    if pg_dump is None:
        raise OperationError(
            "pg_dump is not installed here (Debian: apt-get install postgresql-client);"
            f' install it, or run `pg_dump --format=custom --file={dump} "$STEADY_DATABASE_URL"`'
            " yourself and keep the key beside the dump"
        )
    done = subprocess.run(
        [pg_dump, "--format=custom", "--no-owner", f"--file={dump}", f"--dbname={url}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        dump.unlink(missing_ok=True)
        raise OperationError(f"pg_dump failed: {_first_line(done.stderr)}")
    return f"dumped the PostgreSQL database to {dump}: {check_dump(dump)}"


def check_dump(dump: Path) -> str:
    """Read the dump's table of contents back: it must be whole and list Steady's tables."""
    pg_restore = shutil.which("pg_restore")
    if pg_restore is None:
        raise OperationError("pg_restore is not installed here, so the dump cannot be checked")
    listed = subprocess.run(
        [pg_restore, "--list", str(dump)], capture_output=True, text=True, check=False
    )
    if listed.returncode != 0:
        raise OperationError(f"{dump} is not a readable dump: {_first_line(listed.stderr)}")
    entries = [line for line in listed.stdout.splitlines() if line and not line.startswith(";")]
    with_data = {_table_of(entry) for entry in entries if " TABLE DATA " in entry}
    missing = [table for table in DUMPED_TABLES if table not in with_data]
    if missing:
        raise OperationError(f"{dump} holds no data of {', '.join(missing)}")
    return f"{len(entries)} entries, the data of every table listed"


def _table_of(entry: str) -> str:
    """`215; 0 16390 TABLE DATA public users steady` -> `users`."""
    after = entry.split(" TABLE DATA ", 1)[1].split()
    return after[1] if len(after) > 1 else ""


def _first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else "no message"
