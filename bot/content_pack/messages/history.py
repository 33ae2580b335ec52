"""/history and /progress: what the check-ins add up to."""

from __future__ import annotations

from enum import StrEnum


class HistoryMsg(StrEnum):
    HISTORY_SUMMARY = "history.summary"
    HISTORY_NOTHING = "history.nothing"
    HISTORY_NO_MOOD = "history.no_mood"
    PROGRESS_CAPTION = "progress.caption"
    PROGRESS_NOTHING = "progress.nothing"
    PROGRESS_SAVED_TO = "progress.saved_to"
    CHART_MOOD = "progress.chart_mood"
    CHART_PULL = "progress.chart_pull"

    HISTORY_PAUSES = "history.pauses"
    HISTORY_PASSED = "history.passed"
