"""Proofs that what users write stays theirs: encrypted on disk, absent from every log
line at every level, and gone from every table after /forget."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import pytest

from bot.content_pack.ids import DataMsg, OnboardingMsg, PauseMsg, ReasonsMsg
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.logs import KeyValueFormatter
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation
from tests.helpers.schema import column_names

MARKERS = {
    "reason": "zebra-lantern-reason-4417",
    "note": "quartz-meadow-note-8821",
    "kept": "violet-harbor-draft-3390",
    "pending": "copper-willow-pending-7264",
}
PLATFORM_USER, PLATFORM_CHAT = "user-55501", "chat-55501"


class Everything(logging.Handler):
    """Every record of every logger, formatted as Steady formats it and also raw."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []
        self._format = KeyValueFormatter()

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self._format.format(record))
        self.lines.append(f"{record.getMessage()} {record.args!r} {record.__dict__!r}")


@pytest.fixture
def every_log_line() -> Iterator[Everything]:
    root = logging.getLogger()
    handler = Everything()
    saved = root.level, {name: logging.getLogger(name).level for name in ("steady", "aiosqlite")}
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    for name in saved[1]:
        logging.getLogger(name).setLevel(logging.DEBUG)
    yield handler
    root.removeHandler(handler)
    root.setLevel(saved[0])
    for name, level in saved[1].items():
        logging.getLogger(name).setLevel(level)


async def write_everything(chat: Conversation, text_of: Callable[..., str]) -> None:
    await chat.send("/start")
    await chat.send("Europe/Berlin")
    await chat.send("08:30")
    await chat.press(text_of(OnboardingMsg.COUNTRY_SKIP))
    await chat.send("/reasons")
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))
    await chat.send(MARKERS["reason"])
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("some")
    await chat.send(MARKERS["note"])
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WRITE))
    await chat.send(MARKERS["kept"])
    await chat.press(text_of(PauseMsg.WRITE_KEEP))
    await chat.press(text_of(PauseMsg.PAUSE_WRITE))
    await chat.send(MARKERS["pending"])  # left waiting, sealed in the flow position
    await chat.send("/mydata")
    stored = [MARKERS[kind] for kind in ("reason", "note", "kept")]  # the pending one waits
    assert all(marker in chat.last[-1].text for marker in stored)


@pytest.fixture
def chat(router: Router) -> Conversation:
    return Conversation(router, Address("console", PLATFORM_CHAT, PLATFORM_USER))


def database_files(services: Services) -> dict[str, bytes]:
    path = services.db.path
    files = [path, *(path.with_name(path.name + end) for end in ("-wal", "-shm", "-journal"))]
    return {file.name: file.read_bytes() for file in files if file.exists()}


@pytest.mark.sqlite_only  # PostgreSQL's files are the server's
async def test_the_database_files_hold_no_word_in_clear(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await write_everything(chat, text_of)
    files = database_files(services)
    assert "steady.db-wal" in files and len(files["steady.db-wal"]) > 0  # the log is checked too
    for name, content in files.items():
        for marker in MARKERS.values():
            for encoding in ("utf-8", "utf-16-le", "utf-16-be"):
                assert marker.encode(encoding) not in content, (name, marker, encoding)
    await services.db.checkpoint()  # and once copied into the main file
    for marker in MARKERS.values():
        assert marker.encode() not in database_files(services)["steady.db"]


async def test_no_log_line_at_any_level_holds_a_word(
    chat: Conversation,
    services: Services,
    text_of: Callable[..., str],
    every_log_line: Everything,
) -> None:
    await write_everything(chat, text_of)
    await chat.send("/forget")
    await chat.press(text_of(DataMsg.FORGET_YES))
    logged = "\n".join(every_log_line.lines)
    assert "event.received" in logged  # ours
    if services.db.dialect.name == "sqlite":
        assert "aiosqlite" in logged  # and a library's (asyncpg logs no statements)
    for marker in MARKERS.values():
        assert marker not in logged


async def test_after_forget_no_table_holds_the_users_ids(
    chat: Conversation, router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    other = Conversation(router, Address("console", "chat-other", "user-other"))
    await write_everything(other, text_of)
    await write_everything(chat, text_of)
    user = await find_user(services.db, "console", PLATFORM_USER)
    assert user is not None
    assert await rows_with(services, user.id), "the scan must see the user before /forget"

    await chat.send("/forget")
    await chat.press(text_of(DataMsg.FORGET_YES))

    assert await rows_with(services, user.id) == []
    assert await find_user(services.db, "console", "user-other") is not None


async def columns_and_references(services: Services, table: str) -> tuple[list[str], set[str]]:
    """The table's columns, and those of them that refer to users (a foreign key)."""
    db = services.db
    quoted = table.replace('"', '""')
    columns = await column_names(db, table)
    if db.dialect.name == "sqlite":
        refers = {
            str(row["from"])
            for row in await db.fetch_all(f'PRAGMA foreign_key_list("{quoted}")')
            if row["table"] == "users"
        }
        return columns, refers
    keys = await db.fetch_all(
        "SELECT a.attname AS name FROM pg_constraint AS c"
        " JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)"
        " WHERE c.contype = 'f' AND c.conrelid = to_regclass(?)"
        " AND c.confrelid = to_regclass('users')",
        (table,),
    )
    return columns, {str(row["name"]) for row in keys}


async def rows_with(services: Services, row_id: int) -> list[str]:
    """Every table.column, in every table the schema has, that still names the user:
    their row id in a column that refers to users, or their platform ids anywhere."""
    db = services.db
    found: list[str] = []
    for table in await db.table_names():
        quoted = table.replace('"', '""')
        columns, refers = await columns_and_references(services, table)
        refers |= {c for c in columns if c == "user_id" or (table == "users" and c == "id")}
        for column in columns:
            condition = f'CAST("{column}" AS TEXT) IN (?, ?)'
            values: tuple[object, ...] = (PLATFORM_USER, PLATFORM_CHAT)
            if column in refers:
                condition = f'({condition} OR "{column}" = ?)'
                values = (*values, row_id)
            hit = await db.fetch_one(
                f'SELECT COUNT(*) AS n FROM "{quoted}" WHERE {condition}', values
            )
            if hit is not None and hit["n"]:
                found.append(f"{table}.{column}")
    return found
