"""`steady restore PATH`: a backup made by `steady backup` put in place, checked first
and after.

A database already in place is never overwritten silently: without `--replace` the
restore refuses and says what is there; with it, the database (and its key file) are
renamed aside with the time in their names, never deleted. Never while Steady runs on
it: the restore holds the same lock a running Steady holds.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from bot.config import Settings, decode_key
from bot.operations.backup import check_dump
from bot.operations.backup_files import (
    DATABASE_COPY,
    POSTGRES_DUMP,
    read_key_copy,
    reported,
    write_private,
)
from bot.storage.copies import OperationError, check_sqlite_copy
from bot.storage.data_folder import prepare_data_folder
from bot.storage.key_rotation import sync_folder
from bot.storage.process_lock import AlreadyRunningError, ProcessLock


def run_restore(settings: Settings, folder: Path, replace: bool = False) -> int:
    return reported(lambda: restore(settings, folder, replace), "restore refused")


def restore(settings: Settings, folder: Path, replace: bool = False) -> list[str]:
    if not folder.is_dir():
        raise OperationError(f"{folder} is not a folder made by `steady backup`")
    key_text = read_key_copy(folder)
    if settings.encryption_key is not None and decode_key(settings.encryption_key) != decode_key(
        key_text
    ):
        raise OperationError(
            f"STEADY_ENCRYPTION_KEY is not the key of this backup; set it to the key in"
            f" {folder / 'steady.key'}, or unset it to have the key file written"
        )
    if settings.database_url is not None:
        return _restore_postgres(settings, folder, key_text)
    if not (folder / DATABASE_COPY).is_file():
        kind = "a PostgreSQL backup" if (folder / POSTGRES_DUMP).is_file() else "not a backup"
        raise OperationError(f"{folder} is {kind} of a SQLite database (no {DATABASE_COPY})")
    checked = check_sqlite_copy(folder / DATABASE_COPY, key_text)
    target = settings.database_file
    prepare_data_folder(settings.data_dir)
    prepare_data_folder(target.parent)
    lock = ProcessLock(target)
    try:
        lock.acquire()
    except AlreadyRunningError:
        raise OperationError(f"Steady is running on {target}; stop it first") from None
    try:
        done = _put_in_place(settings, folder / DATABASE_COPY, key_text, replace)
        after = check_sqlite_copy(target, key_text)
    finally:
        lock.release()
    return [
        f"steady: checked {folder / DATABASE_COPY}: {checked.describe()}.",
        *done,
        f"steady: restored into {target}: {after.describe()}. Start Steady as usual.",
    ]


def _put_in_place(settings: Settings, copy: Path, key_text: str, replace: bool) -> list[str]:
    target = settings.database_file
    in_the_way = [
        path for path in (target, _beside(target, "-wal"), _beside(target, "-shm")) if path.exists()
    ]
    key_differs = (
        settings.encryption_key is None
        and settings.key_file.exists()
        and settings.key_file.read_text("ascii").strip() != key_text
    )
    if (in_the_way or key_differs) and not replace:
        there = target if in_the_way else settings.key_file
        raise OperationError(
            f"{there} is already there and would be replaced; nothing was changed. Stop"
            " Steady and run `steady restore --replace` to put the backup in its place"
            " (what is there now is renamed aside, not deleted)"
        )
    done = []
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    if in_the_way:
        aside = _beside(target, f".replaced-{stamp}")
        for path in in_the_way:  # -wal and -shm follow the file, so the pair stays whole
            os.replace(path, _beside(aside, path.name.removeprefix(target.name)))
        done.append(f"steady: the database that was there is kept as {aside}.")
    if key_differs:
        aside_key = _beside(settings.key_file, f".replaced-{stamp}")
        os.replace(settings.key_file, aside_key)
        done.append(f"steady: the key that was there is kept as {aside_key}.")
    incoming = _beside(target, ".restoring")
    incoming.unlink(missing_ok=True)  # left by a restore that was stopped half-way
    incoming.touch(mode=0o600)
    shutil.copyfile(copy, incoming)
    with incoming.open("rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(incoming, target)
    if settings.encryption_key is None and not settings.key_file.exists():
        write_private(settings.key_file, key_text + "\n")
        done.append(f"steady: the backup's key is now {settings.key_file} (mode 0600).")
    sync_folder(target.parent)
    sync_folder(settings.key_file.parent)
    return done


def _beside(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _restore_postgres(settings: Settings, folder: Path, key_text: str) -> list[str]:
    # Imported here: a SQLite install never loads the PostgreSQL driver.
    from bot.storage.postgres_target import (  # noqa: PLC0415
        check_key_and_count_users,
        tables_present,
    )

    assert settings.database_url is not None
    url = settings.database_url
    dump = folder / POSTGRES_DUMP
    if not dump.is_file():
        raise OperationError(f"{folder} holds no {POSTGRES_DUMP}: not a PostgreSQL backup")
    checked = check_dump(dump)
    key_file = settings.key_file
    if (
        settings.encryption_key is None
        and key_file.exists()
        and key_file.read_text("ascii").strip() != key_text
    ):
        raise OperationError(
            f"{key_file} is another key than the backup's; nothing was changed. Move it"
            " aside (keep it: it may open another database), then run this again"
        )
    present = asyncio.run(tables_present(url))
    if present:
        raise OperationError(
            f"the PostgreSQL database is not empty (it has {len(present)} tables, such as"
            f" {present[0]}); restore into a new database (CREATE DATABASE), so nothing"
            " there is overwritten"
        )
    pg_restore = shutil.which("pg_restore")
    assert pg_restore is not None  # check_dump needed it
    done = subprocess.run(
        [pg_restore, "--no-owner", "--exit-on-error", "--single-transaction",
         f"--dbname={url}", str(dump)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        reason = next((line for line in done.stderr.splitlines() if line.strip()), "")
        raise OperationError(f"pg_restore failed, nothing was restored: {reason}")
    users = asyncio.run(check_key_and_count_users(url, key_text))
    lines = [f"steady: checked {dump}: {checked}."]
    if settings.encryption_key is None and not settings.key_file.exists():
        prepare_data_folder(settings.data_dir)
        write_private(settings.key_file, key_text + "\n")
        lines.append(f"steady: the backup's key is now {settings.key_file} (mode 0600).")
    lines.append(
        f"steady: restored into the PostgreSQL database: {users} user(s), the key opens it."
    )
    return lines
