"""Versions that refuse to mix: each worker records its schema and row format, and one
that would misread another's rows refuses to start with one line (exit 2)."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

import asyncpg
import pytest

from bot.config import Settings
from bot.delivery import reply_codec
from bot.flows.context import Services
from bot.storage.opening import opened_database
from bot.storage.outbox_rows import OutboxRow
from bot.storage.postgres import RUNNING_LOCK
from bot.storage.versions import (
    ROW_FORMAT,
    VersionMismatch,
    Versions,
    recorded_row_format,
    running_workers,
    this_code,
)
from tests.helpers.postgres_workers import another_worker
from tests.helpers.processes import steady

# What the outbox's row format is made of: its columns and the reply codec's keys. When
# this changes, a row written by this code may be misread by the last release (or the
# other way round): raise ROW_FORMAT in bot/storage/versions.py (with a line in its
# history) and record the new fingerprint.
FINGERPRINTS = {2: "b664a2695f051888"}


def row_format_fingerprint() -> str:
    parts = [
        ",".join(OutboxRow._fields),
        ",".join(sorted(reply_codec._KNOWN)),
        ",".join(reply_codec._FLAGS),
    ]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def test_the_row_format_is_raised_whenever_the_rows_change_shape() -> None:
    assert FINGERPRINTS.get(ROW_FORMAT) == row_format_fingerprint(), (
        "the outbox's rows (OutboxRow, reply_codec, Reply) changed: raise ROW_FORMAT in"
        " bot/storage/versions.py and record the new fingerprint in FINGERPRINTS"
    )


def test_versions_travel_as_one_lock_key() -> None:
    versions = Versions(16, 2)
    assert Versions.from_lock_key(versions.lock_key) == versions
    assert this_code().row_format == ROW_FORMAT


async def test_a_worker_records_the_row_format_it_writes(services: Services) -> None:
    assert await recorded_row_format(services.db) == ROW_FORMAT


def _write_row_format(path: Path, row_format: int) -> None:
    with sqlite3.connect(path) as raw:
        raw.execute(
            "INSERT INTO meta (key, value) VALUES ('row_format', ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(row_format).encode(),),
        )


def test_an_older_version_refuses_a_database_a_newer_one_wrote(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = steady(["console"], data, "/start\n")
    assert first.returncode == 0, first.stderr
    _write_row_format(data / "steady.db", ROW_FORMAT + 1)
    again = steady(["console"], data, "/help\n")
    assert again.returncode == 2
    [line] = again.stderr.strip().splitlines()
    assert line.startswith(f"steady: this database holds rows of row format {ROW_FORMAT + 1}")
    assert "Upgrading" in line


OLDER = Versions(this_code().schema, ROW_FORMAT - 1)


@pytest.mark.postgres_only
@pytest.mark.parametrize(
    ("versions", "said"),
    [
        (OLDER, f"1 worker of {OLDER}"),
        (Versions(this_code().schema + 1, ROW_FORMAT), f"of schema {this_code().schema + 1}"),
        (None, "1 worker from before versions were recorded"),
    ],
)
async def test_a_worker_refuses_to_start_beside_one_of_another_version(
    settings: Settings, database_url: str | None, versions: Versions | None, said: str
) -> None:
    assert database_url is not None
    async with another_worker(database_url, versions):
        with pytest.raises(VersionMismatch, match=said):
            async with opened_database(settings):
                pass


@pytest.mark.postgres_only
async def test_workers_of_one_version_run_side_by_side_and_see_each_other(
    settings: Settings, database_url: str | None
) -> None:
    assert database_url is not None
    async with opened_database(settings), opened_database(settings):
        connection = await asyncpg.connect(database_url)
        try:
            workers = await running_workers(connection, RUNNING_LOCK)
        finally:
            await connection.close()
    assert [worker.versions for worker in workers] == [this_code(), this_code()]


@pytest.mark.postgres_only
async def test_the_refusal_is_one_line_and_exit_2_and_changes_nothing(
    tmp_path: Path, database_url: str | None
) -> None:
    assert database_url is not None
    async with another_worker(database_url, OLDER):
        result = await asyncio.to_thread(
            steady, ["console"], tmp_path / "data", "/start\n", STEADY_DATABASE_URL=database_url
        )
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("steady: a Steady of another version runs on this database")
    assert "stop every worker, then start this version alone" in line
    connection = await asyncpg.connect(database_url)
    try:
        assert await connection.fetchval("SELECT count(*) FROM users") == 0
    finally:
        await connection.close()


@pytest.mark.postgres_only
async def test_an_older_version_refuses_a_postgresql_database_a_newer_one_wrote(
    tmp_path: Path, database_url: str | None
) -> None:
    assert database_url is not None
    data = tmp_path / "data"
    first = await asyncio.to_thread(
        steady, ["console"], data, "/start\n", STEADY_DATABASE_URL=database_url
    )
    assert first.returncode == 0, first.stderr
    connection = await asyncpg.connect(database_url)
    try:
        await connection.execute(
            "UPDATE meta SET value = $1 WHERE key = 'row_format'", str(ROW_FORMAT + 1).encode()
        )
    finally:
        await connection.close()
    again = await asyncio.to_thread(
        steady, ["console"], data, "/help\n", STEADY_DATABASE_URL=database_url
    )
    assert again.returncode == 2
    [line] = again.stderr.strip().splitlines()
    assert line.startswith(f"steady: this database holds rows of row format {ROW_FORMAT + 1}")
    assert "Start the newer version again (README: Upgrading)" in line
