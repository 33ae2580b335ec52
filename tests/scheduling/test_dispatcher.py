"""Check-ins arrive at the user's local time, once, across DST, downtime and failures."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.platform import RecipientUnreachable, RetryAfter
from bot.storage.checkin_slots import list_slots
from bot.storage.users import find_user
from tests.helpers.world import World, build_world


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


async def test_checkin_arrives_daily_at_local_time_with_neutral_opening(
    world: World, content: ContentPack
) -> None:
    await world.onboard("ana", "Europe/Berlin", "08:30")  # 08:30 CET = 07:30 UTC
    delivered = await world.run_until(utc(2026, 3, 5, 9, 0))
    assert delivered == [utc(2026, 3, 3, 7, 30), utc(2026, 3, 4, 7, 30), utc(2026, 3, 5, 7, 30)]

    world.adapter.take()
    world.clock.set(utc(2026, 3, 6, 7, 30))
    await world.tick()
    [(address, reply)] = world.checkins_sent()
    assert address.user_id == "ana"
    first_line = reply.text.splitlines()[0]
    neutral = {
        o.text
        for o in content.openings("en")
        if o.time_of_day in ("morning", "any") and o.register == "neutral"
    }
    assert first_line in neutral
    labels = [button.label for button in reply.flat_buttons]
    assert labels[:5] == ["1 · very low", "2 · low", "3 · so-so", "4 · okay", "5 · good"]
    assert labels[5:] == [
        "I'm having an urge right now",
        "Ask me again in 1 hour", "Ask me again in 3 hours", "No more today, see you tomorrow",
    ]  # fmt: skip


async def test_openings_rotate_without_repeating_back_to_back(world: World) -> None:
    await world.onboard("ana", "Europe/Berlin", "08:30")
    await world.run_until(utc(2026, 3, 20, 9, 0), step=timedelta(minutes=30))
    first_lines = [reply.text.splitlines()[0] for _, reply in world.checkins_sent()]
    assert len(first_lines) == 18
    assert all(a != b for a, b in pairwise(first_lines))
    assert len(set(first_lines)) > 5


@pytest.mark.parametrize(
    ("timezone", "local_time", "start", "end", "expected"),
    [
        pytest.param(
            "Europe/Berlin", "02:30", utc(2026, 3, 27, 12), utc(2026, 3, 31, 6),
            [utc(2026, 3, 28, 1, 30), utc(2026, 3, 29, 1, 30), utc(2026, 3, 30, 0, 30),
             utc(2026, 3, 31, 0, 30)],
            id="berlin-gap-fires-once-shifted-to-03:30",
        ),
        pytest.param(
            "Europe/Berlin", "02:30", utc(2026, 10, 23, 12), utc(2026, 10, 27, 6),
            [utc(2026, 10, 24, 0, 30), utc(2026, 10, 25, 0, 30), utc(2026, 10, 26, 1, 30),
             utc(2026, 10, 27, 1, 30)],
            id="berlin-overlap-fires-once-at-first",
        ),
        pytest.param(
            "America/New_York", "02:30", utc(2026, 3, 6, 12), utc(2026, 3, 10, 12),
            [utc(2026, 3, 7, 7, 30), utc(2026, 3, 8, 7, 30), utc(2026, 3, 9, 6, 30),
             utc(2026, 3, 10, 6, 30)],
            id="new-york-gap",
        ),
        pytest.param(
            "America/New_York", "01:30", utc(2026, 10, 30, 12), utc(2026, 11, 3, 12),
            [utc(2026, 10, 31, 5, 30), utc(2026, 11, 1, 5, 30), utc(2026, 11, 2, 6, 30),
             utc(2026, 11, 3, 6, 30)],
            id="new-york-overlap",
        ),
        pytest.param(
            "Asia/Kolkata", "09:00", utc(2026, 3, 2, 12), utc(2026, 3, 4, 12),
            [utc(2026, 3, 3, 3, 30), utc(2026, 3, 4, 3, 30)],
            id="kolkata-half-hour",
        ),
        pytest.param(
            "Asia/Kathmandu", "07:00", utc(2026, 3, 2, 12), utc(2026, 3, 4, 12),
            [utc(2026, 3, 3, 1, 15), utc(2026, 3, 4, 1, 15)],
            id="kathmandu-45-minutes",
        ),
        pytest.param(
            "Australia/Lord_Howe", "02:15", utc(2026, 10, 2, 0), utc(2026, 10, 5, 12),
            [utc(2026, 10, 2, 15, 45), utc(2026, 10, 3, 15, 45), utc(2026, 10, 4, 15, 15)],
            id="lord-howe-half-hour-gap",
        ),
        pytest.param(
            "Australia/Lord_Howe", "01:45", utc(2026, 4, 3, 0), utc(2026, 4, 6, 0),
            [utc(2026, 4, 3, 14, 45), utc(2026, 4, 4, 14, 45), utc(2026, 4, 5, 15, 15)],
            id="lord-howe-half-hour-overlap",
        ),
    ],
)  # fmt: skip
async def test_local_time_across_dst_and_odd_offsets(
    world: World,
    timezone: str,
    local_time: str,
    start: datetime,
    end: datetime,
    expected: list[datetime],
) -> None:
    world.clock.set(start)
    await world.onboard("ana", timezone, local_time)
    assert await world.run_until(end) == expected


async def test_chosen_days_only(world: World) -> None:
    chat = await world.onboard("ana", "UTC", "09:00")
    await chat.send("/settings")
    await chat.press("Days")
    await chat.send("mon-fri")
    await chat.press("Done")
    world.clock.set(utc(2026, 3, 6, 10))  # a Friday, after the slot
    delivered = await world.run_until(utc(2026, 3, 10, 10), step=timedelta(minutes=15))
    assert delivered == [utc(2026, 3, 9, 9), utc(2026, 3, 10, 9)]  # Monday, Tuesday


async def test_two_slots_due_together_after_downtime_send_one_checkin(world: World) -> None:
    chat = await world.onboard("ana", "UTC", "09:00")
    await chat.send("/settings")
    await chat.press("Check-in times")
    await chat.send("09:00, 10:00")
    await chat.press("Done")
    world.clock.set(utc(2026, 3, 3, 10, 30))  # both 09:00 and 10:00 missed, within grace
    report = await world.tick()
    assert report.claimed == 2
    assert len(world.checkins_sent()) == 1


async def test_snooze_asks_again_an_hour_later(world: World) -> None:
    await world.onboard("ana", "Europe/Berlin", "08:30")
    world.clock.set(utc(2026, 3, 3, 7, 30))
    await world.tick()
    chat = world.chat("ana")
    chat.history = [reply for _, reply in world.checkins_sent()]
    await chat.press("Ask me again in 1 hour")
    assert chat.text == "All right. I'll ask again at 09:30."
    assert await world.run_until(utc(2026, 3, 3, 10, 0), step=timedelta(minutes=1)) == [
        utc(2026, 3, 3, 8, 30)
    ]


async def test_snooze_into_quiet_hours_waits_for_their_end(world: World) -> None:
    chat = await world.onboard("ana", "UTC", "21:00")
    await chat.send("/settings")
    await chat.press("Quiet hours")
    await chat.send("22:00-07:00")
    await chat.press("Done")
    world.clock.set(utc(2026, 3, 2, 21, 0))
    await world.tick()
    chat.history = [reply for _, reply in world.checkins_sent()]
    await chat.press("Ask me again in 3 hours")
    assert chat.text == "All right. I'll ask again at 07:00."
    delivered = await world.run_until(utc(2026, 3, 3, 8), step=timedelta(minutes=10))
    assert delivered == [utc(2026, 3, 3, 7, 0)]


async def test_snooze_until_tomorrow_skips_the_rest_of_today(world: World) -> None:
    chat = await world.onboard("ana", "UTC", "08:00")
    await chat.send("/settings")
    await chat.press("Check-in times")
    await chat.send("08:00 20:00")
    await chat.press("Done")
    world.clock.set(utc(2026, 3, 3, 8, 0))
    await world.tick()
    chat.history = [reply for _, reply in world.checkins_sent()]
    await chat.press("No more today")
    delivered = await world.run_until(utc(2026, 3, 4, 9), step=timedelta(minutes=10))
    assert delivered == [utc(2026, 3, 4, 8, 0)]


async def test_pause_stop_and_resume(world: World) -> None:
    chat = await world.onboard("ana", "UTC", "09:00")
    await chat.send("/settings")
    await chat.press("Pause check-ins")
    await chat.press("3 days")
    assert "They start again by themselves on Thu 05 Mar" in chat.text
    delivered = await world.run_until(utc(2026, 3, 7, 10), step=timedelta(minutes=30))
    assert delivered == [utc(2026, 3, 5, 9), utc(2026, 3, 6, 9), utc(2026, 3, 7, 9)]

    await chat.send("/settings")
    await chat.press("Stop check-ins")
    assert await world.run_until(utc(2026, 3, 14, 10), step=timedelta(hours=1)) == []
    await chat.send("/settings")
    await chat.press("Resume check-ins")
    assert chat.text == "Check-ins are back on. Your next one is Sun 09:00."
    assert await world.run_until(utc(2026, 3, 15, 10), step=timedelta(hours=1)) == [
        utc(2026, 3, 15, 9)
    ]


async def test_checkin_waits_while_user_is_busy_in_another_conversation(world: World) -> None:
    chat = await world.onboard("ana", "UTC", "09:00")
    world.clock.set(utc(2026, 3, 3, 8, 58))
    await chat.send("/settings")  # in the middle of something at 08:58
    delivered = await world.run_until(utc(2026, 3, 3, 10), step=timedelta(minutes=1))
    assert delivered == [utc(2026, 3, 3, 9, 15)]


async def test_retry_after_is_honoured(world: World) -> None:
    await world.onboard("ana", "UTC", "09:00")
    world.adapter.failures.append(RetryAfter(7))
    world.clock.set(utc(2026, 3, 3, 9))
    await world.tick()
    assert world.sleeps.asked == [7]
    assert len(world.checkins_sent()) == 1


async def test_blocked_user_is_not_retried_until_they_write_again(world: World) -> None:
    chat = await world.onboard("ana", "UTC", "09:00")
    world.adapter.failures.append(RecipientUnreachable())
    world.clock.set(utc(2026, 3, 3, 9))
    await world.tick()
    assert world.adapter.sent == [] and world.sleeps.asked == []
    user = await find_user(world.services.db, "test", "ana")
    assert user is not None and user.unreachable_since is not None

    world.clock.set(utc(2026, 3, 4, 9))
    report = await world.tick()
    assert report.unreachable == 1 and world.adapter.sent == []

    await chat.send("/help")  # they came back
    world.clock.set(utc(2026, 3, 5, 9))
    await world.tick()
    assert len(world.checkins_sent()) == 1


async def test_late_checkin_within_grace_after_30_minutes_down(
    settings: Settings, clock: ManualClock
) -> None:
    clock.set(utc(2026, 3, 3, 6))
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await world.onboard("ana", "UTC", "09:00")
        clock.set(utc(2026, 3, 3, 8, 59))
        await world.tick()
        await world.outbox.stop()  # the process goes down before 09:00
    clock.set(utc(2026, 3, 3, 9, 30))
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await world.tick()
        assert len(world.checkins_sent()) == 1
        assert await world.run_until(utc(2026, 3, 4, 8), step=timedelta(minutes=30)) == []
        await world.outbox.stop()


async def test_no_checkin_after_6_hours_down_until_the_next_slot(
    settings: Settings, clock: ManualClock
) -> None:
    clock.set(utc(2026, 3, 3, 6))
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await world.onboard("ana", "UTC", "09:00")
        await world.outbox.stop()
    clock.set(utc(2026, 3, 3, 15))
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        report = await world.tick()
        assert (report.claimed, report.missed, world.adapter.sent) == (1, 1, [])
        assert await world.run_until(utc(2026, 3, 4, 10), step=timedelta(minutes=30)) == [
            utc(2026, 3, 4, 9)
        ]
        await world.outbox.stop()


async def test_killed_between_claim_and_send_never_sends_twice(
    settings: Settings, clock: ManualClock
) -> None:
    clock.set(utc(2026, 3, 3, 6))
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await world.onboard("ana", "UTC", "09:00")
        await world.outbox.stop()  # workers gone: what is claimed now is never sent
        clock.set(utc(2026, 3, 3, 9))
        report = await world.dispatcher.tick()
        assert report.started == 1 and world.adapter.sent == []
    async with open_services(settings, clock) as services:  # restarted at the same minute
        world = await build_world(services, clock)
        report = await world.tick()
        assert report.claimed == 0 and world.adapter.sent == []
        user = await find_user(services.db, "test", "ana")
        assert user is not None
        [slot] = await list_slots(services.db, user.id)
        assert slot.next_due_at == utc(2026, 3, 4, 9)
        assert str(slot.last_local_date) == "2026-03-03"
        await world.outbox.stop()
