from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.commands import Command
from bot.content_pack.ids import ALL_MESSAGES, CheckinMsg
from bot.content_pack.loader import ContentError, check_pack, load_pack
from bot.content_pack.pack import ContentPack
from bot.content_pack.placeholders import placeholders_for

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"


@pytest.fixture
def pack_copy(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(REPO_CONTENT, target)
    return target


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), "utf-8")


def line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(needle)


def test_shipped_pack_is_valid_and_complete(content: ContentPack) -> None:
    assert check_pack(REPO_CONTENT, "en") == []
    affirmations = content.affirmations("en")
    assert len(affirmations) >= 90
    assert len({a.theme for a in affirmations}) >= 12
    exercises = content.exercises("en")
    assert len(exercises) >= 8 and {e.kind for e in exercises} == {"grounding", "breathing"}
    assert len(content.reflections("en")) >= 12
    assert len(content.openings("en")) >= 30
    countries = {c.code for c in content.crisis("en").countries}
    assert {"US", "GB", "CA", "AU", "IE", "DE", "IN", "NZ"} <= countries
    for message in ALL_MESSAGES:
        assert content.text("en", message, **dict.fromkeys(placeholders_for(message), "x"))
    assert set(content.command_descriptions("en")) == set(Command)


def test_wrong_value_is_reported_with_its_file_and_line(pack_copy: Path) -> None:
    file = pack_copy / "en" / "affirmations.yaml"
    replace_in(file, "theme: grief", "theme: sorrow")
    problems = check_pack(pack_copy, "en")
    assert len(problems) == 1
    assert problems[0].file == file
    assert problems[0].line == line_of(file, "theme: sorrow")
    assert "theme" in problems[0].message
    assert str(problems[0]).startswith(f"{file}:{problems[0].line}: ")


def test_yaml_syntax_error_is_reported_with_its_line(pack_copy: Path) -> None:
    file = pack_copy / "en" / "messages.yaml"
    replace_in(file, '  checkin.skip_note: "Skip"', '  checkin.skip_note: ["Skip"')
    problems = check_pack(pack_copy, "en")
    assert any(p.file == file and "invalid YAML" in p.message for p in problems)
    assert any(abs(p.line - line_of(file, "checkin.skip_note")) <= 1 for p in problems)


def test_missing_unknown_and_misplaced_messages_are_reported(pack_copy: Path) -> None:
    file = pack_copy / "en" / "messages.yaml"
    replace_in(file, "  general.unknown_command:", "  general.unknown_commnd:")
    replace_in(file, "Your check-in time is {time}", "Your check-in time is {when}")
    messages = [p.message for p in check_pack(pack_copy, "en")]
    assert any("unknown message id 'general.unknown_commnd'" in m for m in messages)
    assert any("'general.unknown_command' is missing" in m for m in messages)
    assert any("onboarding.done: placeholders must be time, timezone" in m for m in messages)


def test_duplicate_ids_and_overlong_labels_are_reported(pack_copy: Path) -> None:
    affirmations = pack_copy / "en" / "affirmations.yaml"
    replace_in(affirmations, "id: aff-closure-02", "id: aff-closure-01")
    messages = pack_copy / "en" / "messages.yaml"
    replace_in(messages, 'checkin.skip_note: "Skip"', f'checkin.skip_note: "{"S" * 41}"')
    problems = check_pack(pack_copy, "en")
    duplicate = [p for p in problems if "duplicate id 'aff-closure-01'" in p.message]
    assert duplicate and duplicate[0].line == line_of(affirmations, "id: aff-closure-01") + 5
    assert any("button label over 40" in p.message for p in problems)


def test_missing_file_and_missing_command_are_reported(pack_copy: Path) -> None:
    (pack_copy / "en" / "openings.yaml").unlink()
    replace_in(pack_copy / "en" / "commands.yaml", "  - name: about\n", "  - name: abuot\n")
    messages = [str(p) for p in check_pack(pack_copy, "en")]
    assert any("openings.yaml:1: file is missing" in m for m in messages)
    assert any("unknown command 'abuot'" in m for m in messages)
    assert any("command 'about' has no description" in m for m in messages)


def test_loading_a_broken_pack_raises_with_every_problem(pack_copy: Path) -> None:
    replace_in(pack_copy / "en" / "affirmations.yaml", "theme: grief", "theme: sorrow")
    replace_in(pack_copy / "en" / "openings.yaml", "time_of_day: morning", "time_of_day: noonish")
    with pytest.raises(ContentError) as raised:
        load_pack(pack_copy, "en")
    assert {p.file.name for p in raised.value.problems} == {"affirmations.yaml", "openings.yaml"}


