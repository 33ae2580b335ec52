"""The cyclic garbage collector held off while a big batch of messages fills the outbox.

A due minute queues thousands of messages, each a few dozen small objects that live
until it is sent. Python's collector walks every tracked object in a full collection,
and it starts one each time the long-lived objects have grown by a quarter: filling
the queue with 50,000 check-ins started one after another, each walking the whole
growing queue, and stalled the event loop for 0.17 s at a time (a crisis reply waited
that long) and cost a second in all. The messages hold no reference cycles: reference
counting frees each as soon as it has been sent, so walking them frees nothing.

So the collector is held off from the first big batch until the queue is empty again,
and for at most `LONGEST_HOLD_SECONDS`: a queue that drains slowly (Telegram's 30
messages a second) is no longer growing by then, and whatever cyclic garbage the
sends made meanwhile is collected as usual from then on. A hold that ended by its
time begins again only after the queue has been empty once.
"""

from __future__ import annotations

import asyncio
import gc
import weakref

LONGEST_HOLD_SECONDS = 30.0


class CollectorHold:
    def __init__(self, longest_seconds: float = LONGEST_HOLD_SECONDS) -> None:
        self._longest = longest_seconds
        self._holding = False
        self._spent = False  # the last hold ended by its time, and the queue never emptied
        self._timer: asyncio.TimerHandle | None = None
        # Turns the collector back on should this be dropped while holding (an outbox
        # never stopped, its loop closed before the timer could fire).
        self._fallback: weakref.finalize[[], CollectorHold] | None = None

    @property
    def engaged(self) -> bool:
        """Held, or waiting for the queue to empty before it may be held again."""
        return self._holding or self._spent

    def hold(self) -> None:
        """A big batch is being queued: no cyclic collection until `release`."""
        if self._holding or self._spent or not gc.isenabled():
            return  # already held, or off for someone else (who turns it back on)
        loop = asyncio.get_running_loop()
        gc.disable()
        self._holding = True
        # The timer holds the hold weakly, so that dropping it still runs the fallback.
        self._timer = loop.call_later(self._longest, _time_up, weakref.ref(self))
        self._fallback = weakref.finalize(self, gc.enable)

    def emptied(self) -> None:
        """The queue is empty: the collector runs again, and may be held again."""
        self._spent = False
        self._end()

    def time_up(self) -> None:
        """The hold has lasted its longest."""
        self._timer = None
        self._spent = True
        self._end()

    def _end(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._fallback is not None:
            self._fallback.detach()
            self._fallback = None
        if self._holding:
            self._holding = False
            gc.enable()


def _time_up(hold: weakref.ref[CollectorHold]) -> None:
    held = hold()
    if held is not None:
        held.time_up()
