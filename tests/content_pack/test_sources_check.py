"""`steady content check` holds every number a person in danger may dial to two sources:
a number two publishers state, one of them first-hand, is confirmed; one that is not needs
its entry marked for review, with a note (and, for emergency numbers, a fallback) so the
reply can say so plainly."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.content_pack.audit import audit_pack
from bot.content_pack.loader import load_pack
from bot.content_pack.sources_check import check_sources, sources_summary
from tests.helpers.processes import steady

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"
EMERGENCY = "emergency_numbers.yaml"

Data = dict[str, Any]


@pytest.fixture
def pack_copy(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(REPO_CONTENT, target)
    return target


def edit(path: Path, change: Callable[[Data], None]) -> None:
    data = yaml.safe_load(path.read_text("utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "utf-8")


def entry(data: Data, code: str) -> Data:
    found: Data = next(c for c in data["countries"] if c["code"] == code)
    return found


def helpline(data: Data, resource_id: str) -> Data:
    found: Data = next(
        r for country in data["countries"] for r in country["resources"] if r["id"] == resource_id
    )
    return found


def findings(content: Path) -> list[str]:
    return [str(finding) for finding in check_sources(load_pack(content, "en"), content)]


def source(url: str, publisher: str, kind: str = "official", **numbers: str) -> Data:
    return {
        "url": url,
        "publisher": publisher,
        "kind": kind,
        "checked": "2026-12-02",
        "says": "states the numbers",
        "numbers": numbers,
    }


def line_source(url: str, publisher: str, *numbers: str, kind: str = "official") -> Data:
    return {**source(url, publisher, kind), "numbers": list(numbers)}


def sources_of(code: str, *sources: Data) -> Callable[[Data], None]:
    """An edit that gives an entry these sources and drops its fire number (left out of
    these tests)."""

    def change(data: Data) -> None:
        found = entry(data, code)
        found["sources"] = list(sources)
        found.pop("fire", None)

    return change


ANDROID = (
    "https://github.com/LineageOS/android_packages_services_Telephony/blob/x/ecc/input/eccdata.txt"
)
LIBPHONENUMBER = "https://github.com/google/libphonenumber/blob/x/resources/ShortNumberMetadata.xml"
WIKIPEDIA = "https://en.wikipedia.org/wiki/List_of_emergency_telephone_numbers"


def test_the_shipped_pack_passes() -> None:
    report = audit_pack(load_pack(REPO_CONTENT, "en"), REPO_CONTENT)
    assert [
        str(f) for f in report.failures if "publisher" in f.message or "review" in f.message
    ] == []


def test_two_publishers_confirm_an_entry(pack_copy: Path) -> None:
    two_publishers = sources_of(
        "DE",
        source("https://www.example-city.de/notruf", "City", police="110", ambulance="112"),
        source("https://feuerwehr.example.org/", "Fire brigade", police="110", ambulance="112"),
    )
    edit(pack_copy / EMERGENCY, two_publishers)
    assert [f for f in findings(pack_copy) if " DE:" in f] == []
    assert load_pack(pack_copy, "en").emergency["DE"].unconfirmed == ()


def test_an_entry_with_one_publisher_fails(pack_copy: Path) -> None:
    one_publisher = sources_of(
        "DE",
        source("https://www.example-city.de/notruf", "City", police="110", ambulance="112"),
        # Another page of the same publisher, on another site, is not a second source.
        source("https://city-portal.example/112", "CITY", police="110", ambulance="112"),
    )
    edit(pack_copy / EMERGENCY, one_publisher)
    found = [f for f in findings(pack_copy) if " DE:" in f]
    assert found == [
        "emergency_numbers.yaml DE: police 110 is stated by 1 publisher(s) (City); "
        "2 publishers needed, one of them first-hand, "
        "or mark the entry review: true with a note and a fallback",
        "emergency_numbers.yaml DE: ambulance 112 is stated by 1 publisher(s) (City); "
        "2 publishers needed, one of them first-hand, "
        "or mark the entry review: true with a note and a fallback",
    ]


def test_android_and_libphonenumber_are_one_publisher(pack_copy: Path) -> None:
    def google_twice(data: Data) -> None:
        italy = entry(data, "IT")
        italy["sources"] = [
            source(ANDROID, "Google", "dataset", general="112", ambulance="118"),
            source(LIBPHONENUMBER, "Google", "dataset", general="112", ambulance="118"),
        ]
        italy.update(ambulance="118", review=False)
        for key in ("police", "fire", "note", "fallback", "source"):
            italy.pop(key, None)

    edit(pack_copy / EMERGENCY, google_twice)
    assert load_pack(pack_copy, "en").emergency["IT"].unconfirmed == ("general", "ambulance")
    assert (
        "emergency_numbers.yaml IT: ambulance 118 is stated by 1 publisher(s) (Google); "
        "2 publishers needed, one of them first-hand, "
        "or mark the entry review: true with a note and a fallback"
    ) in findings(pack_copy)


def test_an_encyclopedia_confirms_only_beside_a_first_hand_source(pack_copy: Path) -> None:
    def android_and_wikipedia(data: Data) -> None:
        italy = entry(data, "IT")
        italy["sources"] = [
            source(ANDROID, "Google", "dataset", general="112", ambulance="118"),
            source(WIKIPEDIA, "Wikipedia", "encyclopedia", general="112", ambulance="118"),
        ]
        italy.update(ambulance="118", review=True, fallback=["112"], note="Second-hand only.")
        for key in ("police", "fire"):
            italy.pop(key, None)

    edit(pack_copy / EMERGENCY, android_and_wikipedia)
    assert load_pack(pack_copy, "en").emergency["IT"].unconfirmed == ("general", "ambulance")
    edit(pack_copy / EMERGENCY, lambda data: entry(data, "IT").update(review=False))
    assert (
        "emergency_numbers.yaml IT: ambulance 118 is stated by 2 publisher(s) (Google, "
        "Wikipedia), none first-hand; 2 publishers needed, one of them first-hand, "
        "or mark the entry review: true with a note and a fallback"
    ) in findings(pack_copy)
    edit(pack_copy / EMERGENCY, lambda data: entry(data, "IT").update(review=True))

    def and_a_region(data: Data) -> None:
        entry(data, "IT")["sources"].append(
            source("https://www.regione.example.it/118", "A region", ambulance="118")
        )

    edit(pack_copy / EMERGENCY, and_a_region)
    assert load_pack(pack_copy, "en").emergency["IT"].unconfirmed == ("general",)

    def region_and_wikipedia_alone(data: Data) -> None:
        entry(data, "IT")["sources"].pop(0)

    edit(pack_copy / EMERGENCY, region_and_wikipedia_alone)
    assert load_pack(pack_copy, "en").emergency["IT"].unconfirmed == ("general",)


def test_one_site_is_one_publisher_and_one_publisher_one_kind(pack_copy: Path) -> None:
    def renamed(data: Data) -> None:
        germany = entry(data, "DE")
        germany["sources"] = [
            source("https://news.example.de/a", "Example News", "press", police="110"),
            # A second name for the same site would count it twice.
            source("https://news.example.de/b", "Example Daily", "press", police="110"),
            source(ANDROID, "Google", "official", police="110"),
        ]
        germany.update(review=True, fallback=["112"], note="Testing how publishers are named.")

    edit(pack_copy / EMERGENCY, renamed)
    found = [f for f in findings(pack_copy) if " DE:" in f]
    assert found == [
        "emergency_numbers.yaml DE: news.example.de is published by 'Example News' "
        "elsewhere, here by 'Example Daily': one site is one publisher",
        "emergency_numbers.yaml DE: 'Google' is a source of kind 'dataset' elsewhere, "
        "here 'official': one publisher is one kind",
    ]


def test_repositories_of_two_accounts_are_two_sites(pack_copy: Path) -> None:
    def two_accounts(data: Data) -> None:
        germany = entry(data, "DE")
        germany["sources"] = [
            source(ANDROID, "Google", "dataset", police="110"),
            source("https://github.com/example-city/data/blob/x/n.csv", "City", police="110"),
        ]
        germany.update(review=True, fallback=["112"], note="Testing sites on a shared host.")

    edit(pack_copy / EMERGENCY, two_accounts)
    assert [f for f in findings(pack_copy) if " DE:" in f] == []


def test_a_source_stating_another_number_does_not_confirm(pack_copy: Path) -> None:
    other_number = sources_of(
        "DE",
        source("https://a.example.de/", "Alpha", police="110", ambulance="112"),
        source("https://b.example.de/", "Beta", police="110", ambulance="19222"),
    )
    edit(pack_copy / EMERGENCY, other_number)
    assert load_pack(pack_copy, "en").emergency["DE"].unconfirmed == ("ambulance",)


def test_a_marked_and_hedged_entry_passes(pack_copy: Path) -> None:
    def marked(data: Data) -> None:
        germany = entry(data, "DE")
        germany["sources"] = [
            source("https://a.example.de/", "Alpha", police="110", ambulance="112")
        ]
        germany.update(review=True, fallback=["112"], note="Only one page states these numbers.")

    edit(pack_copy / EMERGENCY, marked)
    assert [f for f in findings(pack_copy) if " DE:" in f] == []


def test_a_marked_entry_needs_its_note_and_fallback(pack_copy: Path) -> None:
    def bare_mark(data: Data) -> None:
        germany = entry(data, "DE")
        germany["sources"] = [
            source("https://a.example.de/", "Alpha", police="110", ambulance="112")
        ]
        germany["review"] = True

    edit(pack_copy / EMERGENCY, bare_mark)
    assert [f for f in findings(pack_copy) if " DE:" in f] == [
        "emergency_numbers.yaml DE: marked for review without a note of what is known and why",
        "emergency_numbers.yaml DE: marked for review without a fallback number to give as well",
    ]


def test_a_fallback_must_be_confirmed_itself(pack_copy: Path) -> None:
    def odd_fallback(data: Data) -> None:
        germany = entry(data, "DE")
        germany.update(review=True, fallback=["999"], note="Testing a fallback nobody states.")

    edit(pack_copy / EMERGENCY, odd_fallback)
    expected = (
        "emergency_numbers.yaml DE: fallback 999 is not one that fallback_sources confirm twice"
    )
    assert expected in findings(pack_copy)


def test_an_entry_without_a_service_number_dials_its_fallback(pack_copy: Path) -> None:
    def police_only(data: Data) -> None:
        germany = entry(data, "DE")
        germany.pop("ambulance")
        germany.update(review=True, fallback=["112"], note="No ambulance number is known here.")

    edit(pack_copy / EMERGENCY, police_only)
    germany = load_pack(pack_copy, "en").emergency["DE"]
    assert (germany.police_number, germany.ambulance_number) == ("110", "112")


def test_a_helpline_with_one_source_fails_and_two_pass(pack_copy: Path) -> None:
    path = pack_copy / "en" / "crisis.yaml"

    def one_site(data: Data) -> None:
        line = helpline(data, "gb-samaritans")
        for key in ("review", "note", "source"):
            line.pop(key, None)
        line["sources"] = [line_source("https://www.samaritans.org/", "Samaritans", "116 123")]

    edit(path, one_site)
    assert (
        "en/crisis.yaml gb-samaritans: 116123 is stated by 1 publisher(s) (Samaritans); "
        "2 publishers needed, one of them first-hand, or mark it review: true with a note"
    ) in findings(pack_copy)

    def two_sites(data: Data) -> None:
        line = helpline(data, "gb-samaritans")
        line["sources"].append(line_source("https://www.nhs.uk/", "NHS", "116123"))

    edit(path, two_sites)
    assert [f for f in findings(pack_copy) if "gb-samaritans" in f] == []


def test_a_marked_helpline_passes_with_a_note_and_fails_without(pack_copy: Path) -> None:
    path = pack_copy / "en" / "crisis.yaml"

    def marked(data: Data) -> None:
        line = helpline(data, "gb-samaritans")
        line.update(sources=[], review=True, note="Not confirmed by two publishers yet.")

    edit(path, marked)
    assert [f for f in findings(pack_copy) if "gb-samaritans" in f] == []

    edit(path, lambda data: helpline(data, "gb-samaritans").pop("note"))
    assert [f for f in findings(pack_copy) if "gb-samaritans" in f] == [
        "en/crisis.yaml gb-samaritans: marked for review without a note of what is known and why"
    ]


def test_a_helpline_says_which_language_it_answers_in(pack_copy: Path) -> None:
    edit(pack_copy / "es" / "crisis.yaml", lambda data: helpline(data, "gb-shout").pop("languages"))
    assert (
        "es/crisis.yaml gb-shout: languages is missing: say which language(s) it answers in"
    ) in findings(pack_copy)


def test_every_number_in_a_contact_needs_its_sources(pack_copy: Path) -> None:
    def text_number_unsourced(data: Data) -> None:
        line = helpline(data, "gb-samaritans")
        for key in ("review", "note", "source"):
            line.pop(key, None)
        line["contact"] = "Call free on 116 123 or text 07725 909090"
        line["sources"] = [
            line_source("https://www.samaritans.org/", "Samaritans", "116 123"),
            line_source("https://www.nhs.uk/", "NHS", "116 123"),
        ]

    edit(pack_copy / "en" / "crisis.yaml", text_number_unsourced)
    assert [f for f in findings(pack_copy) if "gb-samaritans" in f] == [
        "en/crisis.yaml gb-samaritans: 07725909090 is stated by 0 publisher(s); "
        "2 publishers needed, one of them first-hand, or mark it review: true with a note"
    ]


def test_the_check_counts_confirmed_and_hedged_entries(pack_copy: Path) -> None:
    def counts(content: Path) -> tuple[int, int, int]:
        pack = load_pack(content, "en")
        line = next(s for s in sources_summary(pack) if "emergency numbers" in s)
        total, confirmed, hedged = (int(word) for word in line.split() if word.isdigit())
        return total, confirmed, hedged

    total, confirmed, hedged = counts(pack_copy)
    assert total == confirmed + hedged == len(load_pack(pack_copy, "en").emergency)

    def hedge_germany(data: Data) -> None:
        entry(data, "DE").update(review=True, fallback=["112"], note="Marked to test the count.")

    assert not entry(yaml.safe_load((pack_copy / EMERGENCY).read_text("utf-8")), "DE").get("review")
    edit(pack_copy / EMERGENCY, hedge_germany)
    assert counts(pack_copy) == (total, confirmed - 1, hedged + 1)


def test_steady_content_check_fails_on_an_unconfirmed_entry_unless_hedged(
    pack_copy: Path, tmp_path: Path
) -> None:
    """The command an editor runs: an emergency entry one page confirms fails it, and
    passes once it is marked for review with a note and a fallback to give as well."""

    def check() -> tuple[int, str]:
        result = steady(["content", "check"], tmp_path / "data", STEADY_CONTENT_DIR=str(pack_copy))
        return result.returncode, result.stdout

    def one_page(data: Data) -> None:
        germany = entry(data, "DE")
        germany["sources"] = [
            source("https://a.example.de/", "Alpha", police="110", ambulance="112")
        ]
        germany.pop("fire", None)
        for key in ("review", "note", "fallback"):
            germany.pop(key, None)

    edit(pack_copy / EMERGENCY, one_page)
    code, printed = check()
    assert code == 1
    assert "emergency_numbers.yaml DE: police 110 is stated by 1 publisher(s) (Alpha)" in printed
    assert "content pack is valid" not in printed

    def hedged(data: Data) -> None:
        entry(data, "DE").update(review=True, fallback=["112"], note="Only one page states it.")

    edit(pack_copy / EMERGENCY, hedged)
    code, printed = check()
    assert code == 0, printed
    assert "content pack is valid" in printed
