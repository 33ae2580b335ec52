"""What a backup folder holds, and the checks that make a copy worth calling a backup.

A backup made by `steady backup PATH` is a folder:

- `steady.db`: SQLite's database, copied with SQLite's online backup API; or
- `steady.pgdump`: PostgreSQL's database, `pg_dump --format=custom`;
- `steady.key`: the key that opens the sealed text of either (mode 0600).

A copy is checked before anyone is told it is done: SQLite's file is opened read-only,
its integrity checked, its schema version read, and the key must open both the
database's key check and a sealed value (if it holds any); a dump's table of contents
must list Steady's tables.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.config import Settings, decode_key
from bot.storage.crypto import TextCipher, WrongKeyError
from bot.storage.data_folder import DataFolderError
from bot.storage.key_rotation import SEALED_COLUMNS, Binding
from bot.storage.migrations import MigrationError
from bot.storage.versions import this_code

DATABASE_COPY = "steady.db"
POSTGRES_DUMP = "steady.pgdump"
KEY_COPY = "steady.key"
EXIT_REFUSED = 2


class OperationError(Exception):
    """The operation cannot be done, or its result failed a check. One line for the
    operator; nothing was changed that the message does not name."""


@dataclass(frozen=True, slots=True)
class CheckedCopy:
    """What the checks of a SQLite copy found."""

    schema: int
    users: int
    sealed_opened: str | None  # which sealed value the key opened; None: there is none

    def describe(self) -> str:
        current = this_code().schema
        schema = (
            f"schema {self.schema}"
            if self.schema == current
            else f"schema {self.schema} (this version migrates it to {current} when it starts)"
        )
        sealed = (
            f"the key opens the key check and a sealed {self.sealed_opened}"
            if self.sealed_opened
            else "the key opens the key check (no sealed text stored yet)"
        )
        return f"integrity ok, {schema}, {self.users} user(s), {sealed}"


def reported(work: Callable[[], list[str]], failure: str) -> int:
    """Run an operation for the command line: what it did on stdout and exit 0, or one
    line `steady: <failure>: <why>.` on stderr and exit 2."""
    try:
        lines = work()
    except (OperationError, DataFolderError, MigrationError) as error:
        print(f"steady: {failure}: {error}.", file=sys.stderr)
        return EXIT_REFUSED
    for line in lines:
        print(line)
    return 0


def configured_key(settings: Settings) -> str:
    """The key text Steady would use: STEADY_ENCRYPTION_KEY, else the key file."""
    if settings.encryption_key is not None:
        return settings.encryption_key.strip()
    if not settings.key_file.exists():
        raise OperationError(
            f"there is no key: STEADY_ENCRYPTION_KEY is not set and {settings.key_file}"
            " does not exist, so no sealed text of this database could be opened"
        )
    text = settings.key_file.read_text("ascii").strip()
    try:
        decode_key(text)
    except ValueError:
        raise OperationError(f"{settings.key_file} does not hold a key") from None
    return text


def read_key_copy(folder: Path) -> str:
    path = folder / KEY_COPY
    if not path.is_file():
        raise OperationError(f"{path} is missing: a backup without its key cannot be opened")
    text = path.read_text("ascii").strip()
    try:
        decode_key(text)
    except ValueError:
        raise OperationError(f"{path} does not hold a key") from None
    return text


def write_private(path: Path, data: str) -> None:
    """Write a new file only its owner may read, and make sure it is on disk."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(descriptor, data.encode("ascii"))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def check_sqlite_copy(path: Path, key_text: str) -> CheckedCopy:
    """Open the copy read-only and check it; OperationError with what failed."""
    if not path.is_file():
        raise OperationError(f"{path} is missing")
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise OperationError(f"{path} cannot be opened: {error}") from None
    try:
        return _checked(connection, path, TextCipher(decode_key(key_text)))
    except sqlite3.DatabaseError as error:
        raise OperationError(f"{path} is not a readable database: {error}") from None
    finally:
        connection.close()


def _checked(connection: sqlite3.Connection, path: Path, cipher: TextCipher) -> CheckedCopy:
    problems = [str(row[0]) for row in connection.execute("PRAGMA integrity_check")]
    if problems != ["ok"]:
        raise OperationError(f"{path} failed SQLite's integrity check: {problems[0]}")
    schema = int(connection.execute("PRAGMA user_version").fetchone()[0])
    current = this_code().schema
    if schema < 1 or schema > current:
        newer = "newer than this version of Steady" if schema > current else "empty"
        raise OperationError(f"{path} is at schema version {schema}: {newer}")
    check = connection.execute("SELECT value FROM meta WHERE key = 'key_check'").fetchone()
    if check is None:
        raise OperationError(f"{path} holds no key check: Steady has never started on it")
    try:
        cipher.verify_check_value(bytes(check[0]))
        opened = _open_one_sealed(connection, cipher)
    except WrongKeyError:
        raise OperationError(f"the key does not open {path}") from None
    users = int(connection.execute("SELECT count(*) FROM users").fetchone()[0])
    return CheckedCopy(schema, users, opened)


def _open_one_sealed(connection: sqlite3.Connection, cipher: TextCipher) -> str | None:
    """Decrypt one stored value, if there is one: the key check alone would not show a
    database whose texts were sealed under another key (say, copied in by hand)."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    for sealed in SEALED_COLUMNS:
        if sealed.table not in tables:
            continue
        row = connection.execute(
            f"SELECT {sealed.owner}, {sealed.column} FROM {sealed.table}"
            f" WHERE {sealed.column} IS NOT NULL LIMIT 1"
        ).fetchone()
        if row is None:
            continue
        owner, blob = int(row[0]), bytes(row[1])
        if sealed.binding is Binding.USER:
            cipher.decrypt(blob, owner)
        else:
            cipher.decrypt_for_reminder(blob, owner)
        return f"{sealed.table}.{sealed.column}"
    return None
