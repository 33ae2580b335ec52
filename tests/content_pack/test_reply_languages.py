"""Reply languages: the crisis reply in every language the screen reads, loaded and checked
as a locale is, and required by `steady content check`."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.content_pack.audit import audit_pack
from bot.content_pack.ids import SafetyMsg
from bot.content_pack.loader import ContentError, load_pack
from bot.content_pack.pack import ContentPack
from bot.content_pack.reply_check import (
    ADDED_SCREEN_LANGUAGES,
    check_crisis_replies,
    screened_languages,
)
from bot.content_pack.reply_languages import REPLY_MESSAGES
from bot.safety.screen import SafetyScreen
from tests.helpers.synthetic_pack import REPO_CONTENT, replace_in, write_pack

# The languages the issue names, beside English and Spanish.
NAMED = ("de", "fr", "pt", "it", "nl", "pl", "ru", "tr", "hi")


def failures(content: Path) -> list[str]:
    return [str(found) for found in audit_pack(load_pack(content, "en"), content).failures]


def test_every_screened_language_has_a_complete_reply(content: ContentPack) -> None:
    detected = {path.stem for path in (REPO_CONTENT / "detection").glob("*.yaml")}
    screened = set(screened_languages(content))
    assert screened >= {*detected, *content.locales, *ADDED_SCREEN_LANGUAGES, *NAMED}
    assert check_crisis_replies(content) == []
    for language in screened - set(content.locales):
        own = content.reply_languages[language]
        assert own.complete, language
        assert {m.value for m in REPLY_MESSAGES} <= set(own.messages), language


@pytest.mark.parametrize("language", ["fr", "vi"])
def test_a_screened_language_without_a_reply_fails_the_check(tmp_path: Path, language: str) -> None:
    content = write_pack(tmp_path)
    (content / "replies" / f"{language}.yaml").unlink()
    assert f"replies/{language}: no crisis reply: replies/{language}.yaml is missing" in (
        failures(content)
    )


def test_an_incomplete_reply_fails_the_check_and_is_never_used(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    replace_in(content / "replies" / "it.yaml", "  plan.button:", "  # plan.button:")
    found = failures(content)
    assert "replies/it: the crisis reply lacks plan.button" in found
    pack = load_pack(content, "en")
    assert not pack.reply_languages["it"].complete
    # Half Italian and half English helps nobody: the user's own locale answers.
    reply = SafetyScreen(pack).full_reply("en", "IT", danger_first=False, language="it")
    assert reply.text.startswith(pack.text("en", SafetyMsg.SAFETY_CRISIS_INTRO))


def test_a_name_for_a_helpline_the_data_does_not_list_fails_the_check(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    replace_in(
        content / "replies" / "ko.yaml", "  kr-1366:", '  kr-1367: "여성긴급전화"\n  kr-1366:'
    )
    assert "replies/ko.yaml: helplines: kr-1367 is not a helpline's id" in failures(content)


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("  plan.button:", "  onboarding.welcome: Hallo\n  plan.button:", "not a message of"),
        ("({country}).", "({land}).", "placeholders must be"),
        # Without its own short name, CLDR's is too long for a button.
        ('  - {code: GS, name: "Südgeorgien und Südl. Sandwichinseln"}\n', "", "for a button"),
        ("likely_countries: [DE,", "likely_countries: [XX, DE,", "not an ISO 3166-1"),
    ],
)
def test_a_broken_reply_file_is_a_load_error_with_its_line(
    tmp_path: Path, old: str, new: str, problem: str
) -> None:
    content = write_pack(tmp_path)
    replace_in(content / "replies" / "de.yaml", old, new)
    with pytest.raises(ContentError) as raised:
        load_pack(content, "en")
    found = [str(p) for p in raised.value.problems]
    assert any("replies/de.yaml:" in line and problem in line for line in found), found
