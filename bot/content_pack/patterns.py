"""Each detection pattern parsed and compiled once per process.

The pack's detection files hold hundreds of rules and idioms, some of them thousands of
characters long, and compiling them is most of what a start costs. The schema compiles
each one to refuse a pattern that does not compile (with its file and line), and the
safety screen needs each one compiled, and the strings its matches can begin with (its
index, bot/safety/starts.py): all of it is taken from here, from one parse of the
pattern, so the screen runs exactly the pattern the schema accepted. Python's own cache
of compiled patterns holds 512 and the pack has more, so it cannot be relied on for this.

Readings are kept by their text for as long as the process runs: a process reads one
pack (tests read a few), so this holds what the screen holds anyway. (A language's
context cues are compiled by the screen joined into other patterns, so the schema only
checks that each compiles, with `compiled`.)

A start can skip the parse and compile altogether: while a book of compiled forms is
open (bot/content_pack/pattern_book.py), a pattern found in it is built from its code
by `_sre.compile` (C, a fraction of a millisecond), and one not found is compiled from
its text and its form noted, for the book to keep. `compiled` serves the other patterns
a start compiles (the cues, and those the screen builds from the rules) the same way,
and keeps those it made while the book was open (a few hundred, most held by the screen).
The book keeps other things built from the patterns too (the screen's index, built from
every rule's beginnings), each under a key its builder makes of what it was built from:
`kept_entry` and `keep_entry`.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import re
from dataclasses import dataclass, field
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from bot.content_pack.pattern_form import CompiledForm, Starts, form_key, pattern_from
from bot.content_pack.pattern_starts import (
    anywhere_starts,
    required_strings,
    starts_after_no_latin_letter,
    word_starts,
    word_starts_in_turn,
)


@dataclass(frozen=True, slots=True)
class PatternReading:
    """A pattern compiled, with what its matches can begin with (pattern_starts.py)."""

    compiled: re.Pattern[str]
    # Tuples, not sets: the process keeps them, tens of thousands of strings in all.
    word_starts: tuple[str, ...] | None  # every match begins a word with one of these
    anywhere_starts: tuple[str, ...] | None  # else: one of these, anywhere (no spaces)
    # Else: one of these begins every match at a word start; a match is taken only
    # after the one before it ends, as a search takes them (pattern_starts.py).
    word_starts_in_turn: tuple[str, ...] | None
    # Else: one of these begins every match, never right after a Latin letter; taken in turn.
    latin_free_starts_in_turn: tuple[str, ...] | None
    required: tuple[str, ...] | None  # every match holds one of these (None: not known)


_READ: dict[str, PatternReading] = {}
_COMPILED: dict[tuple[str, int], re.Pattern[str]] = {}


@dataclass
class _OpenBook:
    """The forms of an open book, and those used or made while it is open."""

    forms: dict[str, CompiledForm]
    used: dict[str, CompiledForm]
    unusable: int = 0  # forms found but refused (damaged): the book is written again
    # What else the book keeps, by its builder's key (plain JSON data), and what of it
    # this start used or made.
    entries: dict[str, object] = field(default_factory=dict)
    entries_used: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ClosedBook:
    """What a start used or made while its book was open, for the book to keep."""

    forms: dict[str, CompiledForm]
    entries: dict[str, object]
    changed: bool  # something added, changed, gone or damaged: the book is written again


# The book open now, if any: at most one (a start opens it around its load).
_OPEN: list[_OpenBook] = []


def read(pattern: str) -> PatternReading:
    """The pattern compiled and its beginnings read, from one parse, on the first call for
    this text only; raises re.error when it does not compile (and keeps nothing)."""
    found = _READ.get(pattern)
    if found is None:
        found = _reading_from_book(pattern)
        if found is None:
            parsed = sre_parse.parse(pattern)
            # The beginnings first: they only read the tree, and compiling leaves it as is.
            starts = _starts_of(parsed)
            result, code = _compiled_from(pattern, parsed, 0)
            found = PatternReading(result, *starts)
            _note(pattern, 0, parsed, code, found)
        # Two threads may both read the same text: either result is the same reading.
        found = _READ.setdefault(pattern, found)
    elif _OPEN:
        _still_used(pattern, 0)
    return found


def _starts_of(parsed: Any) -> Starts:
    """What a pattern's matches begin with and hold, read from its parse tree: each kind
    of beginning only where the ones before it could not be read."""
    starts = word_starts(parsed)
    anywhere = anywhere_starts(parsed) if starts is None else None
    unlisted = starts is None and anywhere is None
    in_turn = word_starts_in_turn(parsed) if unlisted else None
    unlisted = unlisted and in_turn is None
    latin_free = starts_after_no_latin_letter(parsed) if unlisted else None
    required = required_strings(parsed)
    return (
        None if starts is None else tuple(starts),
        None if anywhere is None else tuple(anywhere),
        None if in_turn is None else tuple(in_turn),
        None if latin_free is None else tuple(latin_free),
        None if required is None else tuple(required),
    )


def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, taken from the open book when it holds it: for the
    patterns the screen builds from the pack's at a start (its index's finders, the
    languages' context cues), as long as the pack's longest and as slow to compile. Those
    compiled while a book is open are kept for the process; with none open, this is
    re.compile (a set of cues compiled at run time is kept by its own bounded cache)."""
    if not _OPEN:
        return re.compile(pattern, flags)
    key = (pattern, flags)
    found = _COMPILED.get(key)
    if found is None:
        found = _built_from_book(pattern, flags, _form_in_book(pattern, flags, False))
        if found is None:
            parsed = sre_parse.parse(pattern, flags)
            found, code = _compiled_from(pattern, parsed, flags)
            _note(pattern, flags, parsed, code, None)
        found = _COMPILED.setdefault(key, found)
    else:
        _still_used(pattern, flags)
    return found


