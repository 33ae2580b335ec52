"""Replies to what a user just did are sent patiently: a 429, a network error or an unsure
timeout is waited out and tried again, a bounded number of times. That reply may be the
crisis reply, so giving up early is the worse mistake; repeating one is the lesser.
Which calls are tried this way, and which the outbox retries instead: `sending.py`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.core.platform import DeliveryUncertain, RetryAfter, TransientDeliveryError

Result = TypeVar("Result")
Sleep = Callable[[float], Awaitable[None]]
# Told of each 429 waited out here (the operator's count of rate limits on replies).
RateLimited = Callable[[], None]

REPLY_ATTEMPTS = 6
MAX_REPLY_WAIT_SECONDS = 60.0  # a platform asking for longer is not waited out for a reply


async def patiently(
    attempt: Callable[[], Awaitable[Result]],
    sleep: Sleep,
    rate_limited: RateLimited | None = None,
) -> Result:
    """`attempt()`, tried again after what each failure asks for; the last error is raised."""
    for number in range(1, REPLY_ATTEMPTS + 1):
        try:
            return await attempt()
        except RetryAfter as error:
            if rate_limited is not None:
                rate_limited()
            if number == REPLY_ATTEMPTS:
                raise
            await sleep(min(error.seconds, MAX_REPLY_WAIT_SECONDS))
        except (TransientDeliveryError, DeliveryUncertain):
            if number == REPLY_ATTEMPTS:
                raise
            await sleep(2.0 * number)
    raise TransientDeliveryError("no attempt left")  # pragma: no cover
