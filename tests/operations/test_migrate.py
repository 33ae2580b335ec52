"""`steady migrate --to`: a SQLite database made by the real flows, copied into an empty
PostgreSQL database on the test server, and Steady started on the copy."""

from __future__ import annotations

import json
import random
import sqlite3
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import DataMsg, PauseMsg
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.operations.migrate import migrate
from bot.storage import table_copy
from bot.storage.copies import OperationError
from bot.storage.postgres_target import tables_holding_rows, tables_present
from bot.storage.process_lock import ProcessLock
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation
from tests.helpers.postgres import with_database
from tests.helpers.postgres_server import scratch_database, server_url
from tests.helpers.processes import steady

NOTE = "called my sister instead"
DRAFT = "I miss you, can we talk"


@pytest.fixture
async def empty_database() -> AsyncIterator[str]:
    """A new database with nothing in it (not even the schema), dropped after the test."""
    async with scratch_database(server_url()) as url:
        yield url


async def _use_it_for_a_while(settings: Settings, clock: ManualClock, content: ContentPack) -> None:
    """Two users through the real flows; the second one then forgets everything."""
    async with open_services(settings, clock, content) as services:
        router = Router(services, rng=random.Random(3))
        first = Conversation(router, Address("console", "c1", "u1"))
        for text in ("/start", "Europe/Madrid", "08:15", "/checkin", "3", "some", NOTE):
            await first.send(text)
        await first.send("/affirm")
        await first.send("/pause")
        await first.press(content.text("en", PauseMsg.PAUSE_WRITE))
        await first.send(DRAFT)  # a draft sealed in the flow's data, waiting
        second = Conversation(router, Address("console", "c2", "u2"))
        for text in ("/start", "America/Lima", "19:00", "/checkin", "5", "none", "fine"):
            await second.send(text)
        await second.send("/forget")
        await second.press(content.text("en", DataMsg.FORGET_YES))


def _sqlite_tables(database: Path) -> int:
    connection = sqlite3.connect(database)
    try:
        query = (
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
        return int(connection.execute(query).fetchone()[0])
    finally:
        connection.close()


def _on_postgres(settings: Settings, url: str) -> Settings:
    return settings.model_copy(update={"database_url": url})


async def _mydata(settings: Settings, clock: ManualClock, content: ContentPack) -> Any:
    async with open_services(settings, clock, content) as services:
        chat = Conversation(Router(services), Address("console", "c1", "u1"))
        await chat.send("/mydata")
        return json.loads(chat.last[-1].text)


@pytest.mark.sqlite_only
async def test_a_database_made_by_the_flows_moves_to_postgres_and_steady_runs_on_it(
    settings: Settings, clock: ManualClock, content: ContentPack, empty_database: str
) -> None:
    await _use_it_for_a_while(settings, clock, content)
    before = await _mydata(settings, clock, content)

    lines = await migrate(settings, empty_database)
    tables = _sqlite_tables(settings.database_file)
    assert f"rows of {tables} tables" in lines[1] and "row counts equal" in lines[1]
    assert lines[2].startswith("steady: done.")

    on_postgres = _on_postgres(settings, empty_database)
    after = await _mydata(on_postgres, clock, content)
    assert after["profile"] == before["profile"]
    assert after["checkins"] == before["checkins"]
    assert [c["note"] for c in after["checkins"]] == [NOTE]  # sealed text, opened
    assert before["current_flow"]["draft_waiting"] == DRAFT  # sealed in the flow's data
    assert after["current_flow"] == before["current_flow"]
    assert after["affirmations_seen"] == before["affirmations_seen"]

    # The forgotten second user's id is never handed out again on PostgreSQL.
    async with open_services(on_postgres, clock, content) as services:
        newcomer = Conversation(Router(services), Address("console", "c3", "u3"))
        await newcomer.send("/start")
        await newcomer.send("Asia/Seoul")
        found = await find_user(services.db, "console", "u3")
        assert found is not None and found.id == 3

    # Run again once it has succeeded: it finds its copy and changes nothing... except
    # the newcomer made it differ, so now it refuses.
    with pytest.raises(OperationError, match="not empty, and not a copy of this one"):
        await migrate(settings, empty_database)


@pytest.mark.sqlite_only
async def test_a_failed_copy_leaves_the_target_empty_and_runs_again(
    settings: Settings,
    clock: ManualClock,
    content: ContentPack,
    empty_database: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await _use_it_for_a_while(settings, clock, content)
    copy_rows = table_copy.copy_rows
    copied: list[str] = []

    async def dropped_after_three(
        source: sqlite3.Connection, target: asyncpg.Connection, table: str
    ) -> int:
        if len(copied) == 3:  # the server goes away mid-copy
            admin = await asyncpg.connect(empty_database)
            await admin.execute("SELECT pg_terminate_backend($1)", target.get_server_pid())
            await admin.close()
        copied.append(table)
        return await copy_rows(source, target, table)

    monkeypatch.setattr(table_copy, "copy_rows", dropped_after_three)
    with pytest.raises(OperationError, match="nothing was committed, run it again"):
        await migrate(settings, empty_database)
    assert len(copied) == 4
    assert await tables_present(empty_database) == []  # not even the schema stayed

    monkeypatch.setattr(table_copy, "copy_rows", copy_rows)
    assert (await migrate(settings, empty_database))[2].startswith("steady: done.")
    again = await migrate(settings, empty_database)
    assert again[-1].endswith("nothing was changed.")
    assert "already holds this copy" in again[-1]


@pytest.mark.sqlite_only
async def test_a_target_that_holds_anything_is_refused_untouched(
    settings: Settings, clock: ManualClock, content: ContentPack, empty_database: str
) -> None:
    await _use_it_for_a_while(settings, clock, content)
    target = await asyncpg.connect(empty_database)
    try:
        await target.execute("CREATE TABLE invoices (id INTEGER)")
        with pytest.raises(OperationError, match="tables that are not Steady's"):
            await migrate(settings, empty_database)
        await target.execute("DROP TABLE invoices")
    finally:
        await target.close()
    other = _on_postgres(settings, empty_database)  # a worker ran there: one user, its key
    async with open_services(other, clock, content) as services:
        await Conversation(Router(services), Address("console", "c9", "u9")).send("/start")
    holding = await tables_holding_rows(empty_database)
    with pytest.raises(OperationError, match="not empty"):
        await migrate(settings, empty_database)
    assert await tables_holding_rows(empty_database) == holding


def test_migrate_on_the_command_line_refuses_clearly(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert steady(["console"], data, f"/checkin\n2\nstrong\n{NOTE}\n").returncode == 0
    url = with_database(server_url(), f"steady_absent_{uuid.uuid4().hex[:8]}")
    refused = steady(["migrate", "--to", "mysql://somewhere/db"], data)
    assert refused.returncode == 2 and "postgresql://" in refused.stderr
    unreachable = steady(["migrate", "--to", url], data)  # no such database on the server
    assert unreachable.returncode == 2
    assert "cannot connect to PostgreSQL" in unreachable.stderr
    assert NOTE not in unreachable.stderr + unreachable.stdout
    lock = ProcessLock(data / "steady.db")  # as a running Steady holds it
    lock.acquire()
    try:
        running = steady(["migrate", "--to", url], data)
    finally:
        lock.release()
    assert running.returncode == 2
    assert "Steady is running on" in running.stderr and "stop it first" in running.stderr
