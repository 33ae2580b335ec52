"""What the restore and the migration ask of a PostgreSQL database before and after they
write into it: is it empty, and does the key open what is there now."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import asyncpg

from bot.config import decode_key
from bot.storage.copies import OperationError
from bot.storage.crypto import TextCipher, WrongKeyError

# Rows a fresh schema holds before anyone used it: the migrations' version, and the
# outbox's id counter (one row, `next` = 1, put there by migration 0015).
T = TypeVar("T")

_BOOKKEEPING = "schema_version"
_SEEDED = {"outbox_ids": "SELECT count(*) <> 1 OR max(next) <> 1 FROM outbox_ids"}


async def connect(url: str) -> asyncpg.Connection:
    try:
        return await asyncpg.connect(url)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        raise OperationError(f"cannot connect to PostgreSQL: {error}") from None


async def table_names(connection: asyncpg.Connection) -> list[str]:
    rows = await connection.fetch(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        " ORDER BY table_name"
    )
    return [str(row["table_name"]) for row in rows]


async def holding_rows(connection: asyncpg.Connection) -> list[str]:
    """The tables that hold rows a fresh schema would not: empty means nobody used it."""
    holding = []
    for table in await table_names(connection):
        if table == _BOOKKEEPING:
            continue
        seeded = _SEEDED.get(table)
        query = seeded or f'SELECT EXISTS (SELECT 1 FROM "{table}")'
        if await connection.fetchval(query):
            holding.append(table)
    return holding


async def tables_holding_rows(url: str) -> list[str]:
    return await _asked(url, holding_rows)


async def tables_present(url: str) -> list[str]:
    return await _asked(url, table_names)


async def _asked(url: str, question: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
    connection = await connect(url)
    try:
        return await question(connection)
    finally:
        await connection.close()


async def check_key_and_count_users(url: str, key_text: str) -> int:
    """The number of users, once the key has opened the database's key check."""
    connection = await connect(url)
    try:
        check = await connection.fetchval("SELECT value FROM meta WHERE key = 'key_check'")
        users = int(await connection.fetchval("SELECT count(*) FROM users"))
    except asyncpg.UndefinedTableError:
        raise OperationError("the database holds no Steady tables") from None
    finally:
        await connection.close()
    if check is None:
        raise OperationError("the database holds no key check: Steady has never started on it")
    try:
        TextCipher(decode_key(key_text)).verify_check_value(bytes(check))
    except WrongKeyError:
        raise OperationError("the key does not open the database") from None
    return users
