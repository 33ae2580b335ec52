"""Each detection pattern is parsed and compiled once per process: the pack's check
refuses what does not compile, with its file and line, and the screen runs exactly what
the check compiled, read as re itself reads it."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

import pytest

from bot.content_pack.loader import check_pack
from bot.content_pack.pack import ContentPack
from bot.content_pack.pattern_starts import anywhere_strings, starting_strings
from bot.content_pack.patterns import read
from bot.content_pack.schema import DetectionFile
from bot.safety.screen import detectors_for

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"
# Parses, but re's compiler refuses it: a look-behind must have a fixed width.
REFUSED_BY_THE_COMPILER = r"\b(?<=a+)moi"


@pytest.fixture
def pack_copy(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(REPO_CONTENT, target)
    return target


def _files(content: ContentPack) -> list[DetectionFile]:
    return [pack.detection for pack in content.locales.values()] + list(content.languages)


def _rule_patterns(content: ContentPack) -> Iterator[str]:
    for file in _files(content):
        yield from (item.pattern for item in file.exceptions)
        yield from (rule.pattern for rule in file.rules)


def _line_of(path: Path, marker: str) -> int:
    return next(
        number
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if marker in line
    )


def _set_pattern(path: Path, rule_id: str, pattern: str) -> int:
    """Give the item `rule_id` of a detection file `pattern`; the line it is on."""
    lines = path.read_text("utf-8").splitlines(keepends=True)
    start = next(n for n, line in enumerate(lines) if line.strip() == f"- id: {rule_id}")
    at = next(n for n in range(start, len(lines)) if lines[n].strip().startswith("pattern:"))
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    lines[at] = f"{indent}pattern: '{pattern}'\n"
    path.write_text("".join(lines), "utf-8")
    return at + 1


def test_a_pattern_the_compiler_refuses_is_reported_with_its_file_and_line(
    pack_copy: Path,
) -> None:
    """Parsing alone would accept these; the pack still refuses them, where they are: a
    rule, an idiom and a context cue, in a language's file and in a locale's."""
    french = pack_copy / "detection" / "fr.yaml"
    rule_line = _set_pattern(french, "fr-crisis-mention", REFUSED_BY_THE_COMPILER)
    idiom_line = _set_pattern(french, "fr-idiom-boss-va-me-tuer", REFUSED_BY_THE_COMPILER)
    english = pack_copy / "en" / "detection.yaml"
    text = english.read_text("utf-8")
    first_rule = text.index("  - id: ", text.index("\nrules:"))
    rule_id = text[first_rule + len("  - id: ") : text.index("\n", first_rule)]
    english_line = _set_pattern(english, rule_id, REFUSED_BY_THE_COMPILER)
    cue_line = _line_of(french, "  topic: ")
    french.write_text(
        french.read_text("utf-8").replace(
            "  topic: 'prevention|statistiques?|taux'", "  topic: '(?<=x*)prevention'"
        ),
        "utf-8",
    )

    problems = check_pack(pack_copy, "en")

    refused = {
        (problem.file, problem.line)
        for problem in problems
        if "pattern does not compile" in problem.message
        and "look-behind requires fixed-width pattern" in problem.message
    }
    assert refused == {
        (french, rule_line),
        (french, idiom_line),
        (french, cue_line),
        (english, english_line),
    }


def test_every_detection_pattern_is_compiled_and_read_as_re_itself_would(
    content: ContentPack,
) -> None:
    """The one compile the pack's check makes is the pattern re.compile makes (equal
    patterns share their compiled code), and its beginnings are those read from the text
    anew: the screen is built from the same as before, only once."""
    patterns = list(dict.fromkeys(_rule_patterns(content)))
    assert len(patterns) > 300
    for pattern in patterns:
        reading = read(pattern)
        fresh = sre_compile.compile(pattern)  # past re's own cache: a compile of its own
        assert reading.compiled == fresh, pattern[:60]
        assert reading.compiled.pattern == pattern
        assert reading.compiled.flags == fresh.flags
        assert reading.compiled.groups == fresh.groups
        assert reading.compiled.groupindex == fresh.groupindex
        words = starting_strings(pattern)
        assert (None if words is None else set(words)) == (
            None if reading.word_starts is None else set(reading.word_starts)
        )
        if words is None:
            anywhere = anywhere_strings(pattern)
            assert (None if anywhere is None else set(anywhere)) == (
                None if reading.anywhere_starts is None else set(reading.anywhere_starts)
            )


def test_building_the_screen_compiles_and_parses_no_rule_again(
    content: ContentPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The detectors take every rule and idiom from the pack's check: building them does
    not parse or compile one of those patterns a second time."""
    wanted = set(_rule_patterns(content))
    seen: list[str] = []

    def watching(original: Callable[..., Any]) -> Callable[..., Any]:
        def watched(pattern: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(pattern, str) and pattern in wanted:
                seen.append(pattern)
            return original(pattern, *args, **kwargs)

        return watched

    monkeypatch.setattr(sre_parse, "parse", watching(sre_parse.parse))
    monkeypatch.setattr(sre_compile, "compile", watching(sre_compile.compile))
    locales = {locale: pack.detection for locale, pack in content.locales.items()}

    detectors = detectors_for(locales, content.languages)

    assert seen == []
    rules = detectors["en"].rules
    assert len(rules) == sum(len(file.rules) for file in _files(content))
    assert all(rule.pattern is read(rule.pattern.pattern).compiled for rule in rules)


def test_the_same_text_is_one_compiled_pattern_however_often_it_is_read() -> None:
    first = read(r"\bsome (?:words|text)\b")
    again = read(r"\bsome (?:words|text)\b")
    assert again is first
    assert first.word_starts is not None and set(first.word_starts) == {"some wo", "some te"}
    assert first.compiled.search("just some text here") is not None


def test_a_pattern_that_does_not_compile_is_not_kept() -> None:
    with pytest.raises(re.error):
        read(r"\b(unclosed")
    with pytest.raises(re.error):
        read(r"\b(unclosed")  # refused again, not taken from a cache