def test_locale_resolution_falls_back_to_the_default(content: ContentPack) -> None:
    assert content.resolve_locale("en-GB") == "en"
    assert content.resolve_locale("xx") == "en"
    assert content.resolve_locale(None) == "en"


def test_a_rule_that_does_not_compile_is_reported(pack_copy: Path) -> None:
    file = pack_copy / "en" / "detection.yaml"
    text = file.read_text("utf-8")
    first_pattern = text.index("pattern: ")
    file.write_text(
        text[:first_pattern]
        + "pattern: '(unclosed'\n"
        + text[text.index("\n", first_pattern) + 1 :]
    )
    problems = check_pack(pack_copy, "en")
    assert any("pattern does not compile" in p.message for p in problems)


def test_a_missing_exercise_that_a_flow_names_is_reported(pack_copy: Path) -> None:
    replace_in(pack_copy / "en" / "exercises.yaml", "id: ground-five-senses", "id: ground-senses")
    problems = check_pack(pack_copy, "en")
    assert any("'ground-five-senses' is missing" in p.message for p in problems)


def test_a_message_over_the_smallest_platform_limit_is_reported(pack_copy: Path) -> None:
    replace_in(
        pack_copy / "en" / "messages.yaml",
        "general.unknown_command: |-",
        "general.unknown_command: >-\n    " + "x" * 2001 + "\n  general.dropped: |-",
    )
    problems = check_pack(pack_copy, "en")
    assert any("at most 2000 characters" in p.message for p in problems)


def test_a_value_yaml_cannot_build_is_reported_with_its_line(pack_copy: Path) -> None:
    file = pack_copy / "en" / "crisis.yaml"
    replace_in(file, "last_verified: 2026-11-29", "last_verified: 2025-02-30")
    problems = check_pack(pack_copy, "en")
    assert any(p.file == file and "cannot read this value" in p.message for p in problems)
    assert problems[0].line == line_of(file, "2025-02-30")


def test_a_topic_message_file_adds_its_messages_and_may_not_repeat_one(pack_copy: Path) -> None:
    main = pack_copy / "en" / "messages.yaml"
    replace_in(main, '  checkin.skip_note: "Skip"\n', "")
    topic = pack_copy / "en" / "messages_topic.yaml"
    topic.write_text(
        'locale: en\nmessages:\n  checkin.skip_note: "Skip it"\n'
        '  general.unknown_command: "Again"\n  checkin.bogus: "x"\n',
        "utf-8",
    )
    problems = check_pack(pack_copy, "en")
    assert {(p.file.name, p.line) for p in problems} == {
        ("messages_topic.yaml", 4),
        ("messages_topic.yaml", 5),
    }
    assert any("'general.unknown_command' is also in messages.yaml" in p.message for p in problems)
    assert any("unknown message id 'checkin.bogus'" in p.message for p in problems)
    topic.write_text('locale: en\nmessages:\n  checkin.skip_note: "Skip it"\n', "utf-8")
    pack = load_pack(pack_copy, "en")
    assert pack.text("en", CheckinMsg.SKIP_NOTE) == "Skip it"


async def test_a_broken_pack_stops_start_up_before_the_database_opens(
    pack_copy: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole pack is checked at every start, the other languages' rules and the
    second locale's files included: a rule that does not compile, or a file libyaml and
    the pure-Python parser both refuse, keeps the bot from answering anyone."""
    language = pack_copy / "detection" / "de.yaml"
    replace_in(language, "pattern: '\\b(?:lach", "pattern: '\\b((?:lach")  # one ( left open
    spanish = pack_copy / "es" / "messages.yaml"
    replace_in(spanish, "messages:\n", "messages:\n  broken: [\n")
    monkeypatch.setenv("STEADY_CONTENT_DIR", str(pack_copy))  # the rest as the fixture set it
    broken = Settings(_env_file=None)
    with pytest.raises(ContentError) as raised:
        async with open_services(broken):
            pass
    problems = raised.value.problems
    assert any(p.file == language and "pattern does not compile" in p.message for p in problems)
    assert any(p.file == spanish and "invalid YAML" in p.message for p in problems)
    assert not broken.database_file.exists()
