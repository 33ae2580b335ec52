"""Facts about the database itself, such as which key it was written with."""

from __future__ import annotations

from bot.storage.crypto import TextCipher
from bot.storage.db import Database

_KEY_CHECK = "key_check"


async def has_key_check(db: Database) -> bool:
    """Has a key been used on this database already?"""
    row = await db.fetch_one("SELECT value FROM meta WHERE key = ?", (_KEY_CHECK,))
    return row is not None


async def verify_key(db: Database, cipher: TextCipher) -> None:
    """Remember which key this database uses, or raise WrongKeyError if it is another one.

    Checking up front turns a wrong key into a clear start-up error instead of
    garbage (or a crash) the first time someone asks for their notes.
    """
    row = await db.fetch_one("SELECT value FROM meta WHERE key = ?", (_KEY_CHECK,))
    if row is not None:
        cipher.verify_check_value(row["value"])
        return
    async with db.transaction() as tx:
        await tx.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
            (_KEY_CHECK, cipher.seal_check_value()),
        )
