"""The PostgreSQL server the tests may use: STEADY_TEST_POSTGRES_URL (`.ci/run` starts one).

Without it the PostgreSQL half of the suite is skipped with one reason, unless
STEADY_TEST_REQUIRE_POSTGRES is set (as in CI), where a missing server is a failure.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest

URL_SETTING = "STEADY_TEST_POSTGRES_URL"
REQUIRED_SETTING = "STEADY_TEST_REQUIRE_POSTGRES"
SKIP_REASON = f"no PostgreSQL for the tests: set {URL_SETTING} (.ci/run starts one)"


def server_url() -> str:
    """The server's URL, or the test is skipped (failed where a server is required)."""
    url = os.environ.get(URL_SETTING)
    if url:
        return url
    if os.environ.get(REQUIRED_SETTING):
        pytest.fail(f"{REQUIRED_SETTING} is set but {URL_SETTING} is not")
    pytest.skip(SKIP_REASON)


def database_url(server: str, name: str) -> str:
    """`server`'s URL with its database name replaced by `name`."""
    base, _, _ = server.rpartition("/")
    return f"{base}/{name}"


@asynccontextmanager
async def scratch_database(server: str, template: str | None = None) -> AsyncIterator[str]:
    """A new, empty database on `server` (or a copy of `template`), dropped afterwards
    with whatever is still connected to it."""
    name = f"steady_test_{uuid.uuid4().hex[:16]}"
    admin = await asyncpg.connect(server)
    try:
        copy = f" TEMPLATE {template}" if template else ""
        await admin.execute(f"CREATE DATABASE {name}{copy}")
    finally:
        await admin.close()
    try:
        yield database_url(server, name)
    finally:
        admin = await asyncpg.connect(server)
        try:
            await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        finally:
            await admin.close()
