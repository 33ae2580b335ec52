"""The one percentile every benchmark reports with: nearest rank, any order of input."""

from __future__ import annotations

import math

from bench.common import percentile


def test_percentile_is_the_nearest_rank_whatever_the_order() -> None:
    values = [40.0, 10.0, 30.0, 20.0]
    assert percentile(values, 0.5) == 20.0  # 2 of 4 at or below it
    assert percentile(values, 0.51) == 30.0
    assert percentile(values, 0.99) == 40.0
    assert percentile(list(range(1, 101)), 0.9) == 90


def test_percentile_at_the_edges() -> None:
    assert percentile([7.0], 0.0) == 7.0
    assert percentile([1.0, 2.0], 1.0) == 2.0
    assert math.isnan(percentile([], 0.5))
