"""A running worker as PostgreSQL sees one, without running it: its versions declared
and the running lock held shared, for as long as its connection stays open."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

from bot.storage.postgres import RUNNING_LOCK
from bot.storage.versions import VERSION_LOCK_CLASS, Versions


@asynccontextmanager
async def another_worker(url: str, versions: Versions | None) -> AsyncIterator[None]:
    """`versions` None: a Steady from before versions were declared."""
    connection = await asyncpg.connect(url)
    try:
        if versions is not None:
            await connection.execute(
                "SELECT pg_advisory_lock_shared($1, $2)", VERSION_LOCK_CLASS, versions.lock_key
            )
        await connection.execute("SELECT pg_advisory_lock_shared($1)", RUNNING_LOCK)
        yield
    finally:
        await connection.close()
