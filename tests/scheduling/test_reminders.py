"""Group reminders in the tick: local time, DST, downtime, pauses, and a group that refuses."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from bot.content_pack.ids import ReminderMsg
from bot.core.events import Address, CommandIssued
from bot.core.platform import RecipientUnreachable
from bot.core.replies import Reply
from bot.delivery.outbox import Outgoing
from bot.reminders import posting
from bot.reminders.posting import while_active
from bot.storage import group_reminders
from bot.storage.group_reminders import PausedBecause
from tests.helpers.world import World

GROUP = Address("test", "group-1", "admin-1", is_group=True)


async def add(world: World, args: str, admin: str = "admin-1") -> None:
    at = Address("test", "group-1", admin, is_group=True)
    [reply] = await world.router.handle(CommandIssued(at, "reminder", f"add {args}", admin=True))
    assert reply.text.startswith("Reminder "), reply.text


async def posts_until(world: World, end: datetime) -> list[tuple[datetime, str]]:
    """(clock time, text) of every group post handed to the platform until `end`."""
    seen: list[tuple[datetime, str]] = []
    while world.clock.now() < end:
        world.clock.advance(min(timedelta(minutes=5), end - world.clock.now()))
        await world.tick()
        seen += [
            (world.clock.now(), reply.text)
            for address, reply in world.adapter.take()
            if address.is_group
        ]
    return seen


async def only_reminder(world: World) -> group_reminders.GroupReminder:
    [reminder] = await group_reminders.list_for_chat(
        world.services.db, world.services.cipher, "test", "group-1"
    )
    return reminder


async def test_posts_once_a_day_at_local_time_rotating_the_theme(world: World) -> None:
    world.clock.set(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))
    await add(world, "08:15 America/New_York theme grief")
    posts = await posts_until(world, datetime(2026, 3, 9, 12, 0, tzinfo=UTC))
    # 08:15 EST is 13:15 UTC; on Sunday 8 March New York moves to EDT, and 08:15 follows.
    assert [at for at, _ in posts] == [
        *(datetime(2026, 3, day, 13, 15, tzinfo=UTC) for day in range(2, 8)),
        datetime(2026, 3, 8, 12, 15, tzinfo=UTC),
    ]
    grief = {a.text for a in world.services.content.affirmations("en") if a.theme == "grief"}
    texts = [text for _, text in posts]
    assert set(texts) <= grief
    assert len(set(texts)) == min(len(texts), len(grief))  # a whole round before any repeat


async def test_the_post_offers_a_private_check_in_and_names_nobody(world: World) -> None:
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    await add(world, "09:00 UTC text Water, food, rest: they count today.")
    world.clock.set(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    await world.tick()
    [(address, reply)] = world.adapter.take()
    # Sent to the group as such: no member's id rides along, not even the admin's.
    assert address == Address("test", "group-1", "", is_group=True)
    assert reply.text == "Water, food, rest: they count today."
    [button] = reply.flat_buttons
    assert (button.open_private, button.data) == ("checkin", "")


async def test_spring_forward_posts_once_shifted_past_the_gap(world: World) -> None:
    world.clock.set(datetime(2026, 3, 28, 12, 0, tzinfo=UTC))
    await add(world, "02:30 Europe/Berlin")
    posts = await posts_until(world, datetime(2026, 3, 31, 12, 0, tzinfo=UTC))
    assert [at for at, _ in posts] == [
        datetime(2026, 3, 29, 1, 30, tzinfo=UTC),  # 02:30 does not exist: 03:30 CEST
        datetime(2026, 3, 30, 0, 30, tzinfo=UTC),
        datetime(2026, 3, 31, 0, 30, tzinfo=UTC),
    ]


async def test_after_downtime_a_stale_post_is_skipped_not_doubled(world: World) -> None:
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    await add(world, "09:00 UTC")
    world.clock.set(datetime(2026, 3, 4, 8, 0, tzinfo=UTC))  # down for two scheduled posts
    await world.tick()
    assert world.adapter.take() == []
    posts = await posts_until(world, datetime(2026, 3, 4, 10, 0, tzinfo=UTC))
    assert [at for at, _ in posts] == [datetime(2026, 3, 4, 9, 0, tzinfo=UTC)]


async def test_a_paused_reminder_stays_quiet_until_resumed(world: World) -> None:
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    await add(world, "09:00 UTC")
    await world.router.handle(CommandIssued(GROUP, "reminder", "pause 1", admin=True))
    assert await world.dispatcher.next_due_at() is None
    assert await posts_until(world, datetime(2026, 3, 4, 8, 0, tzinfo=UTC)) == []
    await world.router.handle(CommandIssued(GROUP, "reminder", "resume 1", admin=True))
    assert await world.dispatcher.next_due_at() == datetime(2026, 3, 4, 9, 0, tzinfo=UTC)
    posts = await posts_until(world, datetime(2026, 3, 5, 8, 0, tzinfo=UTC))
    assert len(posts) == 1


async def test_a_refused_post_pauses_the_reminder_and_tells_its_admin_once(
    world: World, text_of: Callable[..., str]
) -> None:
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    await add(world, "09:00 UTC mon-fri")
    world.clock.set(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    world.adapter.failures.append(RecipientUnreachable("not enough rights"))
    await world.tick()
    await world.outbox.drain()
    [(address, reply)] = world.adapter.take()
    assert address == Address("test", "admin-1", "admin-1")
    assert reply.text == text_of(
        ReminderMsg.REMINDER_LOST_PERMISSION, number=1, when="09:00 UTC, mon-fri"
    )
    reminder = await only_reminder(world)
    assert reminder.paused is PausedBecause.NO_PERMISSION
    assert reminder.next_due_at is None
    # Nothing more: no post, no second note, and nobody was marked unreachable.
    assert await posts_until(world, datetime(2026, 3, 5, 9, 0, tzinfo=UTC)) == []
    assert world.adapter.take() == []
    unreachable = await world.services.db.fetch_one(
        "SELECT COUNT(*) AS n FROM users WHERE unreachable_since IS NOT NULL"
    )
    assert unreachable is not None and unreachable["n"] == 0


async def test_a_refused_post_of_a_forgotten_admin_tells_nobody(world: World) -> None:
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    await add(world, "09:00 UTC")
    async with world.services.db.transaction() as tx:
        await group_reminders.forget_creator(tx, "test", "admin-1")
    world.clock.set(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    world.adapter.failures.append(RecipientUnreachable("bot was kicked"))
    await world.tick()
    await world.outbox.drain()
    assert world.adapter.take() == []
    assert (await only_reminder(world)).paused is PausedBecause.NO_PERMISSION


async def test_a_claimed_reminder_is_not_claimed_again(world: World) -> None:
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    await add(world, "09:00 UTC")
    world.clock.set(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    first, again = await world.dispatcher.tick(), await world.dispatcher.tick()
    assert (first.reminders, again.reminders) == (1, 0)
    reminder = await only_reminder(world)
    assert reminder.last_local_date is not None
    assert reminder.last_local_date.isoformat() == "2026-03-02"
    assert reminder.next_due_at == datetime(2026, 3, 3, 9, 0, tzinfo=UTC)


async def test_a_post_paused_while_it_waited_is_not_sent(world: World) -> None:
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    await add(world, "09:00 UTC")
    reminder = await only_reminder(world)
    await world.router.handle(CommandIssued(GROUP, "reminder", "pause 1", admin=True))
    group = Address("test", "group-1", "", is_group=True)
    post = Outgoing(group, Reply("claimed before the pause"), guard=while_active(reminder.id))
    await world.outbox.enqueue(post)
    await world.outbox.drain()
    assert world.adapter.take() == []


async def test_an_admins_pause_is_not_overwritten_by_a_refused_post(world: World) -> None:
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    await add(world, "09:00 UTC")
    reminder = await only_reminder(world)
    await world.router.handle(CommandIssued(GROUP, "reminder", "pause 1", admin=True))
    async with world.services.db.transaction() as tx:
        told = await group_reminders.pause_for_lost_permission(tx, reminder.id, world.clock.now())
    assert not told
    assert (await only_reminder(world)).paused is PausedBecause.ADMIN


async def test_more_due_posts_than_a_chunk_are_each_posted_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(posting, "CLAIM_CHUNK", 2)
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    for minute in range(5):  # five reminders at one minute, from five groups' admins
        at = Address("test", f"group-{minute}", "admin-1", is_group=True)
        [reply] = await world.router.handle(
            CommandIssued(at, "reminder", "add 09:00 UTC", admin=True)
        )
        assert reply.text.startswith("Reminder "), reply.text
    world.clock.set(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    report = await world.dispatcher.tick()
    await world.outbox.drain()
    posted = sorted(address.chat_id for address, _ in world.adapter.take() if address.is_group)
    assert posted == [f"group-{n}" for n in range(5)]
    assert report.reminders == 5
    await world.tick()  # nothing left due: the chunks moved every reminder on
    assert [a for a, _ in world.adapter.take() if a.is_group] == []
