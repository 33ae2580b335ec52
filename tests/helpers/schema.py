"""What tests read of the schema itself, on either backend."""

from __future__ import annotations

from bot.storage.queries import Queryable


async def column_names(db: Queryable, table: str) -> list[str]:
    """The table's columns, in their order."""
    if db.dialect.name == "sqlite":
        rows = await db.fetch_all("SELECT name FROM pragma_table_info(?)", (table,))
    else:
        rows = await db.fetch_all(
            "SELECT column_name AS name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = ?"
            " ORDER BY ordinal_position",
            (table,),
        )
    return [str(row["name"]) for row in rows]


def blob_type(db: Queryable) -> str:
    """The column type of bytes, for a table a test makes."""
    return "BLOB" if db.dialect.name == "sqlite" else "BYTEA"
