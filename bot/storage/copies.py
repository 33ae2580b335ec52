"""A SQLite copy made and checked: for `steady backup`, `restore` and `migrate`.

The copy is made with SQLite's online backup API, and checked before anyone is told it
is done: opened read-only, its integrity checked, its schema version read, and the key
must open both the database's key check and a sealed value (if it holds any).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.config import decode_key
from bot.storage.crypto import TextCipher, WrongKeyError
from bot.storage.key_rotation import SEALED_COLUMNS, Binding
from bot.storage.sqlite_connections import BUSY_TIMEOUT_MS
from bot.storage.versions import this_code


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


def online_copy(source: Path, target: Path) -> None:
    """SQLite's online backup of `source` into the new file `target` (0600), in one step:
    one read transaction, so the copy is the database as of one moment. Steady's own
    writes go on meanwhile (WAL), and a reader never blocks them."""
    target.touch(mode=0o600, exist_ok=False)
    reading = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    writing = sqlite3.connect(target)
    try:
        reading.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        reading.backup(writing)
        # One self-contained file: no -wal beside it to be forgotten when it is moved.
        writing.execute("PRAGMA journal_mode=DELETE").fetchall()
    except sqlite3.Error as error:
        target.unlink(missing_ok=True)
        raise OperationError(f"copying {source} failed: {error}") from None
    finally:
        writing.close()
        reading.close()


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
