"""`steady doctor` on a real PostgreSQL: the server's version, the role's privileges, the
pool against max_connections, the workers running on it now, and set-ups broken one way
at a time."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import asyncpg
import pytest

from bot.operations.doctor import CHECKS
from bot.storage.versions import ROW_FORMAT, Versions, this_code
from tests.helpers.configured_postgres import own_postgres
from tests.helpers.doctor import Report, doctor, platforms, started_once
from tests.helpers.ports import free_port
from tests.helpers.postgres_server import scratch_database
from tests.helpers.postgres_workers import another_worker
from tests.helpers.tools import tool

pytestmark = pytest.mark.postgres_only


@pytest.fixture
def server() -> str:
    url = os.environ.get("STEADY_TEST_POSTGRES_URL")
    assert url, "postgres_only tests run only with STEADY_TEST_POSTGRES_URL"
    return url


@pytest.fixture
async def database(server: str) -> AsyncIterator[str]:
    async with scratch_database(server) as url:
        yield url


async def started(tmp_path: Path, url: str) -> Path:
    """A database a first start migrated, its key in the data folder, one user."""
    data = tmp_path / "data"
    started_once(data, STEADY_DATABASE_URL=url)
    return data


async def _execute(url: str, *statements: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        for statement in statements:
            await connection.execute(statement)
    finally:
        await connection.close()


async def test_a_ready_set_up_on_postgresql_passes_one_line_each(
    tmp_path: Path, database: str
) -> None:
    data = await started(tmp_path, database)
    async with platforms() as env:
        report = await doctor(data, "--workers", "3", STEADY_DATABASE_URL=database, **env)
    assert report.code == 0, report.stdout
    assert list(report.lines) == list(CHECKS)
    said = report.said("database")
    assert said.startswith("PostgreSQL 1") and said.endswith("SSL off")
    assert "postgres@" not in report.stdout  # the address's user (or password) never shows
    assert report.status("privileges") == "ok"
    assert report.status("disk") == "skip"
    assert report.said("pool").startswith("3 workers x ")
    assert " of the " in report.said("pool")
    assert report.said("clock").startswith("within ")
    assert report.said("key matches the database") == "the key opens the database's key check"


async def _stale_schema(url: str, data: Path) -> list[str]:
    await _execute(url, "UPDATE schema_version SET version = 12")
    return []


async def _key_of_another_database(url: str, data: Path) -> list[str]:
    other = data.parent / "other"
    started_once(other)  # a SQLite Steady's key, copied over by mistake
    (data / "steady.key").write_bytes((other / "steady.key").read_bytes())
    return []


async def _newer_rows(url: str, data: Path) -> list[str]:
    await _execute(
        url,
        "UPDATE meta SET value = convert_to('" + str(ROW_FORMAT + 7) + "', 'UTF8')"
        " WHERE key = 'row_format'",
    )
    return []


async def _too_many_workers(url: str, data: Path) -> list[str]:
    return ["--workers", "1000"]  # the shared test server allows 1000 connections


Breaking = Callable[[str, Path], Awaitable[list[str]]]
BROKEN: dict[str, tuple[Breaking, str, str]] = {
    "a database migrations have not reached": (
        _stale_schema,
        "migrations",
        "the database is at schema 12",
    ),
    "the key of another database": (
        _key_of_another_database,
        "key matches the database",
        "this key does not open the database",
    ),
    "rows of a newer format": (_newer_rows, "versions", f"rows of row format {ROW_FORMAT + 7}"),
    "more workers than max_connections allows": (
        _too_many_workers,
        "pool",
        "raise max_connections to at least",
    ),
}


@pytest.mark.parametrize("broken", list(BROKEN))
async def test_each_broken_postgresql_set_up_fails_its_own_line(
    tmp_path: Path, database: str, broken: str
) -> None:
    data = await started(tmp_path, database)
    breaking, check, words = BROKEN[broken]
    args = await breaking(database, data)
    report = await doctor(data, *args, STEADY_DATABASE_URL=database)
    assert report.code == 1, report.stdout
    assert report.failed() == [check], report.stdout
    assert words in report.said(check)


async def test_workers_running_now_are_counted_and_another_version_fails(
    tmp_path: Path, database: str
) -> None:
    data = await started(tmp_path, database)
    async with another_worker(database, this_code()):
        same = await doctor(data, STEADY_DATABASE_URL=database)
        older = Versions(this_code().schema, ROW_FORMAT - 1)
        async with another_worker(database, older):
            mixed = await doctor(data, STEADY_DATABASE_URL=database)
    assert same.code == 0, same.stdout
    assert same.said("versions").endswith(f"1 worker of {this_code()} running now")
    assert mixed.failed() == ["versions"]
    assert f"1 worker of {older} run on this database now" in mixed.said("versions")
    assert "stop every worker, then start this version alone" in mixed.said("versions")


async def test_an_unreachable_server_fails_once_and_skips_what_needs_it(tmp_path: Path) -> None:
    url = f"postgresql://steady:hunter2@127.0.0.1:{free_port()}/steady"
    report = await doctor(tmp_path / "data", STEADY_DATABASE_URL=url)
    assert report.code == 1
    assert report.failed() == ["database"]
    assert report.said("database").startswith("cannot connect to PostgreSQL at 127.0.0.1:")
    assert "hunter2" not in report.stdout
    for check in ("privileges", "migrations", "versions", "key matches the database", "pool"):
        assert report.status(check) == "skip", report.stdout


async def test_a_role_that_may_not_create_tables_fails_privileges(
    tmp_path: Path, server: str, database: str
) -> None:
    role = f"steady_doctor_{uuid.uuid4().hex[:12]}"
    await _execute(
        database,
        f"CREATE ROLE {role} LOGIN",
        "REVOKE CREATE ON SCHEMA public FROM PUBLIC",  # as PostgreSQL 15 has it by default
    )
    try:
        url = database.replace("postgres@", f"{role}@", 1)
        report: Report = await doctor(tmp_path / "data", STEADY_DATABASE_URL=url)
    finally:
        await _execute(server, f"DROP ROLE {role}")
    assert report.code == 1
    assert report.failed() == ["privileges"], report.stdout
    assert "CREATE DATABASE steady OWNER steady" in report.said("privileges")
    assert report.said("migrations").startswith("an empty database")


def _certificate(folder: Path) -> dict[str, bytes]:
    """A throwaway self-signed certificate for the server, made by openssl."""
    subprocess.run(
        [tool("openssl"), "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-keyout", str(folder / "server.key"),
         "-out", str(folder / "server.crt")],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    return {name: (folder / name).read_bytes() for name in ("server.crt", "server.key")}


async def test_an_encrypted_connection_is_reported_as_such(tmp_path: Path) -> None:
    with own_postgres("ssl=on", files=_certificate(tmp_path)) as own:
        encrypted = await doctor(
            tmp_path / "data", STEADY_DATABASE_URL=own.url + "?sslmode=require"
        )
        plain = await doctor(tmp_path / "data", STEADY_DATABASE_URL=own.url + "?sslmode=disable")
    assert encrypted.code == 0, encrypted.stdout
    assert encrypted.said("database").endswith(", SSL on")
    assert plain.said("database").endswith(", SSL off")  # on this machine: not a failure
    assert plain.code == 0, plain.stdout
