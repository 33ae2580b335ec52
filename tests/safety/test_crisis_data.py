"""The crisis data itself: a number for every country, a source and a date for every entry."""

from __future__ import annotations

import re
import shutil
from datetime import date
from pathlib import Path

import pytest

from bot.content_pack.countries import country_names
from bot.content_pack.loader import check_pack
from bot.content_pack.pack import ContentPack

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"


@pytest.fixture
def pack_copy(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(REPO_CONTENT, target)
    return target


def drop_entry(path: Path, code: str) -> None:
    """Remove a country's block (from its `- code:` line to the next one)."""
    lines = path.read_text("utf-8").splitlines(keepends=True)
    start = lines.index(f"  - code: {code}\n")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("  - code: "))
    path.write_text("".join(lines[:start] + lines[end:]), "utf-8")


def drop_line(path: Path, needle: str) -> None:
    lines = path.read_text("utf-8").splitlines(keepends=True)
    kept = [line for line in lines if needle not in line]
    assert len(kept) == len(lines) - 1, needle
    path.write_text("".join(kept), "utf-8")


def test_every_iso_country_has_a_dialable_number(content: ContentPack) -> None:
    codes = set(country_names())
    assert len(codes) >= 249  # ISO 3166-1 as shipped with the tz database
    assert set(content.emergency) == codes
    for code in codes:
        numbers = content.emergency[code]
        for number in (numbers.police_number, numbers.ambulance_number):
            assert re.fullmatch(r"[0-9*#][0-9 *#]*", number), code
        assert numbers.checked >= date(2026, 11, 1), code
        # Confirmed by its sources, or marked so the reply says it is not.
        assert numbers.review or not numbers.unconfirmed, code
        assert numbers.sources or numbers.review, code


def test_content_check_fails_when_a_country_has_no_number(pack_copy: Path) -> None:
    file = pack_copy / "emergency_numbers.yaml"
    drop_entry(file, "FJ")
    problems = check_pack(pack_copy, "en")
    assert [str(problem.file) for problem in problems] == [str(file)]
    assert "no emergency number for: FJ" in problems[0].message


def test_content_check_fails_for_an_entry_without_a_number(pack_copy: Path) -> None:
    file = pack_copy / "emergency_numbers.yaml"
    old = '  - code: DE\n    police: "110"\n'
    text = file.read_text("utf-8")
    assert old in text
    file.write_text(text.replace(old, "  - code: DE\n", 1), "utf-8")
    problems = check_pack(pack_copy, "en")
    assert len(problems) == 1 and "DE: needs a general number" in problems[0].message


def test_content_check_fails_when_a_country_has_no_name(pack_copy: Path) -> None:
    file = pack_copy / "en" / "countries.yaml"
    drop_line(file, "{code: KE,")
    problems = check_pack(pack_copy, "en")
    assert len(problems) == 1 and "no name for: KE" in problems[0].message


def test_hours_are_written_one_way(pack_copy: Path) -> None:
    file = pack_copy / "en" / "crisis.yaml"
    text = file.read_text("utf-8")
    file.write_text(text.replace('hours: "24/7"', 'hours: "24 hours a day"', 1), "utf-8")
    problems = check_pack(pack_copy, "en")
    assert len(problems) == 1 and "hours" in problems[0].message


def test_every_helpline_has_a_source_and_a_date(content: ContentPack) -> None:
    crisis = content.crisis("en")
    entries = [r for country in crisis.countries for r in country.resources]
    assert entries
    for resource in entries:
        assert resource.sources or resource.review, resource.id
        assert resource.last_verified >= date(2026, 11, 1), resource.id
        assert re.search(r"\d", resource.contact), resource.id  # something to dial or text
    directory = crisis.fallback.directory
    assert directory.source and directory.last_verified


def test_at_least_35_countries_have_crisis_and_domestic_abuse_lines(content: ContentPack) -> None:
    both = {
        country.code
        for country in content.crisis("en").countries
        if {"crisis", "domestic_abuse"} <= {resource.kind for resource in country.resources}
    }
    assert len(both) >= 35
    asked_for = {"FR", "ES", "IT", "PT", "NL", "BE", "AT", "SE", "NO", "DK", "FI", "PL", "CZ"}
    asked_for |= {"GR", "BR", "MX", "AR", "CO", "CL", "ZA", "KE", "SG", "JP", "KR", "CA", "IN"}
    assert asked_for <= both


def test_the_gaps_that_were_found_are_filled(content: ContentPack) -> None:
    def contacts(code: str) -> str:
        found = content.country_resources("en", code)
        assert found is not None
        return " ".join(f"{r.name} {r.contact}" for r in found.resources)

    assert "14416" in contacts("IN")  # Tele-MANAS
    assert "1-866-863-0511" in contacts("CA")  # a domestic-abuse line in Canada
    assert "0808 801 0327" in contacts("GB")  # Men's Advice Line
    assert "0800 123 99 00" in contacts("DE")  # for men in Germany
    germany = content.emergency["DE"]
    assert (germany.police_number, germany.ambulance_number) == ("110", "112")


def test_names_read_right_in_a_sentence(content: ContentPack) -> None:
    assert content.country_in_sentence("en", "GB") == "the United Kingdom"
    assert content.country_in_sentence("en", "NL") == "the Netherlands"
    assert content.country_in_sentence("en", "PH") == "the Philippines"
    assert content.country_in_sentence("en", "DE") == "Germany"
    assert content.country_label("en", "GB") == "United Kingdom"
    for code in country_names():
        label = content.country_label("en", code)
        assert label != code and "&" not in label, code
