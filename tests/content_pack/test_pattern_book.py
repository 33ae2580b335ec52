"""The book of compiled detection patterns: a start builds from it exactly what compiling
each pattern's text makes, and a book that is missing, stale, damaged or from another
interpreter is never used for what it does not fit: the patterns are compiled from their
text, the start goes on, the screen matches the same, and the log says why once, without
a pattern's text."""

from __future__ import annotations

import json
import logging
import re
import shutil
import stat
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from typing import Any

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack import patterns
from bot.content_pack.loader import load_detection
from bot.content_pack.pattern_book import (
    BOOK_FILE,
    BookRefused,
    pattern_book,
    read_book,
    write_book,
)
from bot.content_pack.pattern_form import form_key, pattern_from
from bot.content_pack.pattern_starts import anywhere_strings, starting_strings
from bot.safety.corpus import read_corpus
from bot.safety.rules import Detector
from bot.safety.screen import SafetyScreen, detectors_for
from tests.helpers.processes import steady

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a process just started: nothing compiled yet (the tests' pack aside)."""
    monkeypatch.setattr(patterns, "_READ", {})
    monkeypatch.setattr(patterns, "_COMPILED", {})


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts compiled by re's Python compiler through the book's way in."""
    seen: list[str] = []
    original = patterns._compiled_from

    def counted(pattern: str, *args: Any) -> Any:
        seen.append(pattern)
        return original(pattern, *args)

    monkeypatch.setattr(patterns, "_compiled_from", counted)
    return seen


@pytest.fixture(scope="module")
def sample_texts() -> list[str]:
    """Messages people write, in every language of the corpus: one in four."""
    corpus, _ = read_corpus(REPO_CONTENT)
    texts = [example.text for example in corpus.examples[::4]]
    assert len(texts) > 1000
    return texts


def _start(content_dir: Path, data_dir: Path) -> dict[str, Detector]:
    """What a start does with the patterns: the pack's rules loaded, the screen built."""
    with pattern_book(data_dir) as use:
        locales, languages = load_detection(content_dir)
        detectors = detectors_for(locales, languages)
    use.keep()
    return detectors


def _screened(detectors: dict[str, Detector], texts: list[str]) -> list[object]:
    detector = detectors["en"]
    found: list[object] = []
    for text in texts:
        detection = detector.detect(text)
        found.append(([(m.intent, m.rule_id) for m in detection.matches], detection.reply))
    return found


def _spans(pattern: re.Pattern[str], texts: list[str]) -> list[list[tuple[int, int]]]:
    return [[match.span() for match in pattern.finditer(text)] for text in texts]


def _book_lines(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    heading, _, body = path.read_bytes().partition(b"\n")
    return json.loads(heading), json.loads(body)


@pytest.mark.usefixtures("fresh_process")
def test_a_restart_builds_every_pattern_from_the_book_and_screens_the_same(
    tmp_path: Path, compiles: list[str], sample_texts: list[str]
) -> None:
    first = _start(REPO_CONTENT, tmp_path)
    compiled_at_first = len(compiles)
    assert compiled_at_first > 600  # every rule, idiom and finder, from its text
    assert (tmp_path / BOOK_FILE).is_file()
    written = (tmp_path / BOOK_FILE).stat().st_mtime_ns

    patterns._READ.clear()
    patterns._COMPILED.clear()
    again = _start(REPO_CONTENT, tmp_path)

    assert len(compiles) == compiled_at_first  # nothing compiled from its text
    assert (tmp_path / BOOK_FILE).stat().st_mtime_ns == written  # nor written again
    assert _screened(again, sample_texts) == _screened(first, sample_texts)


@pytest.mark.usefixtures("fresh_process")
def test_every_form_in_the_book_is_what_re_compile_makes_of_its_text(
    tmp_path: Path, sample_texts: list[str]
) -> None:
    """Pattern, flags, groups, names, code (equal patterns share their code), the
    beginnings the index reads, and the matches on people's messages."""
    _start(REPO_CONTENT, tmp_path)
    forms = read_book(tmp_path / BOOK_FILE)
    texts = sample_texts[::3]
    by_key = {form_key(text, 0): (text, 0) for text in patterns._READ}
    by_key |= {form_key(text, flags): (text, flags) for text, flags in patterns._COMPILED}
    assert set(forms) <= set(by_key)
    assert len(forms) > 600
    for key, form in forms.items():
        text, flags = by_key[key]
        built = pattern_from(text, form)
        fresh = sre_compile.compile(text, flags)  # past re's own cache
        assert built is not None
        assert built == fresh, text[:60]
        assert (built.pattern, built.flags, built.groups, built.groupindex) == (
            fresh.pattern,
            fresh.flags,
            fresh.groups,
            fresh.groupindex,
        )
        assert _spans(built, texts) == _spans(fresh, texts), text[:60]
        if form.read:
            words = starting_strings(text)
            assert _as_set(form.word_starts) == _as_set(words)
            if words is None:
                assert _as_set(form.anywhere_starts) == _as_set(anywhere_strings(text))


def _as_set(starts: Any) -> set[str] | None:
    return None if starts is None else set(starts)


@pytest.mark.usefixtures("fresh_process")
def test_a_changed_rule_is_compiled_from_its_new_text_and_the_book_written_again(
    tmp_path: Path, compiles: list[str]
) -> None:
    content = tmp_path / "content"
    shutil.copytree(REPO_CONTENT, content)
    data = tmp_path / "data"
    data.mkdir()
    _start(content, data)
    french = content / "detection" / "fr.yaml"
    text = french.read_text("utf-8")
    lines = text.splitlines()
    rules = lines.index("rules:")
    at = next(n for n in range(rules, len(lines)) if lines[n].strip().startswith("pattern: '\\b"))
    old = lines[at]
    rule_id = next(
        line.split("id: ", 1)[1] for line in reversed(lines[:at]) if "- id: " in line
    ).strip()
    new_pattern = r"\bje vais tout arr[eê]ter ce soir\b"
    french.write_text(text.replace(old, f"    pattern: '{new_pattern}'", 1), "utf-8")
    old_pattern = old.split("pattern: ", 1)[1].strip("'")
    patterns._READ.clear()
    patterns._COMPILED.clear()
    compiles.clear()

    detectors = _start(content, data)

    assert new_pattern in compiles
    assert len(compiles) <= 3  # the rule, and the finders its beginnings are listed in
    detection = detectors["en"].detect("je vais tout arreter ce soir")
    assert rule_id in [match.rule_id for match in detection.matches]
    forms = read_book(data / BOOK_FILE)
    assert form_key(new_pattern, 0) in forms
    assert form_key(old_pattern.replace("''", "'"), 0) not in forms


def _damage(path: Path, change: Callable[[dict[str, Any], dict[str, Any]], None]) -> None:
    heading, body = _book_lines(path)
    change(heading, body)
    path.write_text(json.dumps(heading) + "\n" + json.dumps(body), "utf-8")


def _flip_a_code_letter(heading: dict[str, Any], body: dict[str, Any]) -> None:
    form = body["forms"][sorted(body["forms"])[0]]
    form["code"] = ("B" if form["code"][0] == "A" else "A") + form["code"][1:]


def _from_another_python(heading: dict[str, Any], body: dict[str, Any]) -> None:
    heading["interpreter"]["version"][1] += 1


def _from_other_readers(heading: dict[str, Any], body: dict[str, Any]) -> None:
    """Written when the code that reads beginnings was another (before a mend of it)."""
    heading["interpreter"]["readers"] = "0" * 64


def _truncated(heading: dict[str, Any], body: dict[str, Any]) -> None:
    body.clear()
    heading["sha256"] = "0" * 64


@pytest.mark.usefixtures("fresh_process")
@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (_flip_a_code_letter, "damaged"),
        (_from_another_python, "other_interpreter"),
        (_from_other_readers, "other_interpreter"),
        (_truncated, "damaged"),
    ],
)
def test_a_book_that_does_not_fit_is_not_used_and_the_start_goes_on(
    tmp_path: Path,
    compiles: list[str],
    sample_texts: list[str],
    caplog: pytest.LogCaptureFixture,
    change: Callable[[dict[str, Any], dict[str, Any]], None],
    reason: str,
) -> None:
    first = _start(REPO_CONTENT, tmp_path)
    _damage(tmp_path / BOOK_FILE, change)
    with pytest.raises(BookRefused) as refused:
        read_book(tmp_path / BOOK_FILE)
    assert refused.value.reason == reason
    patterns._READ.clear()
    patterns._COMPILED.clear()
    compiles.clear()
    caplog.set_level(logging.INFO, logger="steady.content")

    again = _start(REPO_CONTENT, tmp_path)

    assert len(compiles) > 600  # every pattern from its text, as without a book
    assert _screened(again, sample_texts[::5]) == _screened(first, sample_texts[::5])
    unused = [r for r in caplog.records if r.getMessage() == "content.pattern_book_unused"]
    assert [getattr(r, "steady_fields", {}) for r in unused] == [{"reason": reason}]
    assert read_book(tmp_path / BOOK_FILE)  # written again, whole, and usable
    for record in caplog.records:  # ids and reasons only: no pattern's text
        assert "\\b" not in record.getMessage() + str(getattr(record, "steady_fields", ""))


