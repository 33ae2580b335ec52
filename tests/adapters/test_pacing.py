"""The group pacer: never more than the limit in any window, and other chats never wait."""

from __future__ import annotations

import asyncio

import pytest

from bot.adapters.pacing import ChatPacer


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


async def send(pacer: ChatPacer, chat_id: str) -> None:
    async with pacer.turn(chat_id):
        pass


async def test_the_limit_holds_in_every_window_of_arrivals() -> None:
    """The platform counts a message when it arrives, somewhere inside the call; a
    slow first call and a quick later one must still not put 21 in its window."""
    clock = FakeTime()
    pacer = ChatPacer(20, 60.0, clock.sleep, now=lambda: clock.now)
    arrived: list[float] = []
    for number in range(45):
        async with pacer.turn("-1"):
            started = clock.now
            slow = number == 0  # the first call arrives late in its half second
            clock.now += 0.5 if slow else 0.1
            arrived.append(clock.now if slow else started + 0.01)
    for start in arrived:
        assert len([at for at in arrived if start <= at < start + 60]) <= 20
    # The 21st starts once the 1st call's return has left the window, no later.
    assert arrived[20] == pytest.approx(0.5 + 60.0 + 0.01)


async def test_another_chat_does_not_wait() -> None:
    clock = FakeTime()
    pacer = ChatPacer(2, 60.0, clock.sleep, now=lambda: clock.now)
    await send(pacer, "-1")
    await send(pacer, "-1")
    await send(pacer, "-2")
    assert clock.slept == []
    await asyncio.gather(send(pacer, "-1"), send(pacer, "-1"))
    assert clock.slept == [60.0]  # both waited one turn in a queue, the clock moved once


async def test_chats_quiet_for_a_whole_window_are_forgotten() -> None:
    clock = FakeTime()
    pacer = ChatPacer(20, 60.0, clock.sleep, now=lambda: clock.now)
    for chat in range(1_001):
        await send(pacer, str(-chat))
    clock.now += 3600
    await send(pacer, "-5000")
    assert len(pacer._sent) == 1  # only the chat that just posted is remembered
