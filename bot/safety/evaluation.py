"""How the screen answers a set of labelled messages: the figures behind every claim about
recall and false alarms (the CI gate, the benchmarks, the first-contact records)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bot.safety.corpus import LABELS, Example
from bot.safety.rules import ReplyLevel

FULL = frozenset({ReplyLevel.CRISIS, ReplyLevel.DANGER})


@dataclass(frozen=True, slots=True)
class LabelScore:
    """What the screen answered to the messages of one label."""

    label: str
    total: int
    full: int  # the full crisis or danger reply
    check: int  # the short check
    urge: int  # the offer of a pause
    contacted: int  # the offer of a pause before replying

    @property
    def caught(self) -> int:
        """Crisis or danger answered with the full reply or a check."""
        return self.full + self.check

    @property
    def recognised(self) -> int:
        """The label's own answer: caught for crisis and danger, a check (or more) for
        softened words, the pause offers for urges and contact, nothing for ordinary talk."""
        if self.label in ("crisis", "danger", "softened"):
            return self.caught
        if self.label == "urge":
            return self.urge
        if self.label == "contacted":
            return self.contacted
        return self.total - self.full - self.check - self.urge - self.contacted


def score(examples: Iterable[Example], reply_to: Callable[[str], ReplyLevel]) -> list[LabelScore]:
    """Each label's answers, in the corpus's order of labels (labels with no messages left out)."""
    counts: dict[str, dict[ReplyLevel | None, int]] = {}
    for example in examples:
        level = reply_to(example.text)
        found = counts.setdefault(example.label, {})
        found[level] = found.get(level, 0) + 1
        found[None] = found.get(None, 0) + 1
    return [
        LabelScore(
            label=label,
            total=counts[label][None],
            full=sum(counts[label].get(level, 0) for level in FULL),
            check=counts[label].get(ReplyLevel.CHECK, 0),
            urge=counts[label].get(ReplyLevel.URGE, 0),
            contacted=counts[label].get(ReplyLevel.CONTACTED, 0),
        )
        for label in LABELS
        if label in counts
    ]


def dangerous_recall(scores: Iterable[LabelScore]) -> tuple[int, int]:
    """(caught, total) over crisis and danger together."""
    dangerous = [item for item in scores if item.label in ("crisis", "danger")]
    return sum(item.caught for item in dangerous), sum(item.total for item in dangerous)


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "–"


def table(scores: list[LabelScore]) -> list[str]:
    """A markdown table: per label, what the screen answered."""
    rows = [
        "| Label | Messages | Full reply | Check | Full or check | Pause offer (urge / contact) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for item in scores:
        rows.append(
            f"| {item.label} | {item.total} | {percent(item.full, item.total)} |"
            f" {percent(item.check, item.total)} | {percent(item.caught, item.total)} |"
            f" {percent(item.urge, item.total)} / {percent(item.contacted, item.total)} |"
        )
    caught, total = dangerous_recall(scores)
    rows.append(f"| crisis + danger | {total} | | | {percent(caught, total)} | |")
    return rows
