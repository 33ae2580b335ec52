"""One event, few trips to the database: the user's row is read once and passed down, and
a transaction's statements travel to the database thread together.

Counted where they happen: every statement SQLite runs (its trace callback, on every
connection) and every function sent to a connection's thread (aiosqlite's queue).
Before this was built, a mood button press read the user's row 4 times in 9 statements
(15 statements and trips counting BEGIN and COMMIT), and a saved check-in 4 times in 13
(19 trips). Then 4 trips for the press, 5 for the save; now that short reads run in
place, on the event loop's own connection, 3 and 2: the writes, and the user's lookup,
which the crisis path bounds and so must be read where waiting can be given up."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import aiosqlite
import pytest

from bot.content_pack.ids import CheckinMsg, SettingsMsg
from bot.flows.context import Services
from bot.storage.users import prefixed_columns
from tests.helpers.conversation import Conversation

# Counted inside SQLite and aiosqlite.
pytestmark = pytest.mark.sqlite_only

# How every read of a whole user row begins (find_user, get_user).
_USER_ROW_READ = "SELECT " + prefixed_columns("u").replace("u.", "")


@dataclass
class Trips:
    statements: list[str] = field(default_factory=list)
    hops: int = 0

    def clear(self) -> None:
        self.statements.clear()
        self.hops = 0

    @property
    def user_row_reads(self) -> int:
        return sum(1 for sql in self.statements if sql.startswith(_USER_ROW_READ))


@pytest.fixture
async def trips(services: Services, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Trips]:
    counted = Trips()
    db = services.db
    for connection in (db._writer, db._reader):
        await connection.set_trace_callback(counted.statements.append)
    db._in_place.set_trace_callback(counted.statements.append)
    real = aiosqlite.Connection._execute

    async def hop(self: aiosqlite.Connection, fn: Any, *args: Any, **kwargs: Any) -> Any:
        counted.hops += 1
        return await real(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", hop)
    yield counted
    monkeypatch.undo()
    for connection in (db._writer, db._reader):
        await connection.set_trace_callback(None)
    db._in_place.set_trace_callback(None)


async def onboarded_at_the_urge_question(chat: Conversation, text_of: Callable[..., str]) -> None:
    await chat.send("/checkin")
    await chat.press(text_of(CheckinMsg.MOOD_4))
    assert chat.text.endswith(text_of(CheckinMsg.ASK_URGE))


async def test_a_mood_press_reads_the_user_once_in_few_trips(
    chat: Conversation, services: Services, trips: Trips, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    trips.clear()
    await chat.press(text_of(CheckinMsg.MOOD_4))
    assert chat.text.endswith(text_of(CheckinMsg.ASK_URGE))  # the press did what it should
    assert trips.user_row_reads == 1
    # Read the user (one trip); read the position (in place, no trip); move (one trip);
    # keep the new question (one trip: the position it belongs to is the one just written).
    assert trips.hops <= 3, trips.statements
    assert len(trips.statements) <= 8, trips.statements


async def test_a_saved_check_in_reads_the_user_once_and_writes_in_one_trip(
    chat: Conversation, services: Services, trips: Trips, text_of: Callable[..., str]
) -> None:
    await onboarded_at_the_urge_question(chat, text_of)
    await chat.press(text_of(CheckinMsg.URGE_NONE))
    trips.clear()
    await chat.press(text_of(CheckinMsg.SKIP_NOTE))
    assert text_of(CheckinMsg.CHECKIN_SAVED) in chat.text
    assert trips.user_row_reads == 1
    writes = [sql for sql in trips.statements if not sql.startswith("SELECT")]
    assert writes[0] == "BEGIN IMMEDIATE" and writes[-1] == "COMMIT"
    assert writes.count("BEGIN IMMEDIATE") == 1  # one transaction for the whole save
    # Read the user (one trip); the position, the replies seen lately (in place, no
    # trip); save (one trip); read the position after (none: the check-in is over).
    assert trips.hops <= 2, trips.statements
    row = await services.db.fetch_one("SELECT mood, urge, note FROM checkins")
    assert row is not None and (row["mood"], row["urge"], row["note"]) == (4, "none", None)
    assert await services.db.fetch_one("SELECT 1 FROM flow_positions") is None


async def test_a_changed_setting_is_read_again_within_the_same_event(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    """The row passed down is not trusted past a change to it: the settings menu shown
    after a change shows the new value."""
    await chat.send("/settings")
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_KEEP))
    await chat.press("30 days")
    assert text_of(SettingsMsg.KEEP_DAYS, days=30) in chat.text
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_KEEP))
    await chat.press("7 days")
    assert text_of(SettingsMsg.KEEP_DAYS, days=7) in chat.text