def open_book(forms: dict[str, CompiledForm], entries: dict[str, object] | None = None) -> None:
    """Take patterns from these forms (by form_key), and the entries by their keys, until
    close_book."""
    _OPEN[:] = [_OpenBook(forms, {}, entries=dict(entries or {}))]


def close_book() -> ClosedBook | None:
    """The forms and entries used or made while the book was open, and whether they
    differ from the book's; None when no book was open."""
    if not _OPEN:
        return None
    book = _OPEN.pop()
    changed = (
        book.unusable > 0
        or book.used.keys() != book.forms.keys()
        or book.entries_used.keys() != book.entries.keys()
    )
    return ClosedBook(book.used, book.entries_used, changed)


def book_open() -> bool:
    return bool(_OPEN)


def kept_entry(key: str) -> object | None:
    """What the open book keeps under `key` (None: no book open, or nothing kept). The
    caller checks it is well formed, and `keep_entry`s what it builds when it is not."""
    if not _OPEN:
        return None
    found = _OPEN[0].entries.get(key)
    if found is not None:
        _OPEN[0].entries_used[key] = found
    return found


def keep_entry(key: str, value: object) -> None:
    """Keep `value` (plain JSON data) under `key` in the open book, in place of what it
    held there (which its caller found damaged: the book is written again)."""
    if not _OPEN:
        return
    book = _OPEN[0]
    if key in book.entries:
        book.unusable += 1
    book.entries_used[key] = value


def _form_in_book(pattern: str, flags: int, with_starts: bool) -> CompiledForm | None:
    if not _OPEN:
        return None
    form = _OPEN[0].forms.get(form_key(pattern, flags))
    if form is None or (with_starts and not form.read):
        return None
    return form


def _reading_from_book(pattern: str) -> PatternReading | None:
    form = _form_in_book(pattern, 0, True)
    built = _built_from_book(pattern, 0, form)
    if built is None or form is None:
        return None
    return PatternReading(built, *form.starts)


def _built_from_book(pattern: str, flags: int, form: CompiledForm | None) -> re.Pattern[str] | None:
    if form is None or not _OPEN:
        return None
    built = pattern_from(pattern, form)
    if built is None:
        _OPEN[0].unusable += 1
    else:
        _OPEN[0].used[form_key(pattern, flags)] = form
    return built


def _still_used(pattern: str, flags: int) -> None:
    """A pattern this process compiled before the book was opened stays in the book."""
    key = form_key(pattern, flags)
    form = _OPEN[0].forms.get(key)
    if form is not None:  # a form made anew while open (the book's was damaged) stays
        _OPEN[0].used.setdefault(key, form)


def _note(
    pattern: str, flags: int, parsed: Any, code: list[int] | None, reading: PatternReading | None
) -> None:
    """Keep the form of a pattern just compiled from its text, for the open book."""
    if not _OPEN or code is None:
        return
    form = CompiledForm.of(parsed, code, reading is not None)
    if reading is not None:
        form = form.with_starts(_reading_starts(reading))
    _OPEN[0].used[form_key(pattern, flags)] = form


def _compiled_from(
    pattern: str, parsed: Any, flags: int
) -> tuple[re.Pattern[str], list[int] | None]:
    """What `re.compile(pattern, flags)` returns, from its parse tree: the last steps of
    re's own compile (re/_compiler.py, `compile`), which parses a text first and takes a
    tree as it is. A Python whose re works otherwise compiles the text again instead; the
    tests hold the result equal to re.compile's, code and all, for every pattern of the
    pack. The code is returned with it, for the book (None when re compiled the text)."""
    try:
        code = sre_compile._code(parsed, flags)
        groups = parsed.state.groups
        names = parsed.state.groupdict
        by_number: list[str | None] = [None] * groups
        for name, number in names.items():
            by_number[number] = name
        result = _sre.compile(
            pattern, flags | parsed.state.flags, code, groups - 1, names, tuple(by_number)
        )
    except (AttributeError, TypeError):
        return re.compile(pattern, flags), None
    assert isinstance(result, re.Pattern)
    return result, code


def _reading_starts(reading: PatternReading) -> Starts:
    return (
        reading.word_starts,
        reading.anywhere_starts,
        reading.word_starts_in_turn,
        reading.latin_free_starts_in_turn,
        reading.required,
    )
