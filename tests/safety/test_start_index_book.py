"""The screen's index kept in the book of compiled patterns: a restart reads the index a
first start built, and it finds exactly what that one did; an index kept for other rules,
or by other index code, or damaged, is never used: it is built anew, and kept instead."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.content_pack.pack import ContentPack
from bot.content_pack.pattern_book import BOOK_FILE, pattern_book, read_whole_book, write_book
from bot.content_pack.pattern_starts import PREFIX_LENGTH
from bot.safety import starts, starts_book
from bot.safety.normalise import normalise
from bot.safety.screen import SafetyScreen
from bot.safety.starts import StartIndex
from tests.helpers.phrase_files import phrases_of

# A rule at word starts, one in a script without spaces, one that never follows a Latin
# letter, one searched in full: each kind of listing has something in it.
RULES = (
    r"\bkill(?:s|ed)? me\b",
    r"\bi (?:really )?want to die\b",
    r"(?:死にたい|消えたい)",
    r"(?<![a-z])(?:wo ?xiang|ta ?yao) ?(?:si|sha)",
    r"\b\w+ myself",
)
TEXT = "i really want to die. wo xiang si, 死にたい, he kills me, hurt myself"


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of rules of every listing built (not read from a book)."""
    built: list[int] = []
    original = starts._by_start

    def counted(listed: dict[str, list[int]]) -> dict[str, tuple[int, ...]]:
        built.append(len(listed))
        return original(listed)

    monkeypatch.setattr(starts, "_by_start", counted)
    return built


def _start(data_dir: Path, rules: tuple[str, ...] = RULES) -> StartIndex:
    with pattern_book(data_dir) as use:
        index = StartIndex.of([re.compile(rule) for rule in rules])
    use.keep()
    return index


def _listings(index: StartIndex) -> tuple[object, ...]:
    return (
        index.at_words.by_start,
        index.anywhere.by_start,
        index.anywhere.finder.pattern,
        index.after_no_latin.by_start,
        index.after_no_latin.finder.pattern,
        index.searched,
        index.in_turn,
    )


def _found(index: StartIndex, text: str) -> dict[int, list[tuple[int, int]]]:
    return {n: [hit.span() for hit in hits] for n, hits in index.matches(text).items()}


def _entries(data_dir: Path) -> dict[str, Any]:
    return read_whole_book(data_dir / BOOK_FILE).entries


def test_a_restart_reads_the_pack_s_index_from_the_book_and_finds_the_same(
    tmp_path: Path, content: ContentPack, builds: list[int]
) -> None:
    detector = SafetyScreen(content).detector("en")
    rules = tuple(rule.pattern.pattern for rule in detector.rules)
    first = _start(tmp_path, rules)
    assert builds  # the first start built it
    builds.clear()

    again = _start(tmp_path, rules)

    assert builds == []
    assert _listings(again) == _listings(first)
    texts = [normalise(text) for text in phrases_of("phrases", "fresh_multilingual")]
    texts.append(" ".join(texts))
    for text in texts:
        assert _found(again, text) == _found(first, text)


def test_an_index_kept_for_other_rules_is_not_used_and_the_book_keeps_the_new_one(
    tmp_path: Path, builds: list[int]
) -> None:
    _start(tmp_path)
    before = set(_entries(tmp_path))
    changed = (*RULES[:-1], r"\bhurt(?:ing)? myself\b")
    builds.clear()

    index = _start(tmp_path, changed)

    assert builds  # built anew
    assert _found(index, TEXT) == _found(StartIndex.of([re.compile(r) for r in changed]), TEXT)
    after = set(_entries(tmp_path))
    assert len(after) == 1 and after != before  # the old rules' index is let go


def test_an_index_kept_by_other_index_code_is_not_used(
    tmp_path: Path, builds: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A changed starts.py or starts_book.py reads beginnings otherwise: its index is its own."""
    first = _start(tmp_path)
    before = set(_entries(tmp_path))
    monkeypatch.setattr(starts_book, "_code_hash", lambda: "0" * 64)
    builds.clear()

    again = _start(tmp_path)

    assert builds
    assert _found(again, TEXT) == _found(first, TEXT)
    assert set(_entries(tmp_path)).isdisjoint(before)


@pytest.mark.parametrize("changed", starts_book._INDEX_CODE)
def test_the_kept_index_s_key_changes_with_any_file_of_the_index_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: str
) -> None:
    code = tmp_path / "code"
    code.mkdir()
    for name in starts_book._INDEX_CODE:
        (code / name).write_bytes((starts_book._HERE / name).read_bytes())
    monkeypatch.setattr(starts_book, "_HERE", code)
    # A cache of its own, so the process's own key is left as it was.
    own_cache = functools.cache(starts_book._code_hash.__wrapped__)
    monkeypatch.setattr(starts_book, "_code_hash", own_cache)
    rules = [re.compile(rule) for rule in RULES]
    with pattern_book(tmp_path):
        before = starts_book.index_key(rules)
        with (code / changed).open("a", encoding="utf-8") as file:
            file.write("# mended\n")
        starts_book._code_hash.cache_clear()
        after = starts_book.index_key(rules)
    assert before is not None and after is not None and before != after


def _number_past_the_rules(entry: dict[str, Any]) -> None:
    by_start = entry["at_words"]["by_start"]
    by_start[next(iter(by_start))].append(len(RULES))


def _a_text_for_a_number(entry: dict[str, Any]) -> None:
    by_start = entry["anywhere"]["by_start"]
    by_start[next(iter(by_start))] = ["0"]


def _a_beginning_too_long(entry: dict[str, Any]) -> None:
    """Longer than the first characters of a word the screen looks up."""
    entry["at_words"]["by_start"]["x" * (PREFIX_LENGTH + 1)] = [0]


def _numbers_not_listed(entry: dict[str, Any]) -> None:
    by_start = entry["at_words"]["by_start"]
    by_start[next(iter(by_start))] = "0"


def _no_finder(entry: dict[str, Any]) -> None:
    del entry["anywhere"]["finder"]


def _not_an_index(entry: dict[str, Any]) -> None:
    entry.clear()


@pytest.mark.parametrize(
    "damage",
    [
        _number_past_the_rules,
        _a_text_for_a_number,
        _a_beginning_too_long,
        _numbers_not_listed,
        _no_finder,
        _not_an_index,
    ],
)
def test_a_damaged_index_in_the_book_is_built_anew_and_mended(
    tmp_path: Path, builds: list[int], damage: Callable[[dict[str, Any]], None]
) -> None:
    """A book whose checksum holds yet whose index is not well formed (a broken writer)."""
    first = _start(tmp_path)
    book = read_whole_book(tmp_path / BOOK_FILE)
    (key,) = book.entries
    kept = book.entries[key]
    damaged: Any = {name: dict(part) for name, part in kept.items()}  # type: ignore[union-attr]
    for part in damaged.values():
        part["by_start"] = {text: list(numbers) for text, numbers in part["by_start"].items()}
    damage(damaged)
    write_book(tmp_path / BOOK_FILE, book.forms, {key: damaged})
    builds.clear()

    again = _start(tmp_path)

    assert builds
    assert _listings(again) == _listings(first)
    assert _found(again, TEXT) == _found(first, TEXT)
    assert _entries(tmp_path) == {key: kept}  # written again, as built
