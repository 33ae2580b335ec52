"""Races found in review: /forget against a tick, slow sends against follow-up claims."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from bot.content_pack.ids import CheckinMsg, DataMsg, PauseMsg
from bot.core.platform import RetryAfter
from bot.storage.users import find_user
from tests.helpers.world import World

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def test_forget_during_a_tick_neither_blocks_others_nor_revives_the_user(
    world: World, text_of: Callable[..., str]
) -> None:
    for name in ("ana", "ben", "cai"):
        await world.onboard(name, "UTC", "10:00")
    ben = world.chat("ben")
    await ben.send("/forget")
    world.clock.set(START + timedelta(hours=1))
    await asyncio.gather(world.tick(), ben.press(text_of(DataMsg.FORGET_YES)))
    await world.outbox.drain()
    assert ben.text == text_of(DataMsg.FORGET_DONE)
    assert await find_user(world.services.db, "test", "ben") is None
    sent_to = sorted(address.user_id for address, _ in world.checkins_sent())
    assert "ana" in sent_to and "cai" in sent_to
    positions = await world.services.db.fetch_all("SELECT user_id FROM flow_positions")
    users = await world.services.db.fetch_all("SELECT id FROM users")
    assert {row["user_id"] for row in positions} <= {row["id"] for row in users}


async def test_a_followup_queued_before_forget_is_not_sent_after_it(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = world.chat("ana")
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WAIT))
    await chat.press(text_of(PauseMsg.WAIT_10))
    await world.outbox.stop()  # hold the queue: claimed and queued, not yet sent
    world.clock.set(START + timedelta(minutes=10))
    report = await world.dispatcher.tick()
    assert report.followups == 1
    await chat.send("/forget")
    await chat.press(text_of(DataMsg.FORGET_YES))
    await world.outbox.start()
    await world.outbox.drain()
    assert [r.text for _, r in world.adapter.sent if r.text == text_of(PauseMsg.FOLLOWUP)] == []
    assert await find_user(world.services.db, "test", "ana") is None


async def test_a_slow_followup_send_is_not_claimed_again(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = world.chat("ana")
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WAIT))
    await chat.press(text_of(PauseMsg.WAIT_10))
    world.adapter.failures.append(RetryAfter(180))  # the platform asks us to wait 3 minutes
    world.clock.set(START + timedelta(minutes=10))
    for _ in range(10):  # ten ticks over the next five minutes, the send still pending
        await world.dispatcher.tick()
        world.clock.advance(timedelta(seconds=30))
    await world.outbox.drain()
    followups = [r for _, r in world.adapter.sent if r.text == text_of(PauseMsg.FOLLOWUP)]
    assert len(followups) == 1


async def test_tomorrow_also_cancels_an_earlier_snooze(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "UTC", "09:00")
    await chat.send("/settings")
    await chat.press("Check-in times")
    await chat.send("09:00 10:00")
    await chat.press("Done")
    world.clock.set(START + timedelta(days=1))
    await world.tick()
    chat.history = [reply for _, reply in world.checkins_sent()]
    await chat.press(text_of(CheckinMsg.SNOOZE_3H))  # would ask again at 12:00
    world.clock.set(START + timedelta(days=1, hours=1))
    await world.tick()
    chat.history = [reply for _, reply in world.checkins_sent()]
    await chat.press(text_of(CheckinMsg.SNOOZE_TOMORROW))
    delivered = await world.run_until(START + timedelta(days=1, hours=14))
    assert delivered == []
