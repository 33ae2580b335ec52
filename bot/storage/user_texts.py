"""What users write for themselves: reasons and kept drafts. Always stored encrypted."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.storage.crypto import TextCipher
from bot.storage.db import Transaction
from bot.storage.queries import Queryable, from_epoch, to_epoch


class TextKind(StrEnum):
    REASON = "reasons"
    DRAFT = "drafts"


@dataclass(frozen=True, slots=True)
class UserText:
    id: int
    text: str
    created_at: datetime


async def add_text(
    tx: Transaction, cipher: TextCipher, kind: TextKind, user_id: int, text: str, now: datetime
) -> int:
    return await tx.insert(
        f"INSERT INTO {kind.value} (user_id, body, created_at) VALUES (?, ?, ?)",
        (user_id, cipher.encrypt(text, user_id), to_epoch(now)),
    )


async def list_texts(
    db: Queryable, cipher: TextCipher, kind: TextKind, user_id: int
) -> list[UserText]:
    rows = await db.fetch_all(
        f"SELECT id, body, created_at FROM {kind.value} WHERE user_id = ? ORDER BY id", (user_id,)
    )
    return [
        UserText(row["id"], cipher.decrypt(row["body"], user_id), from_epoch(row["created_at"]))
        for row in rows
    ]


async def remove_text(tx: Transaction, kind: TextKind, user_id: int, text_id: int) -> bool:
    deleted = await tx.execute(
        f"DELETE FROM {kind.value} WHERE id = ? AND user_id = ?", (text_id, user_id)
    )
    return deleted > 0
