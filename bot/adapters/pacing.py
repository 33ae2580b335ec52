"""Pacing for platforms that cap messages per chat over a window (Telegram: 20 a minute
in one group). A sliding window, so the cap holds for every window, not just on average."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable

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

    async def wait_turn(self, chat_id: str) -> None:
        """Return when one more message may go to `chat_id`, and count it as sent."""
        async with self._turns.hold(chat_id):
            sent = self._sent.setdefault(chat_id, deque())
            self._forget_old(sent)
            if len(sent) >= self._limit:
                await self._sleep(self._window - (self._now() - sent[0]))
                self._forget_old(sent)
                if len(sent) >= self._limit:  # a sleep that returned early (tests)
                    sent.popleft()
            sent.append(self._now())
            if len(self._sent) > 1_000:  # keep only chats with posts inside the window
                for times in self._sent.values():
                    self._forget_old(times)
                self._sent = {chat: times for chat, times in self._sent.items() if times}

    def _forget_old(self, sent: deque[float]) -> None:
        now = self._now()
        while sent and now - sent[0] >= self._window:
            sent.popleft()
