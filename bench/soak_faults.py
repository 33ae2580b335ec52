"""The fake Bot API server with random faults, and hooks the soak run's users listen on.

tests/fakes/telegram_api.py arms faults one by one (`inject_retry_after(..., times=1)`); a
soak run wants a steady rate instead: every call has a fixed chance of a 429 with
retry_after, or of a stall longer than the bot's request timeout (after which the call is
handled normally, as on a real network where the reply was lost but the message arrived).
This subclass adds that without changing the test fake, and tells the soak run about every
message the bot stores and every press it answers, so simulated users can wait for replies
without polling.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fakes.telegram_api import ApiError, FakeTelegram, RecordedCall, StoredMessage


@dataclass
class FaultRates:
    retry_after: float = 0.05  # share of calls answered 429
    retry_after_seconds: tuple[int, ...] = (1, 2, 3)
    stall: float = 0.02  # share of calls held past the bot's request timeout
    stall_seconds: float = 11.0  # Steady's Telegram request timeout is 10 s


@dataclass
class FaultCounts:
    retry_after: int = 0
    stalls: int = 0
    by_method: dict[str, int] | None = None


MessageHook = Callable[[StoredMessage], None]
AnswerHook = Callable[[int, str | None], None]  # chat id, the notice text (None: plain)

# Set in the request's own task when its call was stalled: each aiohttp handler runs in a
# task of its own, so the mark reaches the message that call stores and no other.
_stalled: contextvars.ContextVar[bool] = contextvars.ContextVar("stalled", default=False)
# When a stalled call arrived: Telegram had the message then, only its answer was lost.
_arrived: contextvars.ContextVar[float] = contextvars.ContextVar("arrived", default=0.0)


class FaultyTelegram(FakeTelegram):
    """FakeTelegram whose calls fail at random, at fixed rates, from a seeded generator.

    getUpdates is spared, as the test fake's wildcard faults spare it: a 429 on the long
    poll only slows delivery of updates, and what the soak tests is the bot's sends.
    """

    def __init__(self, *, rates: FaultRates, seed: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rates = rates
        self.faults_on = False
        self.counts = FaultCounts(by_method={})
        self._rng = random.Random(seed)
        self.on_message: MessageHook | None = None
        self.on_answer: AnswerHook | None = None
        # real (time.monotonic) instant each bot message was stored, by (chat, message id)
        self.stored_at: dict[tuple[int, int], float] = {}
        self.stalled_messages: set[tuple[int, int]] = set()

    async def _apply_faults(self, call: RecordedCall) -> None:
        await super()._apply_faults(call)
        if not self.faults_on or call.method == "getUpdates":
            return
        draw = self._rng.random()
        rates = self.rates
        assert self.counts.by_method is not None
        if draw < rates.retry_after:
            self.counts.retry_after += 1
            key = f"{call.method} 429"
            self.counts.by_method[key] = self.counts.by_method.get(key, 0) + 1
            seconds = self._rng.choice(rates.retry_after_seconds)
            raise ApiError(
                429, f"Too Many Requests: retry after {seconds}", {"retry_after": seconds}
            )
        if draw < rates.retry_after + rates.stall:
            self.counts.stalls += 1
            key = f"{call.method} stall"
            self.counts.by_method[key] = self.counts.by_method.get(key, 0) + 1
            _stalled.set(True)
            _arrived.set(call.time)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), rates.stall_seconds)

    def _store_bot_message(self, chat_id: int, **fields: Any) -> StoredMessage:
        message = super()._store_bot_message(chat_id, **fields)
        self.stored_at[chat_id, message.message_id] = time.monotonic()
        if _stalled.get():
            # A stall models a lost answer, not a slow Telegram: the message is dated when
            # the call arrived, as the user would have seen it.
            message.date = int(_arrived.get())
            self.stalled_messages.add((chat_id, message.message_id))
        if self.on_message is not None:
            self.on_message(message)
        return message

    async def _answer_callback_query(self, params: dict[str, Any]) -> Any:
        result = await super()._answer_callback_query(params)
        query = self.callback_queries.get(str(params.get("callback_query_id", "")))
        if query is not None and self.on_answer is not None:
            self.on_answer(query.chat_id, query.answer_text)
        return result

    async def __aexit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        # A request whose bot was killed mid-body ends in "connection lost": the kill -9 did
        # that, not a bug in the fake, which is what the test fake's check is there to catch.
        self.internal_errors[:] = [
            error for error in self.internal_errors if not isinstance(error, ConnectionError)
        ]
        await super().__aexit__(exc_type, *rest)

    def unanswered(self) -> list[RecordedCall]:
        """Calls received and not yet answered (stalled, or being handled), polls aside."""
        return [c for c in self.calls if c.status is None and c.method != "getUpdates"]
