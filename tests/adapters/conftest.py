from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from telegram import Update

from bot.adapters.telegram.adapter import TelegramAdapter, TelegramConfig
from bot.core.clock import ManualClock
from bot.core.router import Router
from bot.delivery.outbox import Outbox
from bot.flows.context import Services
from bot.scheduling.dispatcher import Dispatcher
from tests.fakes.telegram_api import FakeTelegram, StoredMessage

QUIET_SECONDS = 0.15  # no new call for this long: the bot has finished reacting


async def no_wait(_: float) -> None:
    """Frames and retries happen at once in tests; what they do is checked, not how long."""


UpdateHandler = Callable[[Update, Any], Awaitable[None]]


class HandledUpdates:
    """Which updates the adapter has finished with (replies sent, or none), so a test can
    wait for "handled and answered nothing" instead of for a stretch of time."""

    def __init__(self) -> None:
        self.done: set[int] = set()
        self._changed = asyncio.Event()

    def around(self, handler: UpdateHandler) -> UpdateHandler:
        async def tracked(update: Update, context: Any) -> None:
            try:
                await handler(update, context)
            finally:
                self.done.add(update.update_id)
                changed, self._changed = self._changed, asyncio.Event()
                changed.set()

        return tracked

    async def finished(self, update_id: int, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        async with asyncio.timeout(timeout):
            while update_id not in self.done:
                await self._changed.wait()


def watch_updates(adapter: TelegramAdapter) -> HandledUpdates:
    """Track the adapter's update handler; call before `start()`, which registers it."""
    handled = HandledUpdates()
    adapter._on_update = handled.around(adapter._on_update)  # type: ignore[method-assign]
    return handled


@dataclass
class TelegramWorld:
    tg: FakeTelegram
    adapter: TelegramAdapter
    router: Router
    services: Services
    clock: ManualClock
    outbox: Outbox
    dispatcher: Dispatcher
    handled: HandledUpdates

    def bot_messages(self, chat_id: int) -> list[StoredMessage]:
        return self.tg.sent_messages(chat_id)

    def last_text(self, chat_id: int) -> str:
        return self.bot_messages(chat_id)[-1].text or ""

    async def says(self, chat_id: int, text: str, expect_reply: bool = True, **user: Any) -> None:
        """The user writes; wait until the bot has answered everything it will."""
        before = len(self.tg.calls)
        update = self.tg.user_sends_text(chat_id, user.pop("user_id", chat_id), text, **user)
        if expect_reply:
            await self.settled(before)
            return
        await self.quietly_handled(update)

    async def quietly_handled(self, update: dict[str, Any]) -> None:
        """Nothing should come back: wait until the adapter has finished with the update
        (one privacy mode kept from the bot never reaches it)."""
        if update["update_id"] is not None:
            await self.handled.finished(update["update_id"])

    async def taps(self, chat_id: int, label: str, user_id: int | None = None) -> str:
        """Tap the newest button with this label; returns the callback query id."""
        for message in reversed(self.bot_messages(chat_id)):
            for row in (message.reply_markup or {}).get("inline_keyboard", []):
                for button in row:
                    if button["text"] == label and "callback_data" in button:
                        before = len(self.tg.calls)
                        query = self.tg.user_presses(
                            chat_id, user_id or chat_id, message.message_id, button["callback_data"]
                        )
                        await self.settled(before)
                        return query
        raise AssertionError(f"no button {label!r} in chat {chat_id}")

    async def settled(self, since: int) -> None:
        """Wait for the bot's reaction: calls start, then none for a short while."""
        await self.tg.wait_for(lambda call: call.method != "getUpdates", since=since)
        quiet_since = len(self.tg.calls)
        for _ in range(40):
            await asyncio.sleep(QUIET_SECONDS)
            active = [c for c in self.tg.calls[quiet_since:] if c.method != "getUpdates"]
            if not active:
                return
            quiet_since = len(self.tg.calls)


@asynccontextmanager
async def running_telegram(
    services: Services, clock: ManualClock, **fake: Any
) -> AsyncIterator[TelegramWorld]:
    """Steady on the fake Bot API; `fake` sets FakeTelegram's options (privacy_mode...)."""
    # One clock for the bot and Telegram's message dates (and its 48-hour delete window).
    async with FakeTelegram(clock=lambda: clock.now().timestamp(), **fake) as tg:
        router = Router(services, rng=random.Random(5))
        config = TelegramConfig(token=tg.token, base_url=f"{tg.url}/bot", poll_timeout=1)
        adapter = TelegramAdapter(config, router, services.db, services.content, sleep=no_wait)
        handled = watch_updates(adapter)
        outbox = Outbox(services.db, clock, {adapter.platform: adapter}, sleep=no_wait)
        dispatcher = Dispatcher(
            services, router.checkin, router.pause, outbox, grace=timedelta(hours=2)
        )
        await adapter.start()
        outbox.start()
        try:
            yield TelegramWorld(tg, adapter, router, services, clock, outbox, dispatcher, handled)
        finally:
            await outbox.stop()
            await adapter.stop()


@pytest.fixture
async def telegram(services: Services, clock: ManualClock) -> AsyncIterator[TelegramWorld]:
    async with running_telegram(services, clock) as world:
        yield world
