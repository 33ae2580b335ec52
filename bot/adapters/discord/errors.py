"""Discord's failures as the core's delivery errors: nothing platform-specific leaks."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import aiohttp
import discord

from bot.core.platform import (
    DeliveryError,
    RecipientUnreachable,
    RetryAfter,
    TransientDeliveryError,
)

Result = TypeVar("Result")

CANNOT_DM = 50007  # the user closed DMs, blocked the bot, or shares no server with it
MISSING_ACCESS = 50001  # the bot cannot see the channel (removed, or lost View Channel)
MISSING_PERMISSIONS = 50013  # it can see the channel but may not post (or attach) there
UNKNOWN_CHANNEL = 10003  # the channel was deleted
UNKNOWN_USER = 10013
_UNREACHABLE = frozenset({CANNOT_DM, MISSING_ACCESS, MISSING_PERMISSIONS, UNKNOWN_CHANNEL})
DEFAULT_RETRY_SECONDS = 5.0


async def call(request: Callable[[], Awaitable[Result]], timeout: float) -> Result:  # noqa: ASYNC109
    """One Discord call, bounded in time, with Discord's errors as the core's.

    discord.py already waits out 429s of up to its `max_ratelimit_timeout` (30 s at
    least) and retries some 5xx answers itself; the timeout keeps all of that bounded,
    so the outbox's own retry policy stays in charge.
    """
    try:
        async with asyncio.timeout(timeout):
            return await request()
    except discord.RateLimited as error:  # longer than discord.py was willing to wait
        raise RetryAfter(error.retry_after) from None
    except discord.HTTPException as error:
        raise delivery_error(error) from None
    except (aiohttp.ClientError, OSError, TimeoutError) as error:
        raise TransientDeliveryError(type(error).__name__) from None


def asked_to_wait(error: BaseException) -> float | None:
    """The seconds a 429 asks for (one discord.py did not wait out); None otherwise."""
    return error.seconds if isinstance(error, RetryAfter) else None


def delivery_error(error: discord.HTTPException) -> DeliveryError:
    if error.status == 429:
        return RetryAfter(_retry_after(error))
    if error.code in _UNREACHABLE or (error.code == UNKNOWN_USER):
        return RecipientUnreachable(f"discord error {error.code}")
    if error.status >= 500:
        return TransientDeliveryError(f"discord status {error.status}")
    # The code only, never the text: Discord's message can quote what we tried to send.
    return DeliveryError(f"discord status {error.status} code {error.code}")


def _retry_after(error: discord.HTTPException) -> float:
    """A 429 discord.py gave up on (no Via header, or five in a row): how long to wait."""
    header = error.response.headers.get("Retry-After") if error.response is not None else None
    try:
        return float(header) if header is not None else DEFAULT_RETRY_SECONDS
    except ValueError:
        return DEFAULT_RETRY_SECONDS
