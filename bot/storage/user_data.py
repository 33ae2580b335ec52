"""Everything stored about one user: exported on request, deleted on request."""

from __future__ import annotations

from bot.storage.db import Transaction
from bot.storage.group_reminders import forget_creator
from bot.storage.queries import Queryable

# Tables keyed by the user's row id are found from the schema itself, so a
# table added by a later migration is covered by /forget without anyone
# having to remember this function.
_TABLES_WITH_USER_ID = """
SELECT m.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c
WHERE m.type = 'table' AND c.name = 'user_id'
"""

# Group reminders belong to their group; only their creator's platform id is the user's.
_TABLES_WITH_CREATOR = """
SELECT m.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c
WHERE m.type = 'table' AND c.name = 'creator_user_id'
"""


async def tables_with_user_data(db: Queryable) -> frozenset[str]:
    """Every table that holds something of one user, read from the schema as /forget
    reads it: `users`, each table with a `user_id`, and tables naming a creator."""
    found = {"users"}
    for query in (_TABLES_WITH_USER_ID, _TABLES_WITH_CREATOR):
        found.update(str(row["name"]) for row in await db.fetch_all(query))
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
    for row in await tx.fetch_all(_TABLES_WITH_USER_ID):
        table = str(row["name"]).replace('"', '""')
        await tx.execute(f'DELETE FROM "{table}" WHERE user_id = ?', (user_id,))
    await tx.execute("DELETE FROM users WHERE id = ?", (user_id,))
