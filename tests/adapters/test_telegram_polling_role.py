"""A worker that is not the poller still sends; it polls once it is given the role."""

from __future__ import annotations

import random

from bot.adapters.telegram.adapter import TelegramAdapter, TelegramConfig
from bot.core.events import Address
from bot.core.replies import Reply
from bot.engine.router import Router
from bot.flows.context import Services
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers.telegram_world import no_wait
from tests.helpers.waiting import until

ANA = 5151


async def test_polling_waits_for_the_role_and_can_be_handed_back(services: Services) -> None:
    async with FakeTelegram() as tg:
        config = TelegramConfig(token=tg.token, base_url=f"{tg.url}/bot", poll_timeout=1)
        router = Router(services, rng=random.Random(3))
        adapter = TelegramAdapter(config, router, services.db, services.content, sleep=no_wait)
        await adapter.start(poll=False)
        try:
            tg.user_sends_text(ANA, ANA, "/start")
            # Not the poller, yet it sends: a scheduled message goes out at once.
            await adapter.send(Address("telegram", str(ANA), str(ANA)), Reply("a neutral hello"))
            assert tg.sent_texts(ANA) == ["a neutral hello"]
            assert tg.calls_to("getUpdates") == []  # the /start waits for the poller

            await adapter.start_polling()
            await until(lambda: len(tg.sent_texts(ANA)) > 1, what="the /start to be answered")
            assert tg.sent_texts(ANA)[1].startswith("Hi, I'm Steady.")

            await adapter.stop_polling()  # the role went to another worker
            polls = len(tg.calls_to("getUpdates"))
            await adapter.start_polling()  # and came back
            await until(lambda: len(tg.calls_to("getUpdates")) > polls, what="polling again")
            before = len(tg.sent_texts(ANA))
            tg.user_sends_text(ANA, ANA, "/help")
            await until(lambda: len(tg.sent_texts(ANA)) > before, what="/help to be answered")
        finally:
            await adapter.stop()
