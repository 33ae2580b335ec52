"""Telegram's failures as the core's delivery errors: nothing platform-specific leaks.

One call, never retried here (see `bot/adapters/sending.py` for who retries what). The
one thing tried a second time is a message Telegram could not parse as HTML: the same
words go again without formatting, since that is not a failure a pause can cure.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import httpx
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    TimedOut,
)
from telegram.error import RetryAfter as TelegramRetryAfter

from bot.core.platform import (
    DeliveryUncertain,
    RecipientUnreachable,
    RetryAfter,
    TransientDeliveryError,
)

Result = TypeVar("Result")

# Telegram's words when a bot may not post in a group (rights taken away, group gone):
# like a block, retrying cannot help.
_POSTING_REFUSED = (
    "not enough rights",
    "have no rights to send",
    "need administrator rights",
    "chat_write_forbidden",
    "chat_restricted",
    "chat not found",
)


class _Unparsable(Exception):
    """Telegram could not read the formatted text as HTML."""


async def call(request: Callable[[bool], Awaitable[Result]]) -> Result:
    """`request(plain)`, once, with Telegram's errors as the core's. `plain` is False
    first; True when Telegram could not parse the formatted text. `ChatMigrated`, and any
    other refusal of the request itself, is left as it is for the caller."""
    try:
        return await _once(request, plain=False)
    except _Unparsable:
        return await _once(request, plain=True)


async def _once(request: Callable[[bool], Awaitable[Result]], plain: bool) -> Result:
    try:
        return await request(plain)
    except ChatMigrated:
        raise
    except Forbidden as error:
        raise RecipientUnreachable(error.message) from None
    except TelegramRetryAfter as error:
        raise RetryAfter(seconds(error.retry_after)) from None
    except BadRequest as error:  # before NetworkError, which it is a kind of
        said = error.message.lower()
        if "can't parse entities" in said and not plain:
            raise _Unparsable from None
        if any(refusal in said for refusal in _POSTING_REFUSED):
            raise RecipientUnreachable(error.message) from None
        raise
    except TimedOut as error:
        if _never_sent(error):
            raise TransientDeliveryError(type(error).__name__) from None
        raise DeliveryUncertain(type(error).__name__) from None
    except NetworkError as error:
        raise TransientDeliveryError(type(error).__name__) from None


def _never_sent(error: TimedOut) -> bool:
    """A timeout waiting for a connection: the request never left, so trying again cannot
    deliver it twice. Any later timeout may have come after Telegram took the message."""
    cause = error.__cause__
    return (
        isinstance(cause, httpx.ConnectTimeout | httpx.PoolTimeout)
        or "pool timeout" in str(error).casefold()
    )


def seconds(retry_after: object) -> float:
    """A 429's retry_after in seconds (PTB gives an int or a timedelta)."""
    total = getattr(retry_after, "total_seconds", None)
    return float(total()) if callable(total) else float(retry_after)  # type: ignore[arg-type]
