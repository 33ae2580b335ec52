"""Throwaway PostgreSQL databases for tests, on the server STEADY_TEST_POSTGRES_URL names.

The schema is migrated once per test process into a template database; each test then
gets a copy of it (CREATE DATABASE ... TEMPLATE, a file copy: milliseconds) and it is
dropped after the test. Without the variable the PostgreSQL half of the suite is
deselected, and the header of the run says so (`SKIP_REASON`).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.storage.postgres import PostgresDatabase

SERVER_VARIABLE = "STEADY_TEST_POSTGRES_URL"
SKIP_REASON = (
    f"To run it, set {SERVER_VARIABLE}=postgresql://user@host:port/db"
    " (a server where the tests may create and drop databases)."
)

T = TypeVar("T")


def server_url() -> str | None:
    return os.environ.get(SERVER_VARIABLE) or None


def with_database(url: str, name: str) -> str:
    """`url` with its database replaced by `name`."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def _run(work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run `work` on an event loop of its own: fixtures set databases up before (and tear
    them down after) the test's own loop, and may be called while one is running."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work()).result()


class ThrowawayDatabases:
    """Databases on one server, each a copy of a migrated template."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._template = f"steady_template_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        self._made = False

    async def _admin(self, sql: str) -> None:
        connection = await asyncpg.connect(self._url)
        try:
            await connection.execute(sql)
        finally:
            await connection.close()

    def _ensure_template(self) -> None:
        if self._made:
            return

        async def make() -> None:
            await self._admin(f'CREATE DATABASE "{self._template}"')
            db = await PostgresDatabase.connect(with_database(self._url, self._template))
            await db.close()

        _run(make)
        self._made = True

    def fresh(self) -> tuple[str, str]:
        """(name, url) of a new database holding the migrated schema and nothing else."""
        self._ensure_template()
        name = f"steady_test_{uuid.uuid4().hex[:12]}"
        _run(
            lambda: self._admin(
                f'CREATE DATABASE "{name}" TEMPLATE "{self._template}" STRATEGY FILE_COPY'
            )
        )
        return name, with_database(self._url, name)

    def empty(self) -> tuple[str, str]:
        """(name, url) of a new database without even the schema (for migration tests)."""
        name = f"steady_test_{uuid.uuid4().hex[:12]}"
        _run(lambda: self._admin(f'CREATE DATABASE "{name}"'))
        return name, with_database(self._url, name)

    def drop(self, name: str) -> None:
        _run(lambda: self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def close(self) -> None:
        if self._made:
            self.drop(self._template)
