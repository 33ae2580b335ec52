"""The fakes' send limits, as strict as the platforms': the one too many is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta

import pytest
from telegram import Bot
from telegram.error import RetryAfter

from tests.fakes.flood_limits import FixedBucket, SlidingWindow, TokenBucket
from tests.fakes.telegram_api import FakeTelegram


@dataclass
class Clock:
    now: float = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_sliding_window_refuses_the_one_too_many_in_any_window() -> None:
    clock = Clock()
    window = SlidingWindow(3, 1.0, clock)
    assert [window.arrive() for _ in range(3)] == [None] * 3
    clock.now += 0.4
    assert window.arrive() == pytest.approx(0.6)  # refused, and not counted
    clock.now += 0.6
    assert window.arrive() is None  # the first three have left the window
    assert window.arrive() is None
    assert window.arrive() is None
    assert window.arrive() == pytest.approx(1.0)


def test_a_token_bucket_allows_a_burst_then_its_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(5, 1.0, clock)
    assert [bucket.arrive() for _ in range(5)] == [None] * 5
    assert bucket.arrive() == pytest.approx(1.0)
    clock.now += 0.5
    assert bucket.arrive() == pytest.approx(0.5)
    clock.now += 0.5
    assert bucket.arrive() is None
    assert bucket.arrive() == pytest.approx(1.0)


def test_a_fixed_bucket_resets_a_while_after_its_first_request() -> None:
    clock = Clock()
    bucket = FixedBucket(2, 5.0, clock)
    assert bucket.arrive() is None and bucket.remaining == 1
    clock.now += 1.0
    assert bucket.arrive() is None and bucket.remaining == 0
    assert bucket.arrive() == pytest.approx(4.0)
    clock.now += 4.0
    assert bucket.arrive() is None and bucket.remaining == 1


@pytest.fixture
async def strict() -> AsyncIterator[tuple[FakeTelegram, Clock]]:
    clock = Clock()
    async with FakeTelegram(flood_limits=True, flood_clock=clock) as tg:
        yield tg, clock


def bot_for(tg: FakeTelegram) -> Bot:
    return Bot(tg.token, base_url=f"{tg.url}/bot", base_file_url=f"{tg.url}/file/bot")


async def test_the_31st_message_of_a_second_is_refused(
    strict: tuple[FakeTelegram, Clock],
) -> None:
    tg, clock = strict
    async with bot_for(tg) as bot:
        for chat in range(30):
            await bot.send_message(1_000 + chat, "check-in")
        with pytest.raises(RetryAfter) as refused:
            await bot.send_message(2_000, "one too many")
        assert refused.value.retry_after in (1, timedelta(seconds=1))  # as PTB is set to read it
        clock.now += 1.0
        await bot.send_message(2_000, "a second later")
    assert tg.flood_refused == 1
    assert [call.status for call in tg.calls_to("sendMessage")].count(429) == 1


async def test_a_private_chat_takes_a_burst_then_about_one_a_second(
    strict: tuple[FakeTelegram, Clock],
) -> None:
    tg, clock = strict
    async with bot_for(tg) as bot:
        for number in range(5):
            await bot.send_message(7, f"piece {number}")
        with pytest.raises(RetryAfter):
            await bot.send_message(7, "piece 5")
        await bot.send_message(8, "another chat is not held up")
        clock.now += 1.0
        await bot.send_message(7, "piece 5")
    assert tg.sent_texts(7)[-1] == "piece 5"


async def test_flood_limits_are_off_unless_asked_for() -> None:
    async with FakeTelegram() as tg, bot_for(tg) as bot:
        for number in range(40):
            await bot.send_message(7, f"piece {number}")
    assert tg.flood_refused == 0
