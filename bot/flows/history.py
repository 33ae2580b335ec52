"""/history and /progress: how the last days went, in words and as a chart."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from bot.content_pack.ids import HistoryMsg
from bot.core.replies import Image, Reply
from bot.flows.chart import ChartLabels, DayPoint, render_progress_png
from bot.flows.context import FlowContext
from bot.flows.local_formats import one_decimal, user_locale
from bot.scheduling.planner import user_zone
from bot.storage import urges
from bot.storage.checkins import CheckInAnswer, list_checkins_since

URGE_LEVEL = {"none": 0, "some": 1, "strong": 2}


@dataclass(frozen=True, slots=True)
class PeriodSummary:
    answered: int
    average_mood: float | None
    urges: int  # check-ins that reported some or a strong pull


def summarise(answers: list[CheckInAnswer], since: datetime) -> PeriodSummary:
    recent = [answer for answer in answers if answer.answered_at >= since]
    moods = [answer.mood for answer in recent]
    return PeriodSummary(
        answered=len(recent),
        average_mood=round(sum(moods) / len(moods), 1) if moods else None,
        urges=sum(answer.urge != "none" for answer in recent),
    )


async def history(ctx: FlowContext) -> list[Reply]:
    user = await ctx.find_user()
    now = ctx.now()
    if user is None:
        return [ctx.reply(HistoryMsg.HISTORY_NOTHING)]
    month_ago = now - timedelta(days=30)
    answers = await list_checkins_since(ctx.db, user.id, month_ago)
    pauses = await urges.pause_counts(ctx.db, user.id, month_ago)
    # Each count in its own sentence, so each agrees with its number; none passed is
    # only said when there were pauses at all.
    pause_line = ctx.text(HistoryMsg.HISTORY_PAUSES, paused=pauses.paused)
    if pauses.paused:
        pause_line += " " + ctx.text(HistoryMsg.HISTORY_PASSED, passed=pauses.passed)
    if not answers:
        nothing = ctx.text(HistoryMsg.HISTORY_NOTHING)
        return [Reply(f"{nothing}\n\n{pause_line}" if pauses.paused else nothing)]
    week = summarise(answers, now - timedelta(days=7))
    month = summarise(answers, now - timedelta(days=30))
    no_mood = ctx.text(HistoryMsg.HISTORY_NO_MOOD)
    shown = user_locale(ctx, user)
    summary = ctx.text(
        HistoryMsg.HISTORY_SUMMARY,
        answered_7=week.answered,
        mood_7=no_mood if week.average_mood is None else one_decimal(week.average_mood, shown),
        urges_7=week.urges,
        answered_30=month.answered,
        mood_30=(no_mood if month.average_mood is None else one_decimal(month.average_mood, shown)),
        urges_30=month.urges,
    )
    return [Reply(f"{summary}\n\n{pause_line}")]


def daily_points(answers: list[CheckInAnswer], zone: tzinfo) -> list[DayPoint]:
    """One point per local day: the day's average mood and its strongest pull."""
    by_day: dict[date, list[CheckInAnswer]] = {}
    for answer in answers:
        by_day.setdefault(answer.answered_at.astimezone(zone).date(), []).append(answer)
    return [
        DayPoint(
            day=day,
            mood=sum(a.mood for a in day_answers) / len(day_answers),
            urge=max(URGE_LEVEL[a.urge] for a in day_answers),
        )
        for day, day_answers in sorted(by_day.items())
    ]


async def progress(ctx: FlowContext) -> list[Reply]:
    user = await ctx.find_user()
    now = ctx.now()
    answers = (
        [] if user is None else await list_checkins_since(ctx.db, user.id, now - timedelta(days=30))
    )
    if user is None or not answers:
        return [ctx.reply(HistoryMsg.PROGRESS_NOTHING)]
    zone = user_zone(user)
    points = daily_points(answers, zone)
    today = now.astimezone(zone).date()
    labels = ChartLabels(
        mood=ctx.text(HistoryMsg.CHART_MOOD),
        pull=ctx.text(HistoryMsg.CHART_PULL),
        locale=ctx.locale,
    )
    first_day = today - timedelta(days=29)
    png = await asyncio.to_thread(render_progress_png, points, first_day, today, labels)
    image = Image(png=png, filename=f"steady-progress-{today.isoformat()}.png")
    return [Reply(ctx.text(HistoryMsg.PROGRESS_CAPTION), image=image)]
