"""Housekeeping never holds the single writer long: the daily purge goes in batches and
lets other writes in between; old sent-message records go in the daily job, found by
their index; a group's move finds its people by index."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest

from bot.adapters.telegram.adapter import DELETE_WINDOW
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.delivery.sent_log import SentLog
from bot.flows.context import Services
from bot.reminders import chat_moves
from bot.reminders.chat_moves import follow_chat_move
from bot.storage import batching, checkins, group_reminders, retention, sent_messages, users
from bot.storage.batching import BatchSize
from bot.storage.db import Database, Transaction
from bot.storage.group_reminders import ReminderSpec
from bot.storage.sent_messages import SentRecord
from tests.helpers.log_copies import LogCopies, autocheckpoint_pages

DAY = timedelta(days=1)


async def new_user(db: Database, name: str, now: datetime, chat: str | None = None) -> int:
    async def create(tx: Transaction) -> int:
        address = Address("telegram", chat or f"chat-{name}", name)
        return (await users.ensure_user(tx, address, "en", now)).id

    return await db.in_one_hop(create)


async def plan(db: Database, sql: str, params: tuple[object, ...]) -> str:
    """How the database would run `sql`: the names of the indexes it would use."""
    if db.dialect.name == "sqlite":
        rows = await db.fetch_all(f"EXPLAIN QUERY PLAN {sql}", params)
        return " ".join(str(row["detail"]) for row in rows)
    # PostgreSQL scans a table of a few rows whatever its indexes: asked not to, it shows
    # the index it can use (and none when there is none), as it would on a big table.
    async with db.transaction() as tx:
        await tx.execute("SET LOCAL enable_seqscan = off")
        rows = await tx.fetch_all(f"EXPLAIN {sql}", params)
    return " ".join(str(row[0]) for row in rows)


async def test_the_purge_removes_exactly_what_each_owner_no_longer_keeps_in_short_batches(
    services: Services, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, now = services.db, clock.now()
    monkeypatch.setattr(retention, "BATCH_ROWS", 10)
    monkeypatch.setattr(batching, "AIM_SECONDS", 0.0)  # every batch as small as allowed
    keeps = {"default": None, "week": 7, "month": 30}
    ages = range(0, 200, 3)  # days old; their rows interleave, as people answer
    ids = {name: await new_user(db, name, now) for name in keeps}
    async with db.transaction() as tx:
        for name, days in keeps.items():
            await users.set_keep_days(tx, ids[name], days)
        for age in ages:
            for name in keeps:
                await checkins.add_checkin(tx, ids[name], now - age * DAY, 3, "none", None)

    batches = 0
    in_one_hop = db.in_one_hop

    async def counted(body):  # type: ignore[no-untyped-def]
        nonlocal batches
        batches += 1
        return await in_one_hop(body)

    monkeypatch.setattr(db, "in_one_hop", counted)
    purge = asyncio.create_task(retention.purge_expired(db, now, retention_days=90))
    await asyncio.sleep(0)  # the purge has begun its first batch
    async with db.transaction() as tx:  # a reply's write, meanwhile
        await users.set_last_reply(tx, ids["default"], "a-reply")
    # It got in between batches, with most of the purge still to come.
    row = await db.fetch_one("SELECT COUNT(*) AS n FROM checkins")
    left_at_write = 0 if row is None else row["n"]
    purged = await purge
    assert left_at_write > len(ages) * len(keeps) - purged.checkins + 10

    async def kept_ages(name: str) -> list[int]:
        rows = await db.fetch_all(
            "SELECT answered_at FROM checkins WHERE user_id = ? ORDER BY answered_at DESC",
            (ids[name],),
        )
        return [round((now.timestamp() - row["answered_at"]) / 86400) for row in rows]

    # Exactly as old as the limit is not older than it: kept.
    assert await kept_ages("default") == [age for age in ages if age <= 90]
    assert await kept_ages("week") == [age for age in ages if age <= 7]
    assert await kept_ages("month") == [age for age in ages if age <= 30]
    gone = sum(1 for age in ages for limit in (90, 7, 30) if age > limit)
    assert purged.checkins == gone
    rows = len(ages) * len(keeps)
    assert batches >= rows // 10  # one short transaction per ten rows looked at
    assert (await retention.purge_expired(db, now, retention_days=90)).checkins == 0

    if db.dialect.name == "sqlite":  # PostgreSQL's log is the server's own
        # Copied aside during the purge; SQLite's own copying is back on after it.
        assert await in_one_hop(autocheckpoint_pages) == 1000


def test_a_batch_is_sized_to_hold_the_writer_briefly() -> None:
    size = BatchSize(rows=1000, least=50, most=20_000)  # the bounds are its own
    size.after(batching.AIM_SECONDS / 10)  # quick: twice as many next time, not ten times
    assert size.rows == 2000
    size.after(batching.AIM_SECONDS * 2)  # slow: half
    assert size.rows == 1000
    for _ in range(20):
        size.after(1.0)  # a cold disk: down to the least, never below
    assert size.rows == 50
    for _ in range(20):
        size.after(0.0)
    assert size.rows == 20_000


async def test_old_sent_records_go_in_the_daily_job_and_wipe_keeps_its_last_48_hours(
    services: Services, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, now = services.db, clock.now()
    monkeypatch.setattr(sent_messages, "PURGE_BATCH_ROWS", 2)
    monkeypatch.setattr(batching, "AIM_SECONDS", 0.0)
    await new_user(db, "u1", now)
    ages = [timedelta(hours=1), timedelta(hours=47), 3 * DAY, 29 * DAY, 31 * DAY, 60 * DAY]
    log = SentLog(db, clock, "telegram", DELETE_WINDOW)
    address = Address("telegram", "chat-u1", "u1")
    async with db.transaction() as tx:
        await sent_messages.record(
            tx,
            [
                SentRecord("telegram", "u1", "chat-u1", f"m{n}", now - age)
                for n, age in enumerate(ages)
            ],
        )
    log.remember(address, "m-new")
    await log.flush()  # writing new records purges nothing any more: that is daily
    assert len(await sent_messages.tracked(db, "telegram", "u1", "chat-u1")) == len(ages) + 1

    purged = await retention.daily_purge(db, now, 180, sent_kept=DELETE_WINDOW.kept)
    assert purged.sent_records == 2  # 31 and 60 days old, in batches of two
    left = await sent_messages.tracked(db, "telegram", "u1", "chat-u1")
    assert [record.message_id for record in left] == ["m0", "m1", "m2", "m3", "m-new"]
    deletable = [r for r in left if now - r.sent_at < DELETE_WINDOW.deletable]
    assert [record.message_id for record in deletable] == ["m0", "m1", "m-new"]  # for /wipe
    cutoff = int((now - DELETE_WINDOW.kept).timestamp())
    found_by = await plan(
        db,
        "SELECT id FROM sent_messages WHERE sent_at < ? ORDER BY sent_at LIMIT ?",
        (cutoff, 2),
    )
    assert "sent_messages_by_time" in found_by  # not a scan of every record


async def test_a_group_moves_to_its_new_id_with_its_people_and_reminders_found_by_index(
    services: Services, clock: ManualClock
) -> None:
    db, now = services.db, clock.now()
    in_group = [await new_user(db, f"g{n}", now, chat="-100") for n in range(3)]
    elsewhere = await new_user(db, "private", now, chat="-200")
    spec = ReminderSpec("Europe/Berlin", "09:00", frozenset(range(7)), None, None)
    async with db.transaction() as tx:
        await group_reminders.add_reminder(
            tx, services.cipher, "telegram", "-100", "g0", "en", spec, now
        )

    await follow_chat_move(db, "telegram", "-100", "-1000100")

    for user_id in in_group:
        user = await users.get_user(db, user_id)
        assert user is not None and user.chat_id == "-1000100"
    other = await users.get_user(db, elsewhere)
    assert other is not None and other.chat_id == "-200"
    moved = await group_reminders.list_for_chat(db, services.cipher, "telegram", "-1000100")
    assert [reminder.number for reminder in moved] == [1]
    assert await group_reminders.list_for_chat(db, services.cipher, "telegram", "-100") == []
    found_by = await plan(
        db,
        "UPDATE users SET chat_id = ? WHERE id IN"
        " (SELECT id FROM users WHERE platform = ? AND chat_id = ? LIMIT ?)",
        ("x", "t", "y", 200),
    )
    assert "users_by_chat" in found_by


async def test_a_big_group_moves_a_batch_of_people_at_a_time_to_the_last_one(
    services: Services, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, now = services.db, clock.now()
    in_group = [await new_user(db, f"g{n}", now, chat="-100") for n in range(7)]
    monkeypatch.setattr(chat_moves, "FIRST_BATCH", 2)  # then 4: three transactions
    transactions = db.hops

    await chat_moves.follow_chat_move(db, "telegram", "-100", "-1000100")

    for user_id in in_group:
        user = await users.get_user(db, user_id)
        assert user is not None and user.chat_id == "-1000100"
    assert db.hops - transactions >= 3  # the reminders', then the people's batches


async def test_a_big_group_move_copies_the_log_back_between_its_batches_not_in_a_commit(
    services: Services, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite's own copying of the write-ahead log runs inside a COMMIT, fsync and all,
    and held every other write for 0.09 s in a move of 1,000 among 1,000,000 users: it is
    off while the batches run, the log is copied between them, and it is back after."""
    db, now = services.db, clock.now()
    for n in range(7):
        await new_user(db, f"g{n}", now, chat="-100")
    monkeypatch.setattr(chat_moves, "FIRST_BATCH", 2)
    seen_in_batches: list[int] = []
    move_chat = users.move_chat

    async def noting_the_setting(
        tx: Transaction, platform: str, old: str, new: str, most: int
    ) -> int:
        if tx.dialect.name == "sqlite":
            seen_in_batches.append(await autocheckpoint_pages(tx))
        return await move_chat(tx, platform, old, new, most)

    monkeypatch.setattr(users, "move_chat", noting_the_setting)
    copies = LogCopies(db, monkeypatch)

    await chat_moves.follow_chat_move(db, "telegram", "-100", "-1000100")

    assert copies.count == 1  # after the full first batch of 2; the next takes the other 5
    if db.dialect.name == "sqlite":  # PostgreSQL's log is the server's own
        assert seen_in_batches and set(seen_in_batches) == {0}
        assert await db.in_one_hop(autocheckpoint_pages) == 1000


async def test_sqlite_copies_its_log_again_only_when_the_last_of_overlapping_jobs_ends(
    services: Services,
) -> None:
    """A large tick may run during the daily purge: the first to end must not turn
    SQLite's own copying back on under the other."""
    db = services.db
    if db.dialect.name != "sqlite":
        pytest.skip("PostgreSQL's log is the server's own")

    async with db.log_copied_aside():
        async with db.log_copied_aside():
            assert await db.in_one_hop(autocheckpoint_pages) == 0
        assert await db.in_one_hop(autocheckpoint_pages) == 0
    assert await db.in_one_hop(autocheckpoint_pages) == 1000
