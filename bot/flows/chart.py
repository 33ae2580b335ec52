"""The /progress chart: mood and the pull to reach out over 30 days, as a PNG."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from babel.dates import format_date

from bot.content_pack.plurals import babel_locale

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True, slots=True)
class DayPoint:
    day: date
    mood: float  # 1..5, the day's average
    urge: int  # 0 none, 1 some, 2 strong: the day's strongest


@dataclass(frozen=True, slots=True)
class ChartLabels:
    """The words on the chart, from the content pack like every other text."""

    mood: str
    pull: str
    locale: str = "en"  # the dates under the chart name their month in it (CLDR)


def render_progress_png(
    points: list[DayPoint], first_day: date, last_day: date, labels: ChartLabels
) -> bytes:
    """Draw the chart, in memory (never a file). Blocking and CPU-bound: call it in a
    worker thread."""
    figure = progress_figure(points, first_day, last_day, labels)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def progress_figure(
    points: list[DayPoint], first_day: date, last_day: date, labels: ChartLabels
) -> Figure:
    # Imported here: matplotlib is slow to import and only this command needs it.
    from matplotlib.figure import Figure  # noqa: PLC0415

    figure = Figure(figsize=(8, 4), dpi=100)
    mood_axis = figure.add_subplot()
    # Days as offsets from the first one: plain numbers, labelled with dates below.
    days = [(point.day - first_day).days for point in points]
    span = (last_day - first_day).days
    mood_axis.plot(days, [p.mood for p in points], marker="o", color="#3b7a57", label=labels.mood)
    mood_axis.set_ylim(0.5, 5.5)
    mood_axis.set_yticks([1, 2, 3, 4, 5])
    mood_axis.set_ylabel(f"{labels.mood} (1-5)")
    urge_axis = mood_axis.twinx()
    urge_axis.bar(
        days, [p.urge for p in points], width=0.6, alpha=0.3, color="#b5651d", label=labels.pull
    )
    urge_axis.set_ylim(0, 4)
    urge_axis.set_yticks([0, 1, 2])
    urge_axis.set_ylabel(f"{labels.pull} (0-2)")
    mood_axis.set_xlim(-0.5, span + 0.5)
    ticks = list(range(0, span + 1, 7))
    dates = [first_day + timedelta(days=t) for t in ticks]
    mood_axis.set_xticks(
        ticks, [format_date(d, "dd MMM", locale=babel_locale(labels.locale)) for d in dates]
    )
    mood_axis.grid(axis="y", alpha=0.3)
    figure.legend(loc="upper center", ncol=2, frameon=False)
    figure.tight_layout(rect=(0, 0, 1, 0.92))  # leave the top strip to the legend
    return figure
