"""What the benchmarks share: the percentile, the JSON line of figures, the loop-stall probe."""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import replace

import pytest

from bench.common import LoopStallProbe, json_figures, percentile, print_json_figures
from bench.dispatch import BaselineResult, SteadyResult, figures


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


def test_json_figures_name_every_figure_and_its_target() -> None:
    line = json_figures(
        {"handed_over_s": 0.5, "max_loop_stall_s": 0.25, "baseline_handed_over_s": None},
        {"handed_over_s": 1.0, "max_loop_stall_s": 0.1},
        "abc1234",
    )
    assert json.loads(line) == {
        "commit": "abc1234",
        "handed_over_s": 0.5,
        "max_loop_stall_s": 0.25,
        "baseline_handed_over_s": None,
        "target_handed_over_s": 1.0,
        "target_max_loop_stall_s": 0.1,
        "all_targets_met": False,  # the stall is over its target
    }
    assert "\n" not in line


def test_json_figures_write_an_unmeasured_figure_as_null_and_count_it_missed() -> None:
    shown = json.loads(json_figures({"ratio": math.nan}, {"ratio": 0.2}, "abc1234"))
    assert shown["ratio"] is None and shown["all_targets_met"] is False
    met = json.loads(json_figures({"ratio": 0.1}, {"ratio": 0.2}, "abc1234"))
    assert met["all_targets_met"] is True
    with pytest.raises(ValueError, match="missing"):
        json_figures({}, {"missing": 1.0}, "abc1234")


def test_print_json_figures_prints_one_object_as_the_last_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    print("a table first")
    print_json_figures({"startup_s": 0.3}, {"startup_s": 1.0}, "abc1234")
    last = capsys.readouterr().out.splitlines()[-1]
    assert json.loads(last)["target_startup_s"] == 1.0


async def test_the_stall_probe_reports_the_longest_it_woke_late() -> None:
    """On a made-up clock: each wait of 10 ms takes 10 ms, but for one that took 250."""
    clock = [0.0]
    late_by = {3: 0.240}  # the third wake-up comes 240 ms late: the loop was held
    woken = asyncio.Event()
    probe: LoopStallProbe

    async def sleep(seconds: float) -> None:
        clock[0] += seconds + late_by.get(probe.wakes + 1, 0.0)
        if probe.wakes >= 5:
            woken.set()
        await asyncio.sleep(0)

    probe = LoopStallProbe(0.010, now=lambda: clock[0], sleep=sleep)
    probe.start()
    await woken.wait()
    longest = await probe.stop()
    assert longest == pytest.approx(0.240)


def test_the_dispatch_figures_compare_hand_over_only_when_the_baseline_ran_every_job() -> None:
    steady = SteadyResult(
        schedules=100_000, startup_s=0.5, rss_after_imports_mb=90.0, rss_after_start_mb=110.0,
        rss_increase_mb=20.0, due=10_000, handed_over=10_000, due_to_handed_over_s=0.8,
        tick_s=0.7, delivery_s=0.1, queries_per_tick=700, startup_queries=14, claimed=10_000,
        started=10_000, peak_rss_during_due_mb=120.0, peak_reset_worked=True,
        still_due_after_tick=0, max_loop_stall_s=0.04,
    )  # fmt: skip
    ran_all = BaselineResult(
        schedules=100_000, startup_s=20.0, rss_after_imports_mb=90.0, rss_before_start_mb=100.0,
        rss_after_start_mb=500.0, rss_increase_mb=400.0, due=10_000, due_measured=True,
        due_note="", executed=10_000, missed=0, due_to_done_s=8.0,
    )  # fmt: skip
    found, targets = figures(steady, ran_all, None)
    shown = json.loads(json_figures(found, targets, "abc1234"))
    assert shown["baseline_handed_over_s"] == 8.0
    assert shown["handed_over_share_of_baseline"] == pytest.approx(0.1)
    assert shown["target_handed_over_share_of_baseline"] == 0.2
    assert shown["all_targets_met"] is True
    skipped = replace(ran_all, executed=0, missed=10_000)  # the old misfire grace
    found, targets = figures(steady, skipped, None)
    shown = json.loads(json_figures(found, targets, "abc1234"))
    assert shown["handed_over_share_of_baseline"] is None
    assert shown["all_targets_met"] is False
