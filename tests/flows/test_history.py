from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

from bot.content_pack.ids import HistoryMsg
from bot.core.clock import ManualClock
from bot.flows.chart import ChartLabels, DayPoint, progress_figure
from tests.helpers.conversation import Conversation


async def check_in(chat: Conversation, mood: str, urge: str) -> None:
    await chat.send("/checkin")
    await chat.send(mood)
    await chat.send(urge)
    await chat.press("Skip")


async def test_history_counts_the_last_7_and_30_days(
    chat: Conversation, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await chat.send("/history")
    assert chat.text == text_of(HistoryMsg.HISTORY_NOTHING)
    await check_in(chat, "1", "strong")  # 40 days ago by the end: counted nowhere
    clock.advance(timedelta(days=20))
    await check_in(chat, "2", "some")  # 20 days ago: the 30-day window only
    clock.advance(timedelta(days=15))
    await check_in(chat, "4", "none")
    clock.advance(timedelta(days=2))
    await check_in(chat, "5", "strong")
    clock.advance(timedelta(days=3))
    await chat.send("/history")
    summary, pauses = chat.text.rsplit("\n\n", 1)
    assert (
        pauses
        == text_of(HistoryMsg.HISTORY_PAUSES, paused=0)
        == "No pauses taken in the last 30 days."
    )
    assert summary == text_of(
        HistoryMsg.HISTORY_SUMMARY,
        answered_7=2,
        mood_7="4.5",
        urges_7=1,
        answered_30=3,
        mood_30="3.7",
        urges_30=2,
    )


async def test_progress_is_a_png_chart(chat: Conversation, text_of: Callable[..., str]) -> None:
    await chat.send("/progress")
    assert chat.text == text_of(HistoryMsg.PROGRESS_NOTHING)
    assert chat.last[0].image is None
    await check_in(chat, "3", "some")
    await chat.send("/progress")
    [reply] = chat.last
    assert reply.text == text_of(HistoryMsg.PROGRESS_CAPTION)
    assert reply.image is not None
    assert reply.image.png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(reply.image.png) > 5_000
    assert reply.image.filename == "steady-progress-2026-03-02.png"


def test_the_chart_legend_uses_the_packs_words_for_both_series() -> None:
    day = date(2026, 3, 2)
    labels = ChartLabels(mood="Stimmung", pull="Sog")  # any words the pack gives
    figure = progress_figure([DayPoint(day, 3.0, 1)], day - timedelta(days=29), day, labels)
    [legend] = figure.legends
    assert [text.get_text() for text in legend.get_texts()] == ["Stimmung", "Sog"]
