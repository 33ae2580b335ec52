"""Pacing for platforms that cap messages per chat over a window (Telegram: 20 a minute
in one group). A sliding window, so the cap holds for every window, not just on average."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from bot.core.keyed_lock import KeyedLock


class ChatPacer:
    def __init__(
        self,
        limit: int,
        window_seconds: float,
        sleep: Callable[[float], Awaitable[None]],
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self._limit = limit
        self._window = window_seconds
        self._sleep = sleep
        self._now = now
        self._sent: dict[str, deque[float]] = {}
        self._turns = KeyedLock()  # one chat's senders queue up; other chats go on

    @asynccontextmanager
    async def turn(self, chat_id: str) -> AsyncIterator[None]:
        """Hold `chat_id`'s turn while one message is sent to it.

        The message is counted when its call returns, not when it starts: the
        platform counts it on arrival, which is later than the start, so counting
        from the start could let a message in a moment before the platform's own
        window has moved on (and draw a 429)."""
        async with self._turns.hold(chat_id):
            sent = self._sent.setdefault(chat_id, deque())
            self._forget_old(sent)
            if len(sent) >= self._limit:
                await self._sleep(self._window - (self._now() - sent[0]))
                self._forget_old(sent)
                if len(sent) >= self._limit:  # a sleep that returned early (tests)
                    sent.popleft()
            try:
                yield
            finally:
                sent.append(self._now())
            if len(self._sent) > 1_000:  # keep only chats with posts inside the window
                for times in self._sent.values():
                    self._forget_old(times)
                self._sent = {chat: times for chat, times in self._sent.items() if times}

    def _forget_old(self, sent: deque[float]) -> None:
        now = self._now()
        while sent and now - sent[0] >= self._window:
            sent.popleft()