@pytest.mark.usefixtures("fresh_process")
def test_code_the_engine_refuses_is_compiled_from_the_text_instead(
    tmp_path: Path, compiles: list[str], sample_texts: list[str]
) -> None:
    """A book whose checksum holds yet whose code for one pattern is not well formed (a
    book from a broken writer): that pattern is compiled from its text, the rest built."""
    first = _start(REPO_CONTENT, tmp_path)
    forms = read_book(tmp_path / BOOK_FILE)
    text = next(iter(patterns._READ))
    key = form_key(text, 0)
    write_book(tmp_path / BOOK_FILE, forms | {key: replace(forms[key], code=b"\x07\0\0\0")})
    patterns._READ.clear()
    patterns._COMPILED.clear()
    compiles.clear()

    again = _start(REPO_CONTENT, tmp_path)

    assert compiles == [text]
    assert patterns.read(text).compiled == sre_compile.compile(text)
    assert _screened(again, sample_texts[::5]) == _screened(first, sample_texts[::5])
    assert read_book(tmp_path / BOOK_FILE)[key].code == forms[key].code  # mended


@pytest.mark.usefixtures("fresh_process")
def test_no_book_is_written_where_there_is_no_folder(tmp_path: Path) -> None:
    _start(REPO_CONTENT, tmp_path / "absent")
    assert not (tmp_path / "absent").exists()


