"""A running Steady on Telegram for end-to-end tests: the real PTB against FakeTelegram."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from bot.adapters.lanes import UNLIMITED, Caps
from bot.adapters.telegram.adapter import TelegramAdapter, TelegramConfig
from bot.core.clock import ManualClock
from bot.delivery.outbox import Outbox
from bot.engine.due_work import build_dispatcher
from bot.engine.router import Router
from bot.flows.context import Services
from bot.scheduling.dispatcher import Dispatcher
from tests.fakes.telegram_api import FakeTelegram, StoredMessage
from tests.helpers.outboxes import outbox_for
from tests.helpers.waiting import until


async def no_wait(_: float) -> None:
    """Frames and retries happen at once in tests; what they do is checked, not how long."""


@dataclass
class TelegramWorld:
    tg: FakeTelegram
    adapter: TelegramAdapter
    router: Router
    services: Services
    clock: ManualClock
    outbox: Outbox
    dispatcher: Dispatcher

    def bot_messages(self, chat_id: int) -> list[StoredMessage]:
        return self.tg.sent_messages(chat_id)

    def last_text(self, chat_id: int) -> str:
        return self.bot_messages(chat_id)[-1].text or ""

    async def says(self, chat_id: int, text: str, expect_reply: bool = True, **user: Any) -> None:
        """The user writes; wait until the bot has handled it (and said all it will)."""
        before = len(self.tg.calls)
        self.tg.user_sends_text(chat_id, user.pop("user_id", chat_id), text, **user)
        await self.settled()
        replied = [c for c in self.tg.calls[before:] if c.method != "getUpdates"]
        if expect_reply:
            assert replied, f"no reply to {text!r}"

    async def taps(
        self, chat_id: int, label: str, user_id: int | None = None, language_code: str = "en"
    ) -> str:
        """Tap the newest button with this label; returns the callback query id. Telegram
        sends the presser's app language with a press as with a message."""
        for message in reversed(self.bot_messages(chat_id)):
            for row in (message.reply_markup or {}).get("inline_keyboard", []):
                for button in row:
                    if button["text"] == label and "callback_data" in button:
                        query = self.tg.user_presses(
                            chat_id,
                            user_id or chat_id,
                            message.message_id,
                            button["callback_data"],
                            language_code=language_code,
                        )
                        await self.settled()
                        return query
        raise AssertionError(f"no button {label!r} in chat {chat_id}")

    async def settled(self) -> None:
        """Wait for the bot's reaction: every update given to it, and each one handled
        to the end (its replies sent). A condition, so a slow machine only waits longer.
        An update privacy mode keeps from the bot is never queued, so it is not waited on."""
        await until(
            lambda: (
                self.tg.all_handed_over()
                and self.adapter.updates_handled >= len(self.tg.handed_over)
            ),
            what="the bot to handle every update",
        )


@asynccontextmanager
async def running_telegram(
    services: Services,
    clock: ManualClock,
    caps: Caps = UNLIMITED,
    sleep: Callable[[float], Awaitable[None]] = no_wait,
    **fake: Any,
) -> AsyncIterator[TelegramWorld]:
    """Steady on the fake Bot API; `fake` sets FakeTelegram's options (privacy_mode...).

    The adapter keeps no limits (`caps`) unless asked: the fake keeps only the group
    one unless a test asks for all of them (flood_limits=True), and then gives the
    adapter Telegram's own (caps=TELEGRAM_CAPS). The adapter pauses (a 429 waited out,
    a frame) with `sleep`: at once, unless a test holds the pause to look inside it."""
    # One clock for the bot and Telegram's message dates (and its 48-hour delete window).
    async with FakeTelegram(clock=lambda: clock.now().timestamp(), **fake) as tg:
        router = Router(services, rng=random.Random(5))
        config = TelegramConfig(token=tg.token, base_url=f"{tg.url}/bot", poll_timeout=1, caps=caps)
        adapter = TelegramAdapter(config, router, services.db, services.content, sleep=sleep)
        outbox = outbox_for(services, clock, {adapter.platform: adapter}, sleep=no_wait)
        dispatcher = build_dispatcher(
            services, router.checkin, router.pause, outbox, grace=timedelta(hours=2)
        )
        await adapter.start()
        await outbox.start()
        try:
            yield TelegramWorld(tg, adapter, router, services, clock, outbox, dispatcher)
        finally:
            await outbox.stop()
            await adapter.stop()
