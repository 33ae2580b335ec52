"""How full one limit is, as the platform counts it: on arrival.

A message arrives somewhere inside its call, so each is counted from the moment its
call returns (never earlier than the platform counted it), and a call under way counts
as if it never ends until it does. A message may start once the limit, so counted,
has room for it in its lane (`ceiling`, and bulk's own `bulk_share`): then its arrival
cannot be the one the platform refuses, however the calls before it were timed.

`Window` is a sliding window (Telegram's 30 a second and 20 a minute in a group,
Discord's 5 in 5 seconds in a channel); `Bucket` a token bucket (Telegram's private
chats: a short burst, then about one a second).
"""

from __future__ import annotations

import math
from collections import deque
from typing import Protocol

from bot.coordination.send_budget import Burst, Lane, Limit, bulk_share, ceiling

NEVER = math.inf  # not by time: once a call under way returns


class Pace(Protocol):
    def ready_at(self, lane: Lane, now: float) -> float:
        """The earliest moment (`now` or later) a message of `lane` may start;
        `NEVER` while it must wait for a call under way to return."""
        ...

    def started(self, lane: Lane) -> None: ...

    def finished(self, lane: Lane, now: float) -> None:
        """A call returned at `now` (delivered or not: counted either way)."""
        ...

    def idle(self, now: float) -> bool:
        """Nothing under way or inside the limit: as good as new."""
        ...


class _Count:
    """Calls under way, and the return times of those still inside the window."""

    def __init__(self, window: float) -> None:
        self._window = window
        self.under_way = 0
        self.returned: deque[float] = deque()  # in the order the calls returned

    def ready_at(self, most: int, now: float) -> float:
        """When fewer than `most` are counted (the next may start)."""
        returned = self.returned
        while returned and returned[0] <= now - self._window:
            returned.popleft()
        over = self.under_way + len(returned) - most
        if over < 0:
            return now
        if over >= len(returned):
            return NEVER
        return returned[over] + self._window

    def finished(self, now: float) -> None:
        self.under_way -= 1
        self.returned.append(now)


class Window:
    """At most `limit.sends` arrivals in any `limit.window_seconds`, of them at most
    bulk's share bulk's own."""

    def __init__(self, limit: Limit) -> None:
        self._sends = limit.sends
        self._bulk_share = bulk_share(limit.sends)
        self._window = limit.window_seconds
        self._all = _Count(limit.window_seconds)
        self._bulk = _Count(limit.window_seconds)

    def ready_at(self, lane: Lane, now: float) -> float:
        ready = self._all.ready_at(ceiling(lane, self._sends), now)
        if lane is Lane.BULK:
            ready = max(ready, self._bulk.ready_at(self._bulk_share, now))
        return ready

    def started(self, lane: Lane) -> None:
        self._all.under_way += 1
        if lane is Lane.BULK:
            self._bulk.under_way += 1

    def finished(self, lane: Lane, now: float) -> None:
        self._all.finished(now)
        if lane is Lane.BULK:
            self._bulk.finished(now)

    def idle(self, now: float) -> bool:
        counted = self._all
        return counted.under_way == 0 and (
            not counted.returned or counted.returned[-1] <= now - self._window
        )


class Bucket:
    """`burst.size` at once, then `burst.per_second`: the generic cell rate algorithm
    (the time the next message is due, `_due`), fed with return times.

    One message at a time, but for an urgent one: a call under way is counted as if it
    returned now, a small optimism that the room kept for urgent sends covers.
    """

    def __init__(self, burst: Burst) -> None:
        self._size = burst.size
        self._step = 1.0 / burst.per_second
        self._due = -NEVER
        self._under_way = 0

    def ready_at(self, lane: Lane, now: float) -> float:
        due = self._due
        if self._under_way:
            if lane is not Lane.URGENT:
                return NEVER
            due = max(due, now) + self._step * self._under_way
        tolerance = (ceiling(lane, self._size) - 1) * self._step
        return max(now, due - tolerance)

    def started(self, lane: Lane) -> None:
        self._under_way += 1

    def finished(self, lane: Lane, now: float) -> None:
        self._under_way -= 1
        self._due = max(self._due, now) + self._step

    def idle(self, now: float) -> bool:
        return self._under_way == 0 and self._due <= now


def pace_for(spec: Limit | Burst) -> Pace:
    return Bucket(spec) if isinstance(spec, Burst) else Window(spec)
