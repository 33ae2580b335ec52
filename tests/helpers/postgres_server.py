"""An empty database of a test's own, for tests of what workers share through PostgreSQL
(advisory locks, the send budget) rather than of Steady's schema (`tests/helpers/postgres`).

Without a server (STEADY_TEST_POSTGRES_URL) these tests are skipped with the same reason
as the rest of the PostgreSQL half; where STEADY_TEST_REQUIRE_POSTGRES is set (CI) that
is a failure instead.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest

from tests.helpers.postgres import SERVER_VARIABLE, SKIP_REASON, with_database
from tests.helpers.postgres import server_url as configured_server

REQUIRED_VARIABLE = "STEADY_TEST_REQUIRE_POSTGRES"


def server_url() -> str:
    """The server's URL, or the test is skipped (failed where a server is required)."""
    url = configured_server()
    if url:
        return url
    if os.environ.get(REQUIRED_VARIABLE):
        pytest.fail(f"{REQUIRED_VARIABLE} is set but {SERVER_VARIABLE} is not")
    pytest.skip(SKIP_REASON)


@asynccontextmanager
async def scratch_database(server: str) -> AsyncIterator[str]:
    """A new, empty database on `server`, dropped afterwards with whatever is still
    connected to it."""
    name = f"steady_scratch_{uuid.uuid4().hex[:16]}"
    admin = await asyncpg.connect(server)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        yield with_database(server, name)
    finally:
        admin = await asyncpg.connect(server)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
