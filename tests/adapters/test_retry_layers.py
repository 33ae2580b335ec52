"""One retry layer per path, end to end on the real libraries: a scheduled check-in is
retried by the outbox alone, a reply by the adapter's patient calls alone, and a piece
that is out is never sent again."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from bot.adapters.discord import adapter as discord_adapter
from bot.adapters.discord.inbound import private_address
from bot.adapters.retry import REPLY_ATTEMPTS
from bot.core import platform
from bot.core.replies import Reply
from tests.adapters.test_telegram import ANA, START, onboard
from tests.helpers.discord_world import ANA as DISCORD_ANA
from tests.helpers.discord_world import DiscordWorld
from tests.helpers.telegram_world import TelegramWorld


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


async def test_a_discord_reply_refused_at_a_later_piece_does_not_repeat_the_first(
    discord_world: DiscordWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "\n\n".join(f"Paragraph {n}. " + "steady words " * 60 for n in range(4))
    original, attempts = discord_adapter.post_piece, []

    async def refuses_the_second(*args: Any) -> Any:
        attempts.append(args[1][:12])
        if len(attempts) == 2:
            raise platform.RetryAfter(1.0)  # Discord refuses the second piece, once
        return await original(*args)

    monkeypatch.setattr(discord_adapter, "post_piece", refuses_the_second)
    await discord_world.adapter.deliver(private_address(DISCORD_ANA), Reply(text))
    sent = discord_world.dc.dm_texts(DISCORD_ANA)
    assert len(sent) == 2 and " ".join(sent).split() == text.split()  # all of it, once
    assert attempts == ["Paragraph 0.", "Paragraph 2.", "Paragraph 2."]  # piece 2 alone again
