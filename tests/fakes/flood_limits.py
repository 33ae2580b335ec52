"""The platforms' send limits as the fakes enforce them: on arrival, as strictly as the
platforms do, answering a request over a limit with the platform's 429.

* ``SlidingWindow``: at most ``sends`` arrivals in any ``window`` seconds, the one that
  would be one too many refused (Telegram's 30 a second for a bot, 20 a minute in a
  group; Discord's 50 requests a second for a bot).
* ``TokenBucket``: a burst of ``size``, then ``per_second`` (Telegram's private chats:
  about one message a second, short bursts allowed).
* ``FixedBucket``: Discord's route bucket: ``limit`` requests from the first one, the
  count reset ``reset_after`` seconds after it (the ``X-RateLimit-*`` headers say how it
  stands after each request).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field


class SlidingWindow:
    def __init__(self, sends: int, window: float, now: Callable[[], float] = time.monotonic):
        self.sends = sends
        self.window = window
        self._now = now
        self._arrived: deque[float] = deque()

    def arrive(self) -> float | None:
        """Count an arrival now; or, over the limit, the seconds until one fits (uncounted)."""
        now = self._now()
        while self._arrived and self._arrived[0] <= now - self.window:
            self._arrived.popleft()
        if len(self._arrived) >= self.sends:
            return self._arrived[0] + self.window - now
        self._arrived.append(now)
        return None


class TokenBucket:
    def __init__(self, size: int, per_second: float, now: Callable[[], float] = time.monotonic):
        self.size = size
        self.per_second = per_second
        self._now = now
        self._tokens = float(size)
        self._at = now()

    def arrive(self) -> float | None:
        now = self._now()
        self._tokens = min(self.size, self._tokens + (now - self._at) * self.per_second)
        self._at = now
        if self._tokens < 1.0:
            return (1.0 - self._tokens) / self.per_second
        self._tokens -= 1.0
        return None


@dataclass
class FixedBucket:
    limit: int
    reset_after: float
    now: Callable[[], float] = time.monotonic
    remaining: int = field(init=False)
    resets_at: float = field(init=False, default=-math.inf)

    def __post_init__(self) -> None:
        self.remaining = self.limit

    def arrive(self) -> float | None:
        now = self.now()
        if now >= self.resets_at:
            self.remaining, self.resets_at = self.limit, now + self.reset_after
        if self.remaining <= 0:
            return self.resets_at - now
        self.remaining -= 1
        return None

    def seconds_left(self) -> float:
        return max(0.0, self.resets_at - self.now())


def whole_seconds(wait: float) -> int:
    """Telegram's retry_after: whole seconds, at least one."""
    return max(1, math.ceil(wait))


DISCORD_REQUESTS_PER_SECOND = 50
DISCORD_CHANNEL_MESSAGES = 5
DISCORD_CHANNEL_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class Refusal:
    """A 429 as Discord gives it: how long to wait, and whether the whole bot must."""

    retry_after: float
    is_global: bool
    headers: dict[str, str]


class DiscordRateLimits:
    """Discord's limits: 50 requests a second for a bot (interactions and their webhooks
    are not counted), and a bucket of 5 in 5 seconds per channel for each message route,
    each told in the headers Discord sends (``X-RateLimit-*``), which discord.py reads to
    keep its own buckets. A 429 comes through Discord's proxy (``Via``), as discord.py
    expects before it retries."""

    def __init__(self, clock: Callable[[], float], monotonic: Callable[[], float]) -> None:
        self._clock = clock  # unix seconds, for X-RateLimit-Reset
        self._monotonic = monotonic
        self._global = SlidingWindow(DISCORD_REQUESTS_PER_SECOND, 1.0, monotonic)
        self._buckets: dict[tuple[str, str], FixedBucket] = {}
        self.refused = 0

    def check(
        self, route: str, bot_counted: bool, channel_id: str | None
    ) -> Refusal | dict[str, str]:
        """The headers for a request of `route` arriving now, or its refusal."""
        if bot_counted:
            wait = self._global.arrive()
            if wait is not None:
                self.refused += 1
                headers = {
                    "Retry-After": str(math.ceil(wait)),
                    "X-RateLimit-Global": "true",
                    "X-RateLimit-Scope": "global",
                    "Via": "1.1 google",
                }
                return Refusal(round(wait, 3), True, headers)
        if channel_id is None or "/messages" not in route:
            return {}
        bucket = self._buckets.get((route, channel_id))
        if bucket is None:
            bucket = FixedBucket(DISCORD_CHANNEL_MESSAGES, DISCORD_CHANNEL_SECONDS, self._monotonic)
            self._buckets[(route, channel_id)] = bucket
        wait = bucket.arrive()
        left = bucket.seconds_left()
        headers = {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Remaining": str(bucket.remaining),
            "X-RateLimit-Reset": f"{self._clock() + left:.3f}",
            "X-RateLimit-Reset-After": f"{left:.3f}",
            "X-RateLimit-Bucket": "bucket-" + hashlib.sha1(route.encode()).hexdigest()[:12],
        }
        if wait is None:
            return headers
        self.refused += 1
        headers |= {"Retry-After": str(math.ceil(wait)), "X-RateLimit-Scope": "user",
                    "Via": "1.1 google"}  # fmt: skip
        return Refusal(round(wait, 3), False, headers)
