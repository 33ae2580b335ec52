"""Caring checks as due work: due, missed during downtime, refused by the platform, claimed
and lost in a crash (never sent twice), and what a pause or a stop of check-ins does."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import CaringMsg, OnboardingMsg
from bot.core.clock import ManualClock
from bot.core.platform import RecipientUnreachable
from bot.core.replies import Reply
from bot.scheduling.caring_due import KIND, plan_caring_check
from bot.storage.caring_checks import get_check
from bot.storage.queries import to_epoch
from bot.storage.users import (
    ALL_WEEKDAYS_MASK,
    QuietHours,
    User,
    find_user,
    set_checkins_stopped,
    set_paused_until,
    set_quiet_hours,
    weekdays_from_mask,
)
from tests.helpers.conversation import Conversation
from tests.helpers.world import World, build_world

# What the caring check leads to, not how long its offer may take (see the fixture).
pytestmark = pytest.mark.usefixtures("unhurried_follow_ups")

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # 10:00 in Berlin
DUE = datetime(2026, 3, 3, 7, 30, tzinfo=UTC)  # 08:30 in Berlin, the next day
CRISIS = "i want to die"


def caring_sent(world: World, text_of: Callable[..., str]) -> list[Reply]:
    return [
        reply for _, reply in world.adapter.take() if reply.text == text_of(CaringMsg.CARING_CHECK)
    ]


async def asked_for(world: World, text_of: Callable[..., str], name: str = "ana") -> Conversation:
    """Onboarded in Berlin at 08:30, then a crisis message and "Yes, please"."""
    chat = await world.onboard(name, "Europe/Berlin", "08:30")
    await chat.send(CRISIS)
    [scheduled] = await chat.press(text_of(CaringMsg.CARING_OFFER_YES))
    assert scheduled.text == text_of(CaringMsg.CARING_SCHEDULED, time="08:30")
    world.adapter.take()
    return chat


async def user_of(world: World, chat: Conversation) -> User:
    user = await find_user(world.services.db, chat.address.platform, chat.address.user_id)
    assert user is not None
    return user


async def test_down_when_it_was_due_it_comes_once_on_return(
    world: World, text_of: Callable[..., str]
) -> None:
    await asked_for(world, text_of)
    world.clock.set(DUE + timedelta(hours=5))  # no tick ran meanwhile
    report = await world.tick()
    assert report.handed_over[KIND] == 1
    assert len(caring_sent(world, text_of)) == 1
    await world.run_until(DUE + timedelta(days=2))
    assert caring_sent(world, text_of) == []


async def test_more_than_a_day_late_it_is_dropped(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await asked_for(world, text_of)
    world.clock.set(DUE + timedelta(days=1, hours=1))
    report = await world.tick()
    assert report.handed_over[KIND] == 0
    assert report.missed == 2  # that day's check-in, and the caring check
    assert caring_sent(world, text_of) == []
    check = await get_check(world.services.db, (await user_of(world, chat)).id)
    assert check is not None and check.next_due_at is None  # nothing left pending
    await world.run_until(DUE + timedelta(days=3))
    assert caring_sent(world, text_of) == []


async def test_back_in_quiet_hours_it_waits_for_their_end(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await asked_for(world, text_of)
    async with world.services.db.transaction() as tx:
        await set_quiet_hours(tx, (await user_of(world, chat)).id, QuietHours(time(22), time(7)))
    world.clock.set(DUE + timedelta(hours=14, minutes=30))  # back at 23:00 in Berlin
    report = await world.tick()
    assert report.handed_over[KIND] == 0 and report.deferred == 1
    end = datetime(2026, 3, 4, 6, 0, tzinfo=UTC)  # 07:00 in Berlin
    await world.run_until(end - timedelta(minutes=5))
    assert caring_sent(world, text_of) == []
    await world.run_until(end)
    [message] = caring_sent(world, text_of)
    assert not message.silent


async def test_refused_by_the_platform_it_is_not_tried_again(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = world.chat("noor")
    await chat.send("/start")
    await chat.send("Europe/Berlin")
    await chat.press(text_of(OnboardingMsg.TIMEZONE_YES))  # no check-in time: nothing else is sent
    await chat.send(CRISIS)
    await chat.press(text_of(CaringMsg.CARING_OFFER_YES))
    world.adapter.take()
    world.adapter.failures.append(RecipientUnreachable())  # the user blocked the bot
    await world.run_until(datetime(2026, 3, 3, 9, 0, tzinfo=UTC))  # 10:00 in Berlin
    assert world.outbox.stats.unreachable == 1
    user = await user_of(world, chat)
    assert user.unreachable_since is not None
    check = await get_check(world.services.db, user.id)
    assert check is not None and (check.next_due_at, check.claimed_at) == (None, None)
    await world.run_until(datetime(2026, 3, 5, 9, 0, tzinfo=UTC))
    assert caring_sent(world, text_of) == []


async def test_claimed_and_not_yet_sent_in_a_crash_is_sent_once_after_it(
    settings: Settings, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    """The claim wrote the message to the outbox table: the next run sends it, once."""
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await asked_for(world, text_of)
        await world.outbox.stop()  # the sender is gone: the claim below is not sent here
        clock.set(DUE)
        report = await world.dispatcher.tick()
        assert report.handed_over[KIND] == 1 and world.adapter.sent == []
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await world.run_until(DUE + timedelta(days=2))
        assert len(caring_sent(world, text_of)) == 1
        user = await services.db.fetch_one("SELECT claimed_at FROM caring_checks")
        assert user is not None and user["claimed_at"] is None  # its claim ended on delivery
        await world.outbox.stop()


async def test_a_crash_while_its_request_was_out_never_sends_it_again(
    settings: Settings, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    """Its attempt was marked started: it may have arrived, so at most once holds."""
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await asked_for(world, text_of)
        await world.outbox.stop()
        clock.set(DUE)
        await world.dispatcher.tick()
        async with services.db.transaction() as tx:  # as the request went out, the crash
            await tx.execute("UPDATE outbox SET attempt_at = ?", (to_epoch(DUE),))
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await world.run_until(DUE + timedelta(days=2))
        assert caring_sent(world, text_of) == []
        await world.outbox.stop()


async def test_a_pause_of_checkins_does_not_hold_it_back(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await asked_for(world, text_of)
    async with world.services.db.transaction() as tx:
        await set_paused_until(tx, (await user_of(world, chat)).id, DUE + timedelta(days=7))
    await world.run_until(DUE)
    assert len(caring_sent(world, text_of)) == 1


async def test_checkins_stopped_after_yes_drop_it(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await asked_for(world, text_of)
    async with world.services.db.transaction() as tx:
        await set_checkins_stopped(tx, (await user_of(world, chat)).id, True)
    await world.run_until(DUE + timedelta(days=1))
    assert caring_sent(world, text_of) == []


async def test_checkins_stopped_before_yes_do_not(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    async with world.services.db.transaction() as tx:
        await set_checkins_stopped(tx, (await user_of(world, chat)).id, True)
    await chat.send(CRISIS)
    await chat.press(text_of(CaringMsg.CARING_OFFER_YES))  # asked for after the stop: wanted
    world.adapter.take()
    await world.run_until(DUE + timedelta(days=1))
    assert len(caring_sent(world, text_of)) == 1


def someone_in(timezone: str) -> User:
    return User(
        id=1,
        platform="test",
        platform_user_id="u",
        chat_id="c",
        locale="en",
        timezone=timezone,
        weekdays=weekdays_from_mask(ALL_WEEKDAYS_MASK),
        quiet_hours=None,
        paused_until=None,
        checkins_stopped=False,
        unreachable_since=None,
        last_reply_id=None,
        country=None,
        discreet=True,
        created_at=START,
        onboarded_at=START,
    )


def test_a_time_the_clocks_skip_moves_forward() -> None:
    # New York springs forward on 8 March 2026: 02:30 does not exist that night.
    user = someone_in("America/New_York")
    due = plan_caring_check(user, "02:30", datetime(2026, 3, 7, 15, 0, tzinfo=UTC))
    assert due == datetime(2026, 3, 8, 7, 30, tzinfo=UTC)  # 03:30 EDT
    assert due.astimezone(UTC).date() == date(2026, 3, 8)


def test_tomorrow_is_the_users_own_tomorrow() -> None:
    # 23:30 in Tokyo is still the morning in UTC: "tomorrow" is Tokyo's. 10:00 there
    # would be only 10.5 hours later: it comes 12 hours after, at 11:30 on 3 March.
    user = someone_in("Asia/Tokyo")
    due = plan_caring_check(user, None, datetime(2026, 3, 2, 14, 30, tzinfo=UTC))
    assert due == datetime(2026, 3, 3, 2, 30, tzinfo=UTC)
