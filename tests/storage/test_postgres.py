"""PostgreSQL's own parts: its placeholders, its migrations, and a schema equal to SQLite's.

Everything else runs on PostgreSQL through the `backend` parameter of `settings`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.storage.db import SqliteDatabase
from bot.storage.migrations import POSTGRES_FOLDER, Migration, MigrationError, bundled_migrations
from bot.storage.opening import database_name
from bot.storage.placeholders import PlaceholderCache, PlaceholderError, translate
from bot.storage.postgres import PostgresDatabase, rows_changed
from bot.storage.postgres_migrations import apply_postgres_migrations, schema_version
from bot.storage.users import ensure_user, find_user
from tests.helpers.postgres import ThrowawayDatabases
from tests.helpers.waiting import until_answered

# Deselected without a server, like every PostgreSQL variant (see conftest.py).
on_postgres = pytest.mark.parametrize("backend", ["postgres"])


def test_question_marks_become_numbered_outside_quotes_and_comments() -> None:
    sql = "SELECT '?', \"a?\" FROM t WHERE a = ? AND b = '09:00' AND c = ?::json -- ?\nAND d = ?"
    assert translate(sql).text == (
        "SELECT '?', \"a?\" FROM t WHERE a = $1 AND b = '09:00' AND c = $2::json -- ?\nAND d = $3"
    )


def test_a_name_used_twice_is_one_parameter() -> None:
    cache = PlaceholderCache()
    text, args = cache.positional(
        "SELECT 1 WHERE :now > 0 AND :later > :now", {"later": 2, "now": 1}
    )
    assert text == "SELECT 1 WHERE $1 > 0 AND $2 > $1"
    assert args == [1, 2]
    with pytest.raises(PlaceholderError):
        cache.positional("SELECT :a", (1,))
    with pytest.raises(PlaceholderError):
        translate("SELECT ? WHERE :a")


def test_the_count_of_a_command_tag_is_its_last_number() -> None:
    assert [rows_changed(tag) for tag in ("INSERT 0 1", "UPDATE 3", "DELETE 0", "BEGIN")] == [
        1,
        3,
        0,
        0,
    ]


def test_both_backends_have_the_same_migrations_by_number_and_name() -> None:
    sqlite, postgres = bundled_migrations(), bundled_migrations(POSTGRES_FOLDER)
    assert [(m.version, m.name) for m in postgres] == [(m.version, m.name) for m in sqlite]


@pytest.fixture
def empty_database(postgres_databases: ThrowawayDatabases) -> Iterator[str]:
    name, url = postgres_databases.empty()
    yield url
    postgres_databases.drop(name)


async def sqlite_schema(path: Path) -> tuple[dict[str, list[str]], set[str]]:
    db = await SqliteDatabase.open(path)
    try:
        columns = {
            table: [
                str(row["name"])
                for row in await db.fetch_all("SELECT name FROM pragma_table_info(?)", (table,))
            ]
            for table in await db.table_names()
        }
        rows = await db.fetch_all(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'"
        )
        return columns, {str(row["name"]) for row in rows}
    finally:
        await db.close()


async def postgres_schema(url: str) -> tuple[dict[str, list[str]], set[str]]:
    db = await PostgresDatabase.connect(url)
    try:
        columns = {}
        for table in await db.table_names():
            rows = await db.fetch_all(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND table_name = ?"
                " ORDER BY ordinal_position",
                (table,),
            )
            columns[table] = [str(row[0]) for row in rows]
        rows = await db.fetch_all(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
            " AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key'"
        )
        return columns, {str(row[0]) for row in rows}
    finally:
        await db.close()


@on_postgres
async def test_the_migrations_make_the_same_tables_columns_and_indexes_on_both(
    backend: str, empty_database: str, tmp_path: Path
) -> None:
    sqlite_columns, sqlite_indexes = await sqlite_schema(tmp_path / "s.db")
    postgres_columns, postgres_indexes = await postgres_schema(empty_database)
    # SQLite's implicit rowid orders a round of affirmations; PostgreSQL names its own.
    postgres_columns["affirmations_seen"].remove("rowid")
    assert postgres_columns == sqlite_columns
    assert postgres_indexes == sqlite_indexes


@on_postgres
async def test_two_workers_starting_together_migrate_once(
    backend: str, empty_database: str
) -> None:
    first, second = await asyncio.gather(
        PostgresDatabase.connect(empty_database), PostgresDatabase.connect(empty_database)
    )
    await first.close()
    await second.close()
    connection = await asyncpg.connect(empty_database)
    try:
        assert await schema_version(connection) == bundled_migrations(POSTGRES_FOLDER)[-1].version
        assert await connection.fetchval("SELECT COUNT(*) FROM schema_version") == 1
    finally:
        await connection.close()


@on_postgres
async def test_a_failed_migration_leaves_the_database_as_it_was(
    backend: str, empty_database: str
) -> None:
    good = Migration(1, "0001_a.sql", "CREATE TABLE a (x INTEGER);")
    broken = Migration(
        2,
        "0002_b.sql",
        "CREATE TABLE b (y INTEGER); INSERT INTO a VALUES (1); INSERT INTO nowhere VALUES (2);",
    )
    connection = await asyncpg.connect(empty_database)
    try:
        assert await apply_postgres_migrations(connection, [good]) == 1
        with pytest.raises(MigrationError, match=r"0002_b\.sql"):
            await apply_postgres_migrations(connection, [good, broken])
        assert await schema_version(connection) == 1
        assert await connection.fetchval("SELECT to_regclass('b')") is None
        assert await connection.fetchval("SELECT COUNT(*) FROM a") == 0
    finally:
        await connection.close()


@on_postgres
async def test_a_database_newer_than_the_code_is_refused(backend: str, empty_database: str) -> None:
    connection = await asyncpg.connect(empty_database)
    try:
        await apply_postgres_migrations(connection, [Migration(1, "0001_a.sql", "SELECT 1;")])
        await connection.execute("UPDATE schema_version SET version = 999")
    finally:
        await connection.close()
    with pytest.raises(MigrationError, match="newer"):
        await PostgresDatabase.connect(empty_database)


@on_postgres
async def test_a_transaction_commits_whole_or_not_at_all(backend: str, empty_database: str) -> None:
    db = await PostgresDatabase.connect(empty_database)
    try:
        with pytest.raises(RuntimeError):
            async with db.transaction() as tx:
                await tx.execute("INSERT INTO meta (key, value) VALUES ('k', ?)", (b"v",))
                raise RuntimeError("boom")
        assert await db.fetch_one("SELECT * FROM meta WHERE key = 'k'") is None
        async with db.transaction() as tx:
            await tx.execute("INSERT INTO meta (key, value) VALUES ('k', ?)", (b"v",))
            first = await tx.insert(
                "INSERT INTO users (platform, platform_user_id, chat_id, locale, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                ("console", "u1", "c1", "en", 1),
            )
            changed = await tx.execute("UPDATE users SET locale = :locale", {"locale": "es"})
        row = await db.fetch_one("SELECT value FROM meta WHERE key = 'k'")
        assert row is not None and row["value"] == b"v" and row[0] == b"v"
        assert changed == 1
        user = await db.fetch_one("SELECT id, locale FROM users")
        assert user is not None and (user["id"], user["locale"]) == (first, "es")
    finally:
        await db.close()


@on_postgres
async def test_two_processes_share_one_postgresql_database(
    backend: str, settings: Settings, clock: ManualClock, content: ContentPack
) -> None:
    """No single-instance lock on PostgreSQL: what one writes, the other reads."""
    async with (
        open_services(settings, clock, content) as first,
        open_services(settings, clock, content) as second,
    ):
        async with first.db.transaction() as tx:
            await ensure_user(tx, Address("console", "c1", "u1"), "en", clock.now())
        assert await find_user(second.db, "console", "u1") is not None


def test_the_database_is_named_to_the_operator_without_its_password() -> None:
    settings = Settings(
        _env_file=None, STEADY_DATABASE_URL="postgresql://steady:s3cret@db:6543/bot"
    )
    assert database_name(settings) == "PostgreSQL at db:6543/bot"


@on_postgres
async def test_write_transactions_take_turns_across_workers(
    backend: str, empty_database: str
) -> None:
    """One writer at a time, as on SQLite, also between two workers' pools: the second
    transaction begins only once the first has committed, and sees what it wrote."""
    first = await PostgresDatabase.connect(empty_database)
    second = await PostgresDatabase.connect(empty_database)
    observer = await asyncpg.connect(empty_database)
    try:

        async def later_write() -> bytes:
            async with second.transaction() as tx:
                row = await tx.fetch_one("SELECT value FROM meta WHERE key = 'k'")
                await tx.execute("UPDATE meta SET value = ? WHERE key = 'k'", (b"second",))
            return b"" if row is None else bytes(row["value"])

        async with first.transaction() as tx:
            await tx.execute("INSERT INTO meta (key, value) VALUES ('k', ?)", (b"first",))
            waiting = asyncio.create_task(later_write())
            await until_waiting_for_the_writer(observer)
            assert not waiting.done()
        assert await waiting == b"first"
        row = await first.fetch_one("SELECT value FROM meta WHERE key = 'k'")
        assert row is not None and row["value"] == b"second"
    finally:
        await observer.close()
        await first.close()
        await second.close()


async def until_waiting_for_the_writer(observer: asyncpg.Connection) -> None:
    """Returns once a session waits for an advisory lock (fails after a long while: a hang)."""

    async def waiting() -> bool:
        count = await observer.fetchval(
            "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        )
        return bool(count)

    await until_answered(waiting, what="a transaction waiting for the writer")
