"""A tick with more due than one chunk: every check-in claimed once, over several
transactions, with other work running in between."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import fields
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.content_pack.ids import CheckinMsg
from bot.flows.context import keyboard, markup
from bot.scheduling import checkin_due
from bot.scheduling.planner import next_local_time, plan_rule
from bot.scheduling.rules import LocalRule
from bot.storage import claims
from bot.storage.checkin_slots import list_slots
from bot.storage.claims import DueSlot
from bot.storage.db import Database, Transaction
from bot.storage.flow_positions import FlowPosition
from bot.storage.user_rows import READS, UserRows
from bot.storage.users import User, find_user, prefixed_columns, user_from_row
from tests.helpers.log_copies import LogCopies, autocheckpoint_pages
from tests.helpers.world import World

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
CHUNK = 3


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checkin_due, "CLAIM_CHUNK", CHUNK)


class Commits:
    """Counts the database's committed transactions, by wrapping `transaction()`."""

    def __init__(self, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = db.transaction

        @asynccontextmanager
        async def counted() -> AsyncIterator[Transaction]:
            async with original() as tx:
                yield tx
            self.count += 1

        monkeypatch.setattr(db, "transaction", counted)


async def onboard_many(world: World, count: int, local_time: str = "10:00") -> None:
    for n in range(count):
        chat = await world.onboard(f"user{n}", "UTC", local_time)
        await chat.send("/cancel")  # out of onboarding, so the check-in is not put off


@pytest.mark.usefixtures("small_chunks")
async def test_more_due_than_a_chunk_are_all_claimed_once_over_several_transactions(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    await onboard_many(world, 10)
    world.adapter.take()
    commits = Commits(world.services.db, monkeypatch)
    world.clock.set(START + timedelta(hours=1))
    report = await world.tick()
    sent_to = sorted(address.user_id for address, _ in world.checkins_sent())
    assert sent_to == sorted(f"user{n}" for n in range(10))  # each once
    assert report.claimed == report.started == 10
    assert commits.count >= 10 // CHUNK + 1  # not one transaction for all
    for n in range(10):
        user = await find_user(world.services.db, "test", f"user{n}")
        assert user is not None
        [slot] = await list_slots(world.services.db, user.id)
        assert slot.last_local_date == date(2026, 3, 2)
        assert slot.next_local_date == date(2026, 3, 3)
    assert (await world.tick()).claimed == 0


@pytest.mark.usefixtures("small_chunks")
async def test_other_tasks_run_between_the_chunks_of_one_tick(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    await onboard_many(world, 10)
    world.adapter.take()
    commits = Commits(world.services.db, monkeypatch)
    seen: list[int] = []  # the commits counted each time the other task got to run
    ticking = True

    async def another_task() -> None:
        while ticking:
            seen.append(commits.count)
            await asyncio.sleep(0)

    other = asyncio.create_task(another_task())
    world.clock.set(START + timedelta(hours=1))
    await world.dispatcher.tick()
    ticking = False
    await other
    done = commits.count
    assert done >= 4
    # It ran after the first chunk had committed and before the last had.
    assert any(0 < count < done for count in seen), (seen, done)


@pytest.mark.usefixtures("small_chunks")
async def test_two_slots_due_at_once_stay_one_check_in_with_one_slot_per_chunk(
    world: World, monkeypatch: pytest.MonkeyPatch, text_of: Callable[..., str]
) -> None:
    monkeypatch.setattr(checkin_due, "CLAIM_CHUNK", 1)
    chat = await world.onboard("ana", "UTC", "09:10")
    await chat.send("/settings")
    await chat.press("Check-in times")
    await chat.send("09:10 09:20 09:30")
    await chat.press("Done")
    await onboard_many(world, 2, local_time="09:15")
    world.adapter.take()
    world.clock.set(START + timedelta(minutes=40))  # all due at once, as after downtime
    report = await world.tick()
    sent_to = sorted(address.user_id for address, _ in world.checkins_sent())
    assert sent_to == ["ana", "user0", "user1"]
    assert report.claimed == 5
    ana = await find_user(world.services.db, "test", "ana")
    assert ana is not None
    slots = await list_slots(world.services.db, ana.id)
    assert {slot.next_local_date for slot in slots} == {date(2026, 3, 3)}


@pytest.mark.usefixtures("small_chunks")
async def test_snoozes_past_a_chunk_are_each_asked_once(
    world: World, text_of: Callable[..., str]
) -> None:
    await onboard_many(world, 7)
    world.adapter.take()
    world.clock.set(START + timedelta(hours=1))
    await world.tick()
    for n in range(7):
        chat = world.chat(f"user{n}")
        chat.history = [reply for address, reply in world.adapter.sent if address == chat.address]
        await chat.press(text_of(CheckinMsg.SNOOZE_1H))
    world.adapter.take()
    world.clock.set(START + timedelta(hours=2))
    report = await world.tick()
    sent_to = sorted(address.user_id for address, _ in world.checkins_sent())
    assert sent_to == sorted(f"user{n}" for n in range(7))
    assert report.started == 7
    assert (await world.tick()).started == 0


@pytest.mark.parametrize(
    ("timezone", "local_time"),
    [
        ("Europe/Berlin", "02:30"),  # in the spring gap, and twice in the autumn
        ("Europe/Berlin", "08:00"),
        ("America/New_York", "01:30"),
        ("Australia/Adelaide", "02:15"),
    ],
)
def test_kept_next_local_times_are_those_worked_out_afresh_across_dst(
    timezone: str, local_time: str
) -> None:
    weekdays = frozenset({0, 2, 3, 6})
    rule = LocalRule(timezone, datetime.strptime(local_time, "%H:%M").time(), weekdays)
    changes = [datetime(2026, 3, 25, tzinfo=UTC), datetime(2026, 10, 21, tzinfo=UTC)]
    changes += [datetime(2026, 3, 4, tzinfo=UTC), datetime(2026, 3, 31, tzinfo=UTC)]
    for first in changes:  # a week around each change, every 20 minutes, twice
        instants = [first + timedelta(minutes=20 * n) for n in range(7 * 72)]
        for _ in range(2):
            for instant in instants:
                for last in (None, instant.date() - timedelta(days=1), instant.date()):
                    kept = next_local_time(timezone, local_time, weekdays, instant, last)
                    assert kept == plan_rule(rule, instant, last), (instant, last)
    assert next_local_time.cache_info().hits > 0


def test_a_keyboard_built_once_gives_each_token_the_buttons_markup_gives() -> None:
    """Due check-ins share one keyboard per locale; only the token differs per user."""
    rows = ((("1 · very low", "1"), ("2 · low", "2")), (("Ask me again in 1 hour", "1h"),))
    board = keyboard(rows, "checkin", "mood")
    for token in ("abc123", "ffff0000"):
        position = FlowPosition("checkin", "mood", token, {})
        assert board.with_token(token) == markup(rows, position)


async def test_claimed_rows_become_the_users_the_repository_reads(world: World) -> None:
    """The claims' own conversion gives what `user_from_row` gives, field by field."""
    assert tuple(field.name for field in fields(User)) == READS  # a new field: read it too
    chat = await world.onboard("ana", "Asia/Kolkata", "08:15")
    await chat.send("/cancel")
    db = world.services.db
    async with db.transaction() as tx:
        await tx.execute(
            "UPDATE users SET quiet_start = '22:00', quiet_end = '07:00', paused_until = 5,"
            " unreachable_since = 7, last_reply_id = 'r1',"
            " country = 'IN', discreet = 1, keep_days = 30, weekdays = 21"
        )
    rows = await db.fetch_all(f"SELECT {prefixed_columns('u')} FROM users AS u")
    convert = UserRows()
    for row in [*rows, *rows]:  # the second time from what it kept
        assert convert.user(row) == user_from_row(row)


@pytest.mark.usefixtures("small_chunks")
async def test_a_snooze_due_with_a_slot_of_the_same_user_is_one_check_in(
    world: World, monkeypatch: pytest.MonkeyPatch, text_of: Callable[..., str]
) -> None:
    monkeypatch.setattr(checkin_due, "CLAIM_CHUNK", 1)
    chat = await world.onboard("ana", "UTC", "09:10")
    await chat.send("/settings")
    await chat.press("Check-in times")
    await chat.send("09:10 10:10")
    await chat.press("Done")
    await onboard_many(world, 2, local_time="10:10")
    world.adapter.take()
    world.clock.set(START + timedelta(minutes=10))
    await world.tick()
    chat.history = [reply for _, reply in world.checkins_sent()]
    await chat.press(text_of(CheckinMsg.SNOOZE_1H))  # asks again at 10:10, with the 10:10 slot
    world.adapter.take()
    world.clock.set(START + timedelta(hours=1, minutes=10))
    await world.tick()
    sent_to = sorted(address.user_id for address, _ in world.checkins_sent())
    assert sent_to == ["ana", "user0", "user1"]
    assert await world.run_until(START + timedelta(hours=3)) == []


@pytest.mark.usefixtures("small_chunks")
async def test_a_large_tick_copies_the_log_aside_once_after_its_chunks_not_in_their_commits(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside a COMMIT, SQLite copies a long write-ahead log back to the database, fsync
    and all, while every other write waits: past its first full chunk a tick turns that
    off, copies the log once in a worker thread after its last chunk, and turns it back on."""
    await onboard_many(world, 10)
    world.adapter.take()
    db = world.services.db
    sqlite = db.dialect.name == "sqlite"
    settings_seen: list[int] = []  # in each chunk's transaction, as it claims
    due_checkins = claims.due_checkins

    async def noting_the_setting(tx: Transaction, now: datetime, most: int) -> list[DueSlot]:
        if sqlite:
            settings_seen.append(await autocheckpoint_pages(tx))
        return await due_checkins(tx, now, most)

    monkeypatch.setattr(claims, "due_checkins", noting_the_setting)
    copies = LogCopies(db, monkeypatch)
    world.clock.set(START + timedelta(hours=1))

    report = await world.tick()

    assert report.started == 10
    assert copies.count == 1
    if sqlite:  # PostgreSQL's log is the server's own
        # The first chunk's COMMIT may still copy (the tick cannot know more is due before
        # it); every later chunk's cannot; afterwards SQLite copies as usual again.
        assert len(settings_seen) >= 10 // CHUNK + 1
        assert settings_seen[0] == 1000 and set(settings_seen[1:]) == {0}
        assert await db.in_one_hop(autocheckpoint_pages) == 1000


async def test_a_tick_of_one_chunk_leaves_the_log_to_sqlite(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    await onboard_many(world, 2)
    world.adapter.take()
    db = world.services.db
    copies = LogCopies(db, monkeypatch)
    world.clock.set(START + timedelta(hours=1))

    assert (await world.tick()).started == 2
    assert copies.count == 0
