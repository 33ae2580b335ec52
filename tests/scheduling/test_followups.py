"""The urge timer's follow-up arrives once, also across a restart or a crash mid-send."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import DataMsg, Msg, PauseMsg, ReasonsMsg
from bot.core.clock import ManualClock
from bot.storage.urges import pause_counts
from bot.storage.users import find_user
from tests.helpers.world import World, build_world

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def followups(world: World, text_of: Callable[..., str]) -> list[str]:
    return [r.text for _, r in world.adapter.take() if r.text == text_of(PauseMsg.FOLLOWUP)]


async def start_timer(world: World, minutes: Msg, text_of: Callable[..., str]) -> None:
    chat = world.chat("ana")
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WAIT))
    await chat.press(text_of(minutes))


async def test_followup_arrives_once_and_answers_are_counted(
    world: World, text_of: Callable[..., str]
) -> None:
    await start_timer(world, PauseMsg.WAIT_10, text_of)
    assert await world.run_until(START + timedelta(minutes=9), step=timedelta(minutes=1)) == []
    await world.run_until(START + timedelta(minutes=40), step=timedelta(minutes=1))
    sent = world.adapter.take()
    assert [r.text for _, r in sent] == [text_of(PauseMsg.FOLLOWUP)]
    chat = world.chat("ana")
    chat.history = [reply for _, reply in sent]
    await chat.press(text_of(PauseMsg.FOLLOWUP_PASSED))
    assert chat.text == text_of(PauseMsg.PASSED_REPLY)
    user = await find_user(world.services.db, "test", "ana")
    assert user is not None
    counts = await pause_counts(world.services.db, user.id, START - timedelta(days=1))
    assert (counts.paused, counts.passed) == (1, 1)


async def test_followup_answers_still_strong_and_more_time(
    world: World, text_of: Callable[..., str]
) -> None:
    await start_timer(world, PauseMsg.WAIT_10, text_of)
    await world.run_until(START + timedelta(minutes=10), step=timedelta(minutes=10))
    chat = world.chat("ana")
    chat.history = [reply for _, reply in world.adapter.take()]
    await chat.press(text_of(PauseMsg.FOLLOWUP_STRONG))
    assert chat.text == f"{text_of(PauseMsg.STRONG_REPLY)}\n\n{text_of(PauseMsg.PAUSE_MENU)}"
    await chat.press(text_of(PauseMsg.PAUSE_WAIT))
    await chat.press(text_of(PauseMsg.WAIT_30))
    await world.run_until(START + timedelta(minutes=40), step=timedelta(minutes=5))
    chat.history = [reply for _, reply in world.adapter.take()]
    assert chat.history[-1].text == text_of(PauseMsg.FOLLOWUP)
    await chat.press(text_of(PauseMsg.FOLLOWUP_MORE_TIME))
    assert chat.text == text_of(PauseMsg.WAIT_PROMPT)
    await chat.press(text_of(PauseMsg.WAIT_10))
    assert chat.text == text_of(PauseMsg.WAIT_STARTED, time="09:50")


async def test_followup_survives_a_restart_during_the_wait(
    settings: Settings, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await start_timer(world, PauseMsg.WAIT_20, text_of)
        await world.outbox.stop()
    clock.set(START + timedelta(minutes=35))  # down for the whole wait
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await world.tick()
        await world.tick()
        assert followups(world, text_of) == [text_of(PauseMsg.FOLLOWUP)]
        await world.outbox.stop()


async def test_followup_claimed_but_not_sent_is_sent_after_a_crash(
    settings: Settings, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await start_timer(world, PauseMsg.WAIT_10, text_of)
        await world.outbox.stop()  # the sender is gone: the claim below is never sent
        clock.set(START + timedelta(minutes=10))
        report = await world.dispatcher.tick()
        assert report.followups == 1 and world.adapter.sent == []
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        assert (await world.tick()).taken_over == 0  # still within the outbox row's lease
        assert followups(world, text_of) == []
        clock.advance(timedelta(minutes=3))
        report = await world.tick()
        # The outbox row is taken over and sent; the follow-up is not claimed again.
        assert (report.taken_over, report.followups) == (1, 0)
        assert followups(world, text_of) == [text_of(PauseMsg.FOLLOWUP)]
        clock.advance(timedelta(minutes=10))
        assert (await world.tick()).followups == 0  # delivered: never again
        assert followups(world, text_of) == []
        await world.outbox.stop()


async def test_forget_during_a_pending_followup_sends_nothing(
    world: World, text_of: Callable[..., str]
) -> None:
    await start_timer(world, PauseMsg.WAIT_10, text_of)
    chat = world.chat("ana")
    await chat.send("/forget")
    await chat.press(text_of(DataMsg.FORGET_YES))
    world.adapter.take()
    assert await world.run_until(START + timedelta(hours=1), step=timedelta(minutes=5)) == []


async def test_a_followup_left_open_over_a_restart_is_shown_again_and_its_buttons_work(
    settings: Settings, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await start_timer(world, PauseMsg.WAIT_10, text_of)
        clock.set(START + timedelta(minutes=10))
        await world.tick()
        assert followups(world, text_of) == [text_of(PauseMsg.FOLLOWUP)]
        await world.outbox.stop()
    clock.advance(timedelta(minutes=5))  # a restart, before any answer
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        chat = world.chat("ana")
        [again] = await world.router.reshow(chat.address)
        assert again.text.endswith(text_of(PauseMsg.FOLLOWUP))
        chat.history = [again]
        await chat.press(text_of(PauseMsg.FOLLOWUP_PASSED))
        assert chat.text == text_of(PauseMsg.PASSED_REPLY)
        await world.outbox.stop()


async def test_an_old_open_question_does_not_hold_back_a_followup(
    world: World, text_of: Callable[..., str]
) -> None:
    await start_timer(world, PauseMsg.WAIT_20, text_of)
    chat = world.chat("ana")
    world.clock.set(START + timedelta(minutes=5))
    await chat.send("/reasons")
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))  # then left open, unanswered
    await world.run_until(START + timedelta(minutes=20), step=timedelta(minutes=5))
    assert followups(world, text_of) == [text_of(PauseMsg.FOLLOWUP)]  # on time, not deferred
