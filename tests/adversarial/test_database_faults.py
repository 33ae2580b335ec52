"""The database held by another writer, or gone read-only: the crisis reply still goes
out, ordinary replies fail kindly or wait, and nothing is ever half-written."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager

import aiosqlite
import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import CheckinMsg, GeneralMsg, SafetyMsg
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage import sqlite_connections
from bot.storage.checkins import list_checkins
from bot.storage.flow_positions import get_position
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation

# The faults are made on SQLite's file and connections (another writer, a read-only file).
pytestmark = pytest.mark.sqlite_only

CRISIS = "i want to die"


@pytest.fixture
async def patient_services(
    settings: Settings, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Services]:
    """Services that wait 0.2 s (not 5 s) for a busy database, so a test can outlast it."""
    monkeypatch.setattr(sqlite_connections, "BUSY_TIMEOUT_MS", 200)
    async with open_services(settings, clock) as opened:
        yield opened


@pytest.fixture
def chat_at_note(patient_services: Services) -> Conversation:
    return Conversation(
        Router(patient_services, rng=random.Random(1)), Address("console", "c", "u")
    )


async def to_the_note(chat: Conversation) -> None:
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("some")


@contextmanager
def held_by_another_writer(services: Services) -> Iterator[sqlite3.Connection]:
    other = sqlite3.connect(services.db.path, isolation_level=None, timeout=0)
    other.execute("BEGIN EXCLUSIVE")
    try:
        yield other
    finally:
        other.execute("ROLLBACK")
        other.close()


async def stored_notes(services: Services) -> list[bytes | None]:
    user = await find_user(services.db, "console", "u")
    assert user is not None
    return [answer.sealed_note for answer in await list_checkins(services.db, user.id)]


async def note_step(services: Services) -> str | None:
    user = await find_user(services.db, "console", "u")
    assert user is not None
    position = await get_position(services.db, user.id)
    return None if position is None else position.step


async def test_locked_database_crisis_reply_goes_out_at_once(
    chat_at_note: Conversation, patient_services: Services, text_of: Callable[..., str]
) -> None:
    await to_the_note(chat_at_note)
    with held_by_another_writer(patient_services):
        started = time.monotonic()
        reply, *question_again = await chat_at_note.send(CRISIS)
        assert time.monotonic() - started < 0.1  # no waiting on the lock
        assert question_again[-1].text.endswith(text_of(CheckinMsg.ASK_NOTE))  # read, not written
    assert reply.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))


async def test_locked_database_ordinary_reply_is_kind_and_nothing_is_half_written(
    chat_at_note: Conversation, patient_services: Services, text_of: Callable[..., str]
) -> None:
    await to_the_note(chat_at_note)
    with held_by_another_writer(patient_services):
        [reply] = await chat_at_note.send("a note while the disk is busy")
    assert reply.text == text_of(GeneralMsg.SOMETHING_WENT_WRONG)
    assert await stored_notes(patient_services) == []
    assert await note_step(patient_services) == "note"  # the check-in still waits for it
    [reply] = await chat_at_note.send("a note while the disk is busy")  # lock released
    assert reply.text.startswith(text_of(CheckinMsg.CHECKIN_SAVED_WITH_NOTE))
    assert len(await stored_notes(patient_services)) == 1


async def test_a_short_lock_only_delays_the_reply(
    chat_at_note: Conversation, patient_services: Services, text_of: Callable[..., str]
) -> None:
    await to_the_note(chat_at_note)
    with held_by_another_writer(patient_services):
        answering = asyncio.create_task(chat_at_note.send("written during a short lock"))
        await asyncio.sleep(0.05)
        assert not answering.done()  # waiting for the other writer, not failing
    [reply] = await answering
    assert reply.text.startswith(text_of(CheckinMsg.CHECKIN_SAVED_WITH_NOTE))
    assert len(await stored_notes(patient_services)) == 1


async def test_read_only_database_crisis_reply_still_goes_out_and_nothing_is_half_written(
    chat_at_note: Conversation, patient_services: Services, text_of: Callable[..., str]
) -> None:
    await to_the_note(chat_at_note)
    db = patient_services.db
    # As if the disk had been remounted read-only: the writer connection is opened again
    # in read-only mode. (chmod cannot show this: tests may run as root, who ignores it.)
    writable = db._writer
    read_only = await aiosqlite.connect(f"file:{db.path}?mode=ro", uri=True, isolation_level=None)
    db._writer = read_only
    try:
        reply, *_question_again = await chat_at_note.send(CRISIS)
        assert reply.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
        [reply] = await chat_at_note.send("a note on a read-only disk")
        assert reply.text == text_of(GeneralMsg.SOMETHING_WENT_WRONG)
        reply, *_question_again = await chat_at_note.send("/sos")
        assert text_of(SafetyMsg.SAFETY_WIDE_NUMBERS) in reply.text  # /sos as well
    finally:
        db._writer = writable
        await read_only.close()
    assert await stored_notes(patient_services) == []
    assert await note_step(patient_services) == "note"
    [reply] = await chat_at_note.send("a note on a read-only disk")
    assert reply.text.startswith(text_of(CheckinMsg.CHECKIN_SAVED_WITH_NOTE))
    assert len(await stored_notes(patient_services)) == 1


async def test_a_failed_commit_does_not_stop_every_later_write(
    chat_at_note: Conversation, patient_services: Services, text_of: Callable[..., str]
) -> None:
    """A COMMIT can fail (here a deferred constraint; elsewhere a full disk). It used to
    leave SQLite's transaction open, so every later BEGIN failed until a restart."""
    db = patient_services.db
    with pytest.raises(sqlite3.IntegrityError):
        async with db.transaction() as tx:
            await tx.execute("PRAGMA defer_foreign_keys = ON")
            await tx.execute(
                "INSERT INTO checkins (user_id, answered_at, mood, urge) VALUES (-1, 0, 3, 'none')"
            )
    await to_the_note(chat_at_note)
    [reply] = await chat_at_note.send("written after the failed commit")
    assert reply.text.startswith(text_of(CheckinMsg.CHECKIN_SAVED_WITH_NOTE))
    orphans = await db.fetch_one("SELECT COUNT(*) AS n FROM checkins WHERE user_id = -1")
    assert orphans is not None and orphans["n"] == 0
