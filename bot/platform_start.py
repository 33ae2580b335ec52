"""Starting a platform at boot: network failures and flood waits are retried with growing
pauses for a bounded while, then reported as PlatformUnreachable (one line and exit 2 from
`steady start`; a failed check from `steady doctor`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import timedelta
from typing import Protocol

import aiohttp
import discord
import telegram.error

from bot.logs import get_logger, log_event

# The start-up lines keep the logger they had when this was part of app.py, so whoever
# filters the log on `steady.app` still sees a platform that cannot be reached.
log = get_logger("app")


class PlatformUnreachable(Exception):
    """A platform could not be reached at start-up, even after retrying for a while."""

    def __init__(self, platform: str, waited: timedelta) -> None:
        super().__init__(platform)
        self.platform = platform
        self.waited = waited


FIRST_RETRY_SECONDS = 1.0
LONGEST_RETRY_SECONDS = 30.0


def is_network_failure(error: BaseException) -> bool:
    """A failure to reach the platform at all, worth retrying (a refused token is not)."""
    if isinstance(error, telegram.error.BadRequest):
        return False  # a subclass of NetworkError in PTB, but the request itself was wrong
    return isinstance(
        error,
        telegram.error.NetworkError
        | aiohttp.ClientConnectionError
        | discord.GatewayNotFound
        | discord.DiscordServerError
        | OSError
        | TimeoutError,
    )


def asked_to_wait(error: BaseException) -> float | None:
    """The seconds a platform's flood control asked for (Telegram's 429 at start-up, after
    a restart, say), or None when the error is not that."""
    if isinstance(error, telegram.error.RetryAfter):
        retry_after: object = error._retry_after  # the number, without PTB's type warning
        total = getattr(retry_after, "total_seconds", None)
        return float(total()) if callable(total) else float(retry_after)  # type: ignore[arg-type]
    return None


class Startable(Protocol):
    async def start(self) -> None: ...

    async def stop(self) -> None: ...


async def start_with_retries(
    adapter: Startable, platform: str, bound: timedelta, stop: asyncio.Event
) -> bool:
    """Start `adapter`, retrying network failures with growing pauses for `bound` at most
    (STEADY_START_RETRY); then PlatformUnreachable. Every retry is logged. False when
    asked to stop (SIGINT, SIGTERM) while waiting to retry."""
    deadline = time.monotonic() + bound.total_seconds()
    delay = FIRST_RETRY_SECONDS
    while True:
        try:
            await adapter.start()
            return True
        except Exception as error:
            asked = asked_to_wait(error)
            if asked is None and not is_network_failure(error):
                raise
            with contextlib.suppress(Exception):  # close what the failed attempt opened
                await adapter.stop()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                log_event(log, "platform.gave_up", logging.ERROR, platform=platform)
                raise PlatformUnreachable(platform, bound) from None
            wait = min(max(delay, asked or 0.0), remaining)
            log_event(
                log, "platform.unreachable", logging.WARNING, platform=platform,
                error=type(error).__name__, retry_in_ms=int(wait * 1000),
                gives_up_in_seconds=round(remaining),
            )  # fmt: skip
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait)
            if stop.is_set():
                return False
            delay = min(delay * 2, LONGEST_RETRY_SECONDS)
