"""One limit, counted as the platform counts it: a message is in the window from the
moment its call returns, and a call under way counts until it does."""

from __future__ import annotations

import itertools
import math

from bot.adapters.pacing import NEVER, Bucket, Window
from bot.coordination.send_budget import Burst, Lane, Limit


def test_a_window_fills_up_to_each_lanes_ceiling() -> None:
    window = Window(Limit(30, 1.0))
    for _ in range(27):
        assert window.ready_at(Lane.BULK, 0.0) == 0.0
        window.started(Lane.BULK)
        window.finished(Lane.BULK, 0.0)
    assert window.ready_at(Lane.BULK, 0.0) == 1.0  # bulk's own 90% is used: next in a second
    assert window.ready_at(Lane.INTERACTIVE, 0.0) == 0.0
    for _ in range(2):
        window.started(Lane.INTERACTIVE)
        window.finished(Lane.INTERACTIVE, 0.0)
    assert window.ready_at(Lane.INTERACTIVE, 0.0) == 1.0
    assert window.ready_at(Lane.URGENT, 0.0) == 0.0  # the last one is kept for it


def test_replies_may_fill_what_bulk_leaves_but_bulk_never_the_replies_share() -> None:
    window = Window(Limit(30, 1.0))
    for _ in range(20):
        window.started(Lane.INTERACTIVE)
        window.finished(Lane.INTERACTIVE, 0.0)
    for _ in range(9):
        assert window.ready_at(Lane.BULK, 0.0) == 0.0
        window.started(Lane.BULK)
        window.finished(Lane.BULK, 0.0)
    assert window.ready_at(Lane.BULK, 0.0) == 1.0  # 29 in all: the last is urgent's
    assert window.ready_at(Lane.URGENT, 0.0) == 0.0


def test_a_message_leaves_the_window_a_whole_window_after_its_call_returned() -> None:
    """The platform counted it on arrival, at the latest when its call returned: the next
    may start only once that is a whole window ago, never from the call's start."""
    window = Window(Limit(2, 1.0))
    window.started(Lane.URGENT)  # started at 0, returns at 0.4
    window.finished(Lane.URGENT, 0.4)
    window.started(Lane.URGENT)
    window.finished(Lane.URGENT, 0.5)
    assert window.ready_at(Lane.URGENT, 0.6) == 1.4
    assert window.ready_at(Lane.URGENT, 1.4) == 1.4


def test_a_call_under_way_holds_its_place_until_it_returns() -> None:
    window = Window(Limit(2, 1.0))
    window.started(Lane.URGENT)
    window.started(Lane.URGENT)
    assert window.ready_at(Lane.URGENT, 5.0) == NEVER  # not time but a return frees room
    window.finished(Lane.URGENT, 5.2)
    assert window.ready_at(Lane.URGENT, 5.2) == 6.2  # a window after the first returned
    window.finished(Lane.URGENT, 5.3)
    assert not window.idle(6.2)
    assert window.idle(6.3)


def test_a_bucket_allows_a_burst_then_one_a_second() -> None:
    bucket = Bucket(Burst(5, 1.0))
    starts = []
    now = 0.0
    for _ in range(8):
        now = bucket.ready_at(Lane.INTERACTIVE, now)
        starts.append(now)
        bucket.started(Lane.INTERACTIVE)
        bucket.finished(Lane.INTERACTIVE, now + 0.01)  # each call takes 10 ms
        now += 0.01
    # Four at once (the fifth is kept for an urgent message), then about one a second.
    assert starts[:4] == [0.0, 0.01, 0.02, 0.03]
    assert [round(b - a, 2) for a, b in itertools.pairwise(starts[4:])] == [1.0] * 3


def test_a_bucket_keeps_its_last_token_for_an_urgent_message() -> None:
    bucket = Bucket(Burst(5, 1.0))
    for _ in range(4):
        bucket.started(Lane.INTERACTIVE)
        bucket.finished(Lane.INTERACTIVE, 0.0)
    assert bucket.ready_at(Lane.BULK, 0.0) == 1.0
    assert bucket.ready_at(Lane.URGENT, 0.0) == 0.0


def test_a_bucket_sends_one_at_a_time_but_lets_an_urgent_message_by() -> None:
    bucket = Bucket(Burst(5, 1.0))
    bucket.started(Lane.INTERACTIVE)
    assert math.isinf(bucket.ready_at(Lane.INTERACTIVE, 0.0))
    assert bucket.ready_at(Lane.URGENT, 0.0) == 0.0
    bucket.finished(Lane.INTERACTIVE, 0.1)
    assert bucket.ready_at(Lane.INTERACTIVE, 0.1) == 0.1
    assert not bucket.idle(0.1)
    assert bucket.idle(1.1)


def test_every_arrival_sequence_a_bucket_allows_keeps_the_platforms_limit() -> None:
    """Token bucket of 5 at 1 a second, as the fake counts it: whatever each call's
    length, the arrivals (anywhere inside their calls) never overdraw it."""
    bucket = Bucket(Burst(5, 1.0))
    now, arrivals = 0.0, []
    for number in range(40):
        lane = Lane.URGENT if number % 7 == 0 else Lane.INTERACTIVE
        now = max(now, bucket.ready_at(lane, now))
        bucket.started(Lane.INTERACTIVE)
        length = 0.3 if number % 3 == 0 else 0.02
        arrivals.append(now if number % 2 else now + length)  # early or late in the call
        now += length
        bucket.finished(Lane.INTERACTIVE, now)
    tokens, last = 5.0, arrivals[0]
    for at in sorted(arrivals):
        tokens = min(5.0, tokens + (at - last))
        last = at
        assert tokens >= 1.0 - 1e-9
        tokens -= 1.0
