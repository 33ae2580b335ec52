"""`steady keys rotate`: every sealed value re-encrypted under a fresh key, in one transaction.

With the key in a file, the order makes every moment recoverable:

1. every sealed value is re-encrypted inside one database transaction, not yet committed;
2. the old key is written beside the key file (`steady.key.old`), then the new key
   replaces the key file (written to a temporary file, then renamed over it);
3. COMMIT;
4. `steady.key.old` is removed.

An error before the commit rolls the database back and puts the old key file back.
A crash (power, kill) between steps 2 and 4 leaves both files; the next rotation,
or an operator, keeps whichever of the two opens the database (`recover`).

With the key in STEADY_ENCRYPTION_KEY there is no file to write: the new key is
handed to `publish` (printed once) before the commit, so the data is never sealed
under a key nobody has seen. If publishing fails, nothing is committed.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from bot.config import Settings, decode_key
from bot.storage.crypto import TextCipher, WrongKeyError, generate_key_text
from bot.storage.db import Database, Transaction
from bot.storage.meta import verify_key
from bot.storage.opening import opened_database

BeforeCommit = Callable[[], Awaitable[None]]


class RotationError(Exception):
    """Rotation cannot start; the message is one line for the operator."""


class Binding(Enum):
    """What a ciphertext is bound to (its associated data)."""

    USER = "user"
    REMINDER = "reminder"


@dataclass(frozen=True, slots=True)
class SealedColumn:
    """A column of encrypted values; `owner` is the column the ciphertext is bound to."""

    table: str
    column: str
    owner: str
    binding: Binding
    key: tuple[str, ...] = ("id",)  # the columns that tell its rows apart


# Every column sealed with TextCipher. A new sealed column must be added here, or a
# rotation would leave it under the old key: tests/storage/test_key_rotation.py checks
# that no ciphertext of the old key is left anywhere in the database after a rotation.
SEALED_COLUMNS = (
    SealedColumn("reasons", "body", "user_id", Binding.USER),
    SealedColumn("drafts", "body", "user_id", Binding.USER),
    SealedColumn("checkins", "note", "user_id", Binding.USER),
    SealedColumn("group_reminders", "own_text", "id", Binding.REMINDER),
    SealedColumn("flow_positions", "prompt", "user_id", Binding.USER, ("user_id",)),
    SealedColumn("safety_plan_parts", "body", "user_id", Binding.USER, ("user_id", "part")),
    SealedColumn("hard_dates", "label", "user_id", Binding.USER),
    SealedColumn("outbox", "sealed_for_user", "user_id", Binding.USER),
    SealedColumn("outbox", "sealed_for_reminder", "guard_id", Binding.REMINDER),
)
# A draft waiting for "keep or let go" (bot/flows/pause.py), and a text over its limit
# waiting for "keep the first part or write it shorter" (bot/flows/overlong.py), are
# sealed inside the flow position's JSON data, base64-encoded.
SEALED_FLOW_FIELDS = ("draft", "long")


@dataclass(frozen=True, slots=True)
class Rotation:
    values: int  # sealed values re-encrypted, not counting the key check
    key_file: Path | None  # where the new key was written; None when it was published


def old_key_file(key_file: Path) -> Path:
    return key_file.with_name(key_file.name + ".old")


def _reseal(old: TextCipher, new: TextCipher, blob: bytes, owner: int, binding: Binding) -> bytes:
    if binding is Binding.USER:
        return new.encrypt(old.decrypt(blob, owner), owner)
    return new.encrypt_for_reminder(old.decrypt_for_reminder(blob, owner), owner)


async def reseal_all(tx: Transaction, old: TextCipher, new: TextCipher) -> int:
    """Re-encrypt every sealed value and the key check, in the caller's transaction.

    A value the old key cannot open raises WrongKeyError: the caller's transaction
    then rolls back and nothing is half-rotated.
    """
    tables = {row["name"] for row in await tx.fetch_all(tx.dialect.tables)}
    count = 0
    for sealed in SEALED_COLUMNS:
        if sealed.table not in tables:
            continue  # an older schema; the column's migration has not run
        keys = ", ".join(sealed.key)
        rows = await tx.fetch_all(
            f"SELECT {sealed.owner} AS owner, {sealed.column} AS blob, {keys}"
            f" FROM {sealed.table} WHERE {sealed.column} IS NOT NULL"
        )
        matches = " AND ".join(f"{column} = ?" for column in sealed.key)
        await tx.executemany(
            f"UPDATE {sealed.table} SET {sealed.column} = ? WHERE {matches}",
            [
                (
                    _reseal(old, new, row["blob"], row["owner"], sealed.binding),
                    *(row[column] for column in sealed.key),
                )
                for row in rows
            ],
        )
        count += len(rows)
    count += await _reseal_flow_data(tx, old, new)
    await tx.execute("UPDATE meta SET value = ? WHERE key = 'key_check'", (new.seal_check_value(),))
    return count


async def _reseal_flow_data(tx: Transaction, old: TextCipher, new: TextCipher) -> int:
    count = 0
    updates = []
    for row in await tx.fetch_all("SELECT user_id, data FROM flow_positions"):
        data = json.loads(row["data"])
        changed = False
        for field in SEALED_FLOW_FIELDS:
            value = data.get(field)
            if isinstance(value, str):
                plain = old.decrypt(base64.b64decode(value), row["user_id"])
                sealed = new.encrypt(plain, row["user_id"])
                data[field] = base64.b64encode(sealed).decode("ascii")
                changed = True
                count += 1
        if changed:
            updates.append((json.dumps(data, separators=(",", ":")), row["user_id"]))
    await tx.executemany("UPDATE flow_positions SET data = ? WHERE user_id = ?", updates)
    return count


async def _opens(db: Database, key_text: str) -> bool:
    try:
        await verify_key(db, TextCipher(decode_key(key_text)))
    except (WrongKeyError, ValueError):
        return False
    return True


async def recover(db: Database, key_file: Path) -> str:
    """The key text that opens `db`, settling what an interrupted rotation left behind.

    Both files present means a rotation stopped between writing the new key and
    removing the old one: whichever key opens the database is the one to keep.
    """
    old_file = old_key_file(key_file)
    current, previous = _read_key(key_file), _read_key(old_file)
    if current is not None and await _opens(db, current):
        if previous is not None:
            old_file.unlink()  # the rotation had committed; the old key opens nothing now
            sync_folder(key_file.parent)
        return current
    if previous is not None and await _opens(db, previous):
        os.replace(old_file, key_file)  # the rotation never committed: the old key is right
        sync_folder(key_file.parent)
        return previous
    raise WrongKeyError(f"no key in {key_file} opens this database")


async def rotate(
    settings: Settings,
    publish: Callable[[str], None] | None = None,
    before_commit: BeforeCommit | None = None,
) -> Rotation:
    """Rotate the key of the database in `settings`; refused while Steady runs on it.

    With STEADY_ENCRYPTION_KEY set, `publish` must be given: it receives the new key
    before the commit (and may raise to stop the rotation). `before_commit` is for
    tests that need to fail at the last moment.
    """
    if settings.encryption_key is not None and publish is None:
        raise RotationError("the key comes from STEADY_ENCRYPTION_KEY: nowhere to write it")
    if settings.database_url is None and not settings.database_file.exists():
        raise RotationError(f"there is no database at {settings.database_file}")
    # AlreadyRunningError while the bot (or another rotation) holds the database.
    async with opened_database(settings, alone=True) as db:
        return await _rotate_open(db, settings, publish, before_commit)


async def _rotate_open(
    db: Database,
    settings: Settings,
    publish: Callable[[str], None] | None,
    before_commit: BeforeCommit | None,
) -> Rotation:
    key_file = settings.key_file
    if settings.encryption_key is not None:
        old_text = settings.encryption_key.strip()
        if not await _opens(db, old_text):
            raise WrongKeyError("STEADY_ENCRYPTION_KEY does not open this database")
    elif key_file.exists() or old_key_file(key_file).exists():
        old_text = await recover(db, key_file)
    else:
        raise RotationError(f"there is no key file at {key_file}")
    old, new_text = TextCipher(decode_key(old_text)), generate_key_text()
    new = TextCipher(decode_key(new_text))
    if publish is not None:
        async with db.transaction() as tx:
            values = await reseal_all(tx, old, new)
            publish(new_text)  # seen before the commit: never data under an unseen key
            if before_commit is not None:
                await before_commit()
        return Rotation(values, None)
    old_file = old_key_file(key_file)
    committing = False
    try:
        async with db.transaction() as tx:
            values = await reseal_all(tx, old, new)
            _write_private(old_file, old_text)
            _replace_private(key_file, new_text)
            if before_commit is not None:
                await before_commit()
            committing = True
    except BaseException:
        if not committing and old_file.exists():
            os.replace(old_file, key_file)  # rolled back: the old key is the right one again
            sync_folder(key_file.parent)
        # Once the COMMIT has begun, nobody here can tell whether it landed: a
        # cancellation (Ctrl-C) can arrive while it still runs in the database's
        # thread. Both key files stay, and whichever opens the database is kept by
        # the next start or rotation (`recover`): never guess and lose the new key.
        raise
    old_file.unlink()
    sync_folder(key_file.parent)
    return Rotation(values, key_file)


def _read_key(path: Path) -> str | None:
    return path.read_text("ascii").strip() if path.exists() else None


def _write_private(path: Path, text: str) -> None:
    """Write `text` to `path`, owner-only, and make sure it is on disk."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(descriptor, 0o600)  # a file left from before keeps its mode otherwise
        os.write(descriptor, (text + "\n").encode("ascii"))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _replace_private(path: Path, text: str) -> None:
    """Replace `path` at once: a reader sees the old key or the new one, never half of one."""
    temporary = path.with_name(path.name + ".new")
    _write_private(temporary, text)
    os.replace(temporary, path)
    sync_folder(path.parent)


def sync_folder(folder: Path) -> None:
    """Make renames and removals in `folder` durable."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
