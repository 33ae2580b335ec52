"""`steady content check` beyond loading: words we never use, enough items, a month
without repeats, and the report of the verbal tics (tests/content_pack/test_style.py has
the rules of style)."""

from __future__ import annotations

from pathlib import Path

from bot.content_pack.audit import AuditReport, audit_pack
from bot.content_pack.loader import load_pack
from tests.helpers.synthetic_pack import Size, replace_in, set_item, write_pack


def audit(content: Path) -> AuditReport:
    return audit_pack(load_pack(content, "en"), content)


def messages_of(report: AuditReport) -> list[str]:
    return [str(finding) for finding in report.failures]


def test_a_full_size_pack_passes_and_prints_its_tics(tmp_path: Path) -> None:
    report = audit(write_pack(tmp_path))
    assert report.failures == []
    assert any("en: verbal tics, in 292 cards" in note for note in report.notes)
    assert any(note.endswith("a question, then an answer") for note in report.notes)


def test_an_idiom_is_found_in_any_file_even_across_a_line_break(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    replace_in(content / "en" / "affirmations.yaml", "Card 3.", "Card 3, dead\n    tired.")
    replace_in(
        content / "en" / "messages.yaml",
        "Thank you for writing this.",
        "Thank you for writing this, dying to",
    )
    replace_in(content / "en" / "exercises.yaml", "closing: ", "closing: Killing time. ")
    found = messages_of(audit(content))
    assert "en/affirmations.yaml syn-a-3: uses 'dead tired'" in found
    assert "en/messages.yaml general.unexpected_text: uses 'dying to'" in found
    assert any("exercises.yaml" in f and "'killing time'" in f for f in found)


def test_an_innocent_neighbour_of_an_idiom_is_not_flagged(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    replace_in(
        content / "en" / "affirmations.yaml", "Card 3.", "Feeling cut off from friends is real."
    )
    replace_in(content / "en" / "affirmations.yaml", "Card 4.", "Take your time with it.")
    assert messages_of(audit(content)) == []


def test_the_list_is_data(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    avoid = content / "en" / "avoid_phrases.yaml"
    avoid.write_text(avoid.read_text("utf-8") + "  - card seven\n", "utf-8")
    replace_in(content / "en" / "affirmations.yaml", "Card 7.", "Card seven.")
    assert messages_of(audit(content)) == ["en/affirmations.yaml syn-a-7: uses 'card seven'"]


def test_too_few_items_are_named_by_what_is_short(tmp_path: Path) -> None:
    small = Size(affirmations=179, themes=21, replies_per_category=19, openings_per_period=29)
    found = messages_of(audit(write_pack(tmp_path, small)))
    assert "en/affirmations.yaml: 179 affirmations, at least 180 needed" in found
    assert "en/affirmations.yaml: 21 themes used, at least 22 needed" in found
    assert "en/checkin_replies.yaml: 19 replies for still_there, at least 20 needed" in found
    assert "en/openings.yaml: 87 neutral openings, at least 90 needed" in found
    assert "en/openings.yaml: 87 warm openings, at least 90 needed" in found


def test_shared_openings_fill_one_part_of_the_day_each(tmp_path: Path) -> None:
    # 25 per part of the day leaves gaps of 5 + 5 + 5; 14 "any" cannot fill 15.
    found = messages_of(audit(write_pack(tmp_path, Size(openings_per_period=25, any_openings=14))))
    assert any("neutral: not enough for 30 days without a repeat (short by 1" in f for f in found)
    fine = messages_of(
        audit(write_pack(tmp_path / "b", Size(openings_per_period=25, any_openings=15)))
    )
    assert not any("without a repeat" in f for f in fine)


def test_replies_for_a_month_of_three_checkins_a_day(tmp_path: Path) -> None:
    # 20 per category over five categories is 100: a month of three a day fits.
    assert messages_of(audit(write_pack(tmp_path, Size(replies_per_category=20)))) == []


def test_wording_for_one_part_of_the_day_needs_its_time(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    # The same change in every locale: the content check wants their items alike.
    locales = sorted(path.parent.name for path in content.glob("*/checkin_replies.yaml"))
    for locale in locales:
        replies = content / locale / "checkin_replies.yaml"
        set_item(
            replies, "syn-r-hard_day-0", text="Something soft before bed?", time_of_day="evening"
        )
        set_item(replies, "syn-r-hard_day-1", text="Something soft before bed?")
    found = messages_of(audit(content))
    assert found == [
        f"{locale}/checkin_replies.yaml syn-r-hard_day-1: says 'before bed' but may be shown "
        "at any hour: give it a time_of_day, or other words"
        for locale in locales
    ]
