"""Packs of any size, written to disk: the shipped pack with its item files replaced.

The audit's floors (180 affirmations, 90 openings per register...) are tested against
these, so its checks can be shown to pass and fail whatever the shipped items hold.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml

from bot.content_pack.schema import ReplyCategory, Theme

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"
CATEGORIES: tuple[ReplyCategory, ...] = (
    "hard_day", "middle_day", "good_day", "strong_urge", "still_there",
)  # fmt: skip


# First words for the cards and replies, so that no one word opens more of them than the
# content check's limit on opening shapes allows (bot/content_pack/tics.py).
OPENERS = (
    "Amber", "Birch", "Cedar", "Dune", "Ember", "Fern", "Grove", "Harbour", "Iris", "Juniper",
    "Kestrel", "Linden", "Meadow", "Nettle", "Orchard", "Pebble", "Quill", "Rowan", "Sorrel",
    "Thistle", "Umber", "Violet", "Willow", "Yarrow",
)  # fmt: skip


@dataclass(frozen=True)
class Size:
    affirmations: int = 180
    themes: int = 22
    replies_per_category: int = 20
    openings_per_period: int = 30  # per register, for each of morning, afternoon, evening
    any_openings: int = 0


def write_pack(target: Path, size: Size = Size()) -> Path:
    """A valid pack of `size` under target/content; returns the content folder. Every
    locale gets the same items (the content check wants the same ids in each)."""
    content = target / "content"
    shutil.copytree(REPO_CONTENT, content)
    for folder in sorted(path.parent for path in content.glob("*/messages.yaml")):
        _write_items(folder, size)
    return content


def _write_items(en: Path, size: Size) -> None:
    themes = list(Theme)[: size.themes]
    _dump(
        en / "affirmations.yaml",
        "affirmations",
        [
            {
                "id": f"syn-a-{n}",
                "theme": themes[n % len(themes)].value,
                "text": f"{_opener(n)} Card {n}.",
            }
            for n in range(size.affirmations)
        ],
    )
    _dump(
        en / "checkin_replies.yaml",
        "checkin_replies",
        [
            {
                "id": f"syn-r-{category}-{n}",
                "category": category,
                "text": f"{_opener(n + 7)} Reply {category} {n}.",
            }
            for category in CATEGORIES
            for n in range(size.replies_per_category)
        ],
    )
    openings = [
        {"id": f"syn-o-{register}-{period}-{n}", "time_of_day": period,
         "register": register, "text": f"Opening {register} {period} {n}."}
        for register in ("neutral", "warm")
        for period in ("morning", "afternoon", "evening")
        for n in range(size.openings_per_period)
    ] + [
        {"id": f"syn-o-{register}-any-{n}", "time_of_day": "any", "register": register,
         "text": f"Opening {register} any {n}."}
        for register in ("neutral", "warm")
        for n in range(size.any_openings)
    ]  # fmt: skip
    _dump(en / "openings.yaml", "openings", openings)
    _dump(
        en / "reflections.yaml",
        "reflections",
        [{"id": f"syn-q-{n}", "theme": "body", "text": f"Question {n}?"} for n in range(12)],
    )


def _opener(number: int) -> str:
    return OPENERS[number % len(OPENERS)]


def _dump(path: Path, key: str, items: list[dict[str, str]]) -> None:
    locale = path.parent.name
    path.write_text(yaml.safe_dump({"locale": locale, key: items}, sort_keys=False), "utf-8")


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), "utf-8")


def set_item(path: Path, item_id: str, **fields: str) -> None:
    """Give one item of an item file new fields (its words, its time of day ...)."""
    data = yaml.safe_load(path.read_text("utf-8"))
    key = next(name for name in data if name != "locale")
    item = next(item for item in data[key] if item["id"] == item_id)
    item.update(fields)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "utf-8")
