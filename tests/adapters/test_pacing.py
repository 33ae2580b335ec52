"""The group pacer: never more than the limit in any window, and other chats never wait."""

from __future__ import annotations

import asyncio

from bot.adapters.pacing import ChatPacer


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


async def test_the_limit_holds_in_every_window() -> None:
    clock = FakeTime()
    pacer = ChatPacer(20, 60.0, clock.sleep, now=lambda: clock.now)
    sent: list[float] = []
    for _ in range(45):
        await pacer.wait_turn("-1")
        sent.append(clock.now)
        clock.now += 0.5  # a send takes half a second
    for start in sent:
        assert len([at for at in sent if start <= at < start + 60]) <= 20
    assert sent[20] == 60.0  # the 21st waits for the 1st to leave the window, no longer


async def test_another_chat_does_not_wait() -> None:
    clock = FakeTime()
    pacer = ChatPacer(2, 60.0, clock.sleep, now=lambda: clock.now)
    await pacer.wait_turn("-1")
    await pacer.wait_turn("-1")
    await pacer.wait_turn("-2")
    assert clock.slept == []
    await asyncio.gather(pacer.wait_turn("-1"), pacer.wait_turn("-1"))
    assert clock.slept == [60.0]  # both waited one turn in a queue, the clock moved once


async def test_chats_quiet_for_a_whole_window_are_forgotten() -> None:
    clock = FakeTime()
    pacer = ChatPacer(20, 60.0, clock.sleep, now=lambda: clock.now)
    for chat in range(1_001):
        await pacer.wait_turn(str(-chat))
    clock.now += 3600
    await pacer.wait_turn("-5000")
    assert len(pacer._sent) == 1  # only the chat that just posted is remembered
