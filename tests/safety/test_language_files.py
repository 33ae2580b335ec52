"""Detection rules for other languages are data in content/detection/, checked like the rest
of the pack: each file is validated, each problem named with its file and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.content_pack.loader import check_pack, load_pack
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"
LANGUAGES = {"es", "de", "fr", "pt", "it", "nl", "pl", "ru", "tr", "hi"}
NEW_LANGUAGES = {"ar", "zh", "ja", "ko", "uk", "sv", "id", "tl", "ro", "el", "vi"}


@pytest.fixture
def pack_copy(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(REPO_CONTENT, target)
    return target


def test_every_language_has_a_file_and_none_is_a_locale() -> None:
    files = {path.stem for path in (REPO_CONTENT / "detection").glob("*.yaml")}
    assert files == LANGUAGES | NEW_LANGUAGES
    pack = load_pack(REPO_CONTENT, "en")
    assert "detection" not in pack.locales  # the detection folder is not a UI locale


def test_a_pattern_that_does_not_compile_is_reported_with_its_line(pack_copy: Path) -> None:
    path = pack_copy / "detection" / "fr.yaml"
    text = path.read_text("utf-8")
    path.write_text(text.replace("pattern: '\\bsuicid", "pattern: '(\\bsuicid", 1), "utf-8")
    problems = check_pack(pack_copy, "en")
    assert len(problems) == 1
    assert problems[0].file == path
    assert "does not compile" in problems[0].message
    assert "(\\bsuicid" in path.read_text("utf-8").splitlines()[problems[0].line - 1]


def test_a_file_naming_another_language_is_reported(pack_copy: Path) -> None:
    path = pack_copy / "detection" / "it.yaml"
    path.write_text(path.read_text("utf-8").replace("locale: it", "locale: es", 1), "utf-8")
    [problem] = check_pack(pack_copy, "en")
    assert problem.file == path and "locale 'es'" in problem.message


def test_a_rule_id_used_by_two_languages_is_reported(pack_copy: Path) -> None:
    path = pack_copy / "detection" / "pt.yaml"
    text = path.read_text("utf-8").replace("id: pt-crisis-suicidio", "id: es-crisis-suicidio", 1)
    path.write_text(text, "utf-8")
    [problem] = check_pack(pack_copy, "en")
    assert problem.file == path and "es-crisis-suicidio" in problem.message


def test_an_unknown_context_cue_is_reported(pack_copy: Path) -> None:
    path = pack_copy / "detection" / "nl.yaml"
    path.write_text(path.read_text("utf-8").replace("  negation:", "  negations:", 1), "utf-8")
    [problem] = check_pack(pack_copy, "en")
    assert problem.file == path and "negations" in problem.message


def test_a_new_language_file_is_screened_on_every_message(pack_copy: Path) -> None:
    (pack_copy / "detection" / "eo.yaml").write_text(
        "locale: eo\n"
        "rules:\n"
        "  - id: eo-crisis-morti\n"
        "    intent: crisis\n"
        "    pattern: '\\bmi volas morti\\b'\n"
        '    note: "mi volas morti"\n',
        "utf-8",
    )
    detector = SafetyScreen(load_pack(pack_copy, "en")).detector("en")
    assert detector.detect("Mi volas morti").reply is ReplyLevel.CRISIS
