"""Counts agree with their words: plural forms by CLDR rules, and an optional "=0"."""

from __future__ import annotations

from pathlib import Path

from bot.content_pack.ids import Msg, NoContactMsg, PauseMsg, SettingsMsg
from bot.content_pack.loader import check_pack, load_pack
from bot.content_pack.pack import ContentPack
from bot.content_pack.placeholders import COUNTS, placeholders_for
from tests.helpers.synthetic_pack import REPO_CONTENT, replace_in, write_pack


def test_a_count_reads_right_for_nothing_one_and_two(content: ContentPack) -> None:
    said = [content.text("en", NoContactMsg.NC_LONGEST, longest=n) for n in (0, 1, 2)]
    assert said[0] == "Your longest stretch will show here as it grows."
    assert said[1] == "Your longest stretch so far: 1 day."
    assert said[2] == "Your longest stretch so far: 2 days."
    assert content.text("en", SettingsMsg.KEEP_DAYS, days=1) == "1 day"
    assert content.text("en", SettingsMsg.KEEP_DAYS, days=0) == "0 days"  # no "=0" form: CLDR other


def test_every_count_of_the_shipped_pack_has_its_forms(content: ContentPack) -> None:
    for message, name in COUNTS.items():
        one, two = (content.text("en", message, **_values(message, name, n)) for n in (1, 2))
        assert one != two, message


def _values(message: Msg, name: str, n: int) -> dict[str, str | int]:

    values: dict[str, str | int] = dict.fromkeys(placeholders_for(message), "x")
    values[name] = n
    return values


def test_a_count_without_plural_forms_is_reported(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    replace_in(
        content / "en" / "messages.yaml",
        '''  settings.keep_days:
    one: "{days} day"
    other: "{days} days"''',
        '  settings.keep_days: "{days} days"',
    )
    problems = [p.message for p in check_pack(content, "en")]
    assert problems == ["settings.keep_days: holds a count ({days}), so it needs plural forms"]


def test_a_missing_form_and_a_form_the_locale_lacks_are_reported(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    replace_in(content / "en" / "messages.yaml", '    one: "{days} day"\n', '    few: "{days}"\n')
    problems = [p.message for p in check_pack(content, "en")]
    assert "settings.keep_days: plural forms missing: one" in problems
    assert "settings.keep_days: this locale has no plural form few" in problems


def test_platform_wording_is_used_on_its_platform_only(content: ContentPack) -> None:
    telegram = content.text_on("en", PauseMsg.WRITE_LET_GONE, "telegram")
    discord = content.text_on("en", PauseMsg.WRITE_LET_GONE, "discord")
    console = content.text_on("en", PauseMsg.WRITE_LET_GONE, "console")
    assert len({telegram, discord, console}) == 3
    assert console == content.text("en", PauseMsg.WRITE_LET_GONE)
    assert "Delete Message" in discord


def test_an_unknown_platform_is_reported(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    replace_in(
        content / "en" / "messages.yaml",
        "  pause.write_let_gone@discord:",
        "  pause.write_let_gone@signal:",
    )
    problems = [p.message for p in check_pack(content, "en")]
    assert problems == [
        "pause.write_let_gone@signal: the platform must be one of console, discord, telegram"
    ]


def test_the_shipped_pack_loads() -> None:
    assert load_pack(REPO_CONTENT, "en").default_locale == "en"
