"""Everything stored about one user: exported on request, deleted on request."""

from __future__ import annotations

from bot.storage.db import Transaction
from bot.storage.group_reminders import forget_creator
from bot.storage.outbox_rows import forget_private
from bot.storage.queries import Queryable

# Tables keyed by the user's row id are found from the schema itself, so a
# table added by a later migration is covered by /forget without anyone
# having to remember this function.
_USER_ID = "user_id"
# Group reminders belong to their group; only their creator's platform id is the user's.
_CREATOR = "creator_user_id"


async def tables_with_user_data(db: Queryable) -> frozenset[str]:
    """Every table that holds something of one user, read from the schema as /forget
    reads it: `users`, each table with a `user_id`, and tables naming a creator."""
    found = {"users"}
    for column in (_USER_ID, _CREATOR):
        rows = await db.fetch_all(db.dialect.tables_with_column, (column,))
        found.update(str(row["name"]) for row in rows)
    return frozenset(found)


async def forget_user(tx: Transaction, user_id: int) -> None:
    """Delete every row that belongs to the user, in every table, in one transaction.

    Group reminders belong to their group and stay; only the admin's id leaves them.
    """
    tx.changed_user_rows()
    who = await tx.fetch_one(
        "SELECT platform, platform_user_id FROM users WHERE id = ?", (user_id,)
    )
    if who is not None:
        await forget_creator(tx, who["platform"], who["platform_user_id"])
        await forget_private(tx, who["platform"], who["platform_user_id"])
    for row in await tx.fetch_all(tx.dialect.tables_with_column, (_USER_ID,)):
        table = str(row["name"]).replace('"', '""')
        await tx.execute(f'DELETE FROM "{table}" WHERE user_id = ?', (user_id,))
    await tx.execute("DELETE FROM users WHERE id = ?", (user_id,))
