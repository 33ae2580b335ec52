"""/forget in the middle of things: nothing is kept, and nothing arrives afterwards."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from bot.content_pack.ids import AnswersMsg, DataMsg, GeneralMsg, PauseMsg
from bot.core.clock import ManualClock
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation
from tests.helpers.waiting import until
from tests.helpers.world import World

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def forget(chat: Conversation, text_of: Callable[..., str]) -> None:
    await chat.send("/forget")
    await chat.press(text_of(DataMsg.FORGET_YES))
    assert chat.text == text_of(DataMsg.FORGET_DONE)


async def test_forget_in_the_middle_of_a_check_in_keeps_nothing(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("strong")  # now at the note
    await forget(chat, text_of)
    [reply] = await chat.send("the note I was about to write")
    assert reply.text == text_of(AnswersMsg.BEFORE_START)  # no flow is waiting: they are new again
    assert await find_user(world.services.db, "test", "ana") is None
    assert await world.run_until(START + timedelta(days=3), step=timedelta(hours=1)) == []


async def test_forget_in_the_middle_of_writing_a_draft_keeps_nothing(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = world.chat("ana")
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WRITE))
    await chat.send("words sealed in the position row")
    keep = chat.button(text_of(PauseMsg.WRITE_KEEP)).data
    await forget(chat, text_of)
    [notice] = await chat.press_data(keep)
    assert notice.text == text_of(GeneralMsg.BUTTON_EXPIRED)
    assert await find_user(world.services.db, "test", "ana") is None


async def test_forget_during_a_pending_follow_up_sends_nothing_ever(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = world.chat("ana")
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WAIT))
    await chat.press(text_of(PauseMsg.WAIT_10))
    await forget(chat, text_of)
    world.adapter.take()
    assert await world.run_until(START + timedelta(hours=2), step=timedelta(minutes=1)) == []


async def test_forget_while_the_follow_up_waits_in_the_queue_sends_nothing(
    world: World, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    """Claimed and queued, but the platform is slow: the forget comes first."""
    chat = world.chat("ana")
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WAIT))
    await chat.press(text_of(PauseMsg.WAIT_10))
    world.adapter.take()
    gate = asyncio.Event()
    send = world.adapter.send

    waiting: list[object] = []

    async def slow_send(*args: object, **kwargs: object) -> object:
        waiting.append(args)
        await gate.wait()
        return await send(*args, **kwargs)  # type: ignore[arg-type]

    world.adapter.send = slow_send  # type: ignore[method-assign]
    # Keep every worker busy so the follow-up waits in the queue.
    workers = world.outbox.workers_per_platform
    for n in range(workers):
        busy = await world.onboard(f"busy{n}", "UTC", "09:10")
        await busy.send("/cancel")  # out of onboarding, so the check-in is not put off
    clock.set(START + timedelta(minutes=10))
    report = await world.dispatcher.tick()
    assert (report.started, report.followups) == (workers, 1)
    # The workers take the check-ins and wait on the platform.
    await until(lambda: len(waiting) == workers, what="every worker to be sending")
    await forget(chat, text_of)
    gate.set()
    await world.outbox.drain()
    sent_to = sorted(a.user_id for a, _ in world.adapter.take())
    assert sent_to == sorted(f"busy{n}" for n in range(workers))


async def test_forget_while_a_check_in_waits_in_the_queue_sends_nothing(
    world: World, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    """A routine check-in claimed a moment before the forget must not follow it."""
    gate = asyncio.Event()
    send = world.adapter.send

    waiting: list[object] = []

    async def slow_send(*args: object, **kwargs: object) -> object:
        waiting.append(args)
        await gate.wait()
        return await send(*args, **kwargs)  # type: ignore[arg-type]

    workers = world.outbox.workers_per_platform  # all busy, so ana's check-in waits in line
    for n in range(workers):
        busy = await world.onboard(f"busy{n}", "UTC", "09:10")
        await busy.send("/cancel")
    chat = await world.onboard("ana", "UTC", "09:10")
    await chat.send("/cancel")
    world.adapter.take()
    world.adapter.send = slow_send  # type: ignore[method-assign]
    clock.set(START + timedelta(minutes=10))
    assert (await world.dispatcher.tick()).started == workers + 1
    await until(lambda: len(waiting) == workers, what="every worker to be sending")
    await forget(chat, text_of)
    gate.set()
    await world.outbox.drain()
    sent_to = sorted(a.user_id for a, _ in world.adapter.take())
    assert sent_to == sorted(f"busy{n}" for n in range(workers))