def test_a_missing_book_is_refused_as_missing(tmp_path: Path) -> None:
    with pytest.raises(BookRefused) as refused:
        read_book(tmp_path / BOOK_FILE)
    assert refused.value.reason == "missing"


@pytest.mark.usefixtures("fresh_process")
async def test_a_start_writes_the_book_in_its_data_folder_and_a_restart_reads_it(
    settings: Settings, compiles: list[str]
) -> None:
    async with open_services(settings) as services:
        assert (settings.data_dir / BOOK_FILE).is_file()
        assert stat.S_IMODE((settings.data_dir / BOOK_FILE).stat().st_mode) == 0o600
        first = services.content
    patterns._READ.clear()
    patterns._COMPILED.clear()
    compiles.clear()

    async with open_services(settings) as services:
        assert compiles == []
        screen = SafetyScreen(services.content)
        assert screen.detector("en").detect("i want to die tonight").needs_safety_reply
    assert services.content is not first


def test_steady_detect_reads_and_writes_the_book_only_in_a_data_folder_that_exists(
    tmp_path: Path,
) -> None:
    absent = steady(["detect", "--json", "i cant do this anymore"], tmp_path / "data")
    assert absent.returncode == 0
    assert not (tmp_path / "data").exists()  # an operator's check leaves no data behind
    (tmp_path / "data").mkdir()
    first = steady(["detect", "--json", "i cant do this anymore"], tmp_path / "data")
    assert "event=content.pattern_book_written" in first.stderr
    again = steady(["detect", "--json", "i cant do this anymore"], tmp_path / "data")
    assert "pattern_book" not in again.stderr  # read, used whole, not written again
    assert absent.stdout == first.stdout == again.stdout
    assert json.loads(again.stdout)["reply"] == "crisis"
