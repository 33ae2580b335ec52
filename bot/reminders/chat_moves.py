"""What follows a group chat when the platform gives it a new id (a Telegram group
upgraded to a supergroup): the people who wrote from it, and its reminders."""

from __future__ import annotations

from bot.storage import group_reminders, users
from bot.storage.batching import BatchSize
from bot.storage.db import Database, Transaction

# People moved in the first transaction; later ones are sized to a short writer hold.
FIRST_BATCH = 200


async def follow_chat_move(db: Database, platform: str, old_chat_id: str, new_chat_id: str) -> None:
    """Remember the new id, so nothing is sent into the void and the group's reminders
    carry on there. The reminders move first, in one transaction (a group has a few);
    then its people, a short transaction per batch, each found by chat through its index:
    a big group's thousand in one transaction held every other write (a reply's among
    them) for most of a tenth of a second. A move cut short is finished by the next:
    Telegram names the new id again whenever the old one is used."""

    async def move_reminders(tx: Transaction) -> None:
        await group_reminders.move_chat(tx, platform, old_chat_id, new_chat_id)

    await db.in_one_hop(move_reminders)
    size = BatchSize(rows=FIRST_BATCH)
    # The batches' pages are copied back from the write-ahead log between them, not
    # inside a COMMIT: there SQLite's own copy (with its fsync) held every other write
    # for 0.09 s in a group of 1,000 among 1,000,000 users (bench/write_lock.py).
    async with db.log_copied_aside():
        while True:
            most = size.rows

            async def move_people(tx: Transaction, most: int = most) -> int:
                return await users.move_chat(tx, platform, old_chat_id, new_chat_id, most)

            moved = await db.in_one_hop(move_people)
            if moved < most:
                return
            size.after(db.write_holds.last)
            await db.copy_log_aside()  # while other writes go on, before the next batch
