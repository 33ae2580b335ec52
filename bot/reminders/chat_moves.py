"""What follows a group chat when the platform gives it a new id (a Telegram group
upgraded to a supergroup): the people who wrote from it, and its reminders."""

from __future__ import annotations

from bot.storage import group_reminders, users
from bot.storage.db import Database, Transaction


async def follow_chat_move(db: Database, platform: str, old_chat_id: str, new_chat_id: str) -> None:
    """Remember the new id, so nothing is sent into the void and the group's reminders
    carry on there. One transaction: the users and the reminders move together, both
    found by chat through their indexes (not by reading every user)."""

    async def move(tx: Transaction) -> None:
        await users.move_chat(tx, platform, old_chat_id, new_chat_id)
        await group_reminders.move_chat(tx, platform, old_chat_id, new_chat_id)

    await db.in_one_hop(move)
