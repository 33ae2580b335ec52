"""One retry layer per path, end to end on the real PTB: a scheduled check-in is retried
by the outbox alone, a reply by the adapter's patient calls alone."""

from __future__ import annotations

from datetime import timedelta

from bot.adapters.retry import REPLY_ATTEMPTS
from tests.adapters.conftest import TelegramWorld
from tests.adapters.test_telegram import ANA, START, onboard


def sends(telegram: TelegramWorld) -> list[bool]:
    return [call.ok for call in telegram.tg.calls_to("sendMessage")]


async def test_a_scheduled_checkin_refused_by_a_server_error_is_retried_by_the_outbox(
    telegram: TelegramWorld,
) -> None:
    await onboard(telegram)
    before = len(sends(telegram))
    telegram.tg.inject_server_error(method="sendMessage", times=1)
    telegram.clock.set(START + timedelta(days=1) - timedelta(hours=1, minutes=30))
    assert (await telegram.dispatcher.tick()).started == 1
    await telegram.outbox.drain()
    # The adapter tried once and said so; the outbox waited and sent it: one layer.
    assert sends(telegram)[before:] == [False, True]
    assert telegram.outbox.stats.retried == 1 and telegram.outbox.stats.sent == 1
    assert len(telegram.bot_messages(ANA)) == before + 1  # the check-in arrived, once


async def test_a_reply_through_server_errors_is_tried_a_bounded_number_of_times(
    telegram: TelegramWorld,
) -> None:
    telegram.tg.inject_server_error(method="sendMessage", times=REPLY_ATTEMPTS)
    await telegram.says(ANA, "/about")
    # Each try is one request: no second layer multiplies them.
    assert sends(telegram) == [False] * REPLY_ATTEMPTS
    assert telegram.bot_messages(ANA) == []
    telegram.tg.clear_faults()
    await telegram.says(ANA, "/about")
    assert sends(telegram)[-1] and len(telegram.bot_messages(ANA)) == 1
