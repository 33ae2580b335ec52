"""`steady content check` holds every locale to the default: each message id, command,
country name and item id, with the same non-text fields; helplines listed in both agree.
A locale that lacks a message still loads, and shows that message in the default locale."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.content_pack.audit import audit_pack
from bot.content_pack.ids import OnboardingMsg
from bot.content_pack.loader import check_pack, load_pack
from bot.content_pack.parity import check_parity

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"


@pytest.fixture
def pack_copy(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(REPO_CONTENT, target)
    return target


def edit(path: Path, change: Any) -> None:
    """Change a file through its data, whatever the words in it are."""
    data = yaml.safe_load(path.read_text("utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "utf-8")


def findings(content: Path) -> list[str]:
    assert check_pack(content, "en") == []  # these packs load: the gaps are the check's
    return [str(finding) for finding in check_parity(load_pack(content, "en"))]


def test_the_shipped_locales_match_the_default() -> None:
    pack = load_pack(REPO_CONTENT, "en")
    assert "es" in pack.locales
    assert [str(finding) for finding in check_parity(pack)] == []


def test_a_missing_message_is_reported_and_shown_in_the_default_language(
    pack_copy: Path,
) -> None:
    edit(
        pack_copy / "es" / "messages_language.yaml",
        lambda data: data["messages"].pop("language.saved"),
    )
    assert findings(pack_copy) == [
        "es/messages: message 'language.saved' is missing (en is shown instead)"
    ]
    pack = load_pack(pack_copy, "en")
    shown = pack.text_on("es", OnboardingMsg.LANGUAGE_SAVED, "telegram")
    assert shown == pack.text("en", OnboardingMsg.LANGUAGE_SAVED)
    assert shown != OnboardingMsg.LANGUAGE_SAVED.value
    # And the whole check fails on it, as `steady content check` prints it.
    report = audit_pack(pack, pack_copy)
    assert any("language.saved" in str(finding) for finding in report.failures)


def test_an_item_is_held_to_its_id_and_non_text_fields(pack_copy: Path) -> None:
    def change_affirmations(data: dict[str, Any]) -> None:
        first, second = data["affirmations"][0], data["affirmations"][1]
        first["theme"] = "anger" if first["theme"] != "anger" else "grief"
        second["id"] = "not-in-english"

    edit(pack_copy / "es" / "affirmations.yaml", change_affirmations)
    en = yaml.safe_load((pack_copy / "en" / "affirmations.yaml").read_text("utf-8"))
    first, second = en["affirmations"][0], en["affirmations"][1]
    found = findings(pack_copy)
    assert f"es/affirmations.yaml: {second['id']} is missing" in found
    assert "es/affirmations.yaml: not-in-english is not in the default locale" in found
    assert any(f.startswith(f"es/affirmations.yaml {first['id']}: theme is ") for f in found)
    assert len(found) == 3


def test_openings_replies_reflections_and_exercises_keep_their_shape(pack_copy: Path) -> None:
    def flip(field: str, one: str, other: str) -> Any:
        def change(data: dict[str, Any]) -> None:
            items = next(value for value in data.values() if isinstance(value, list))
            items[0][field] = other if items[0].get(field, one) == one else one

        return change

    edit(pack_copy / "es" / "openings.yaml", flip("register", "neutral", "warm"))
    edit(pack_copy / "es" / "checkin_replies.yaml", flip("time_of_day", "any", "evening"))
    edit(pack_copy / "es" / "reflections.yaml", flip("theme", "body", "sleep"))

    def fewer_steps(data: dict[str, Any]) -> None:
        grounding = next(e for e in data["exercises"] if e["kind"] == "grounding")
        grounding["steps"] = grounding["steps"][:-1]

    edit(pack_copy / "es" / "exercises.yaml", fewer_steps)
    found = findings(pack_copy)
    assert len(found) == 4, found
    assert any(f.startswith("es/openings.yaml ") and "register is" in f for f in found)
    assert any(f.startswith("es/checkin_replies.yaml ") and "time_of_day" in f for f in found)
    assert any(f.startswith("es/reflections.yaml ") and "theme is" in f for f in found)
    assert any(f.startswith("es/exercises.yaml ") and "the number of steps" in f for f in found)


def test_commands_countries_and_shared_helplines(pack_copy: Path) -> None:
    def drop_command(data: dict[str, Any]) -> None:
        data["commands"] = [c for c in data["commands"] if c["name"] != "history"]
        data["commands"][0]["local_name"] = "ayuda"  # now two commands share the name

    edit(pack_copy / "es" / "commands.yaml", drop_command)
    edit(
        pack_copy / "es" / "countries.yaml",
        lambda data: data.update(countries=[c for c in data["countries"] if c["code"] != "FJ"]),
    )

    def other_hours(data: dict[str, Any]) -> None:
        spain = next(c for c in data["countries"] if c["code"] == "ES")
        line = next(r for r in spain["resources"] if r["id"] == "es-024")
        line["hours"] = "Mon–Fri 9:00–17:00"

    edit(pack_copy / "es" / "crisis.yaml", other_hours)
    assert findings(pack_copy) == [
        "es/commands.yaml: command 'history' has no description",
        "es/commands.yaml: two commands are both called 'ayuda'",
        "es/countries.yaml: no name for: FJ",
        "es/crisis.yaml es-024: hours differs from en: 'Mon–Fri 9:00–17:00' and '24/7'",
    ]


def test_a_locale_may_cover_fewer_countries_for_helplines(pack_copy: Path) -> None:
    edit(
        pack_copy / "es" / "crisis.yaml",
        lambda data: data.update(countries=[c for c in data["countries"] if c["code"] != "MX"]),
    )
    assert findings(pack_copy) == []
    pack = load_pack(pack_copy, "en")
    borrowed = pack.country_resources("es", "MX")
    assert borrowed is not None and borrowed == pack.country_resources("en", "MX")
