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
checks that each compiles, and keeps nothing.)
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import re
from dataclasses import dataclass
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

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


def read(pattern: str) -> PatternReading:
    """The pattern compiled and its beginnings read, from one parse, on the first call for
    this text only; raises re.error when it does not compile (and keeps nothing)."""
    found = _READ.get(pattern)
    if found is None:
        parsed = sre_parse.parse(pattern)
        # The beginnings first: they only read the tree, and compiling leaves it as it is.
        starts = word_starts(parsed)
        anywhere = anywhere_starts(parsed) if starts is None else None
        unlisted = starts is None and anywhere is None
        in_turn = word_starts_in_turn(parsed) if unlisted else None
        unlisted = unlisted and in_turn is None
        latin_free = starts_after_no_latin_letter(parsed) if unlisted else None
        required = required_strings(parsed)
        found = PatternReading(
            _compiled_from(pattern, parsed),
            None if starts is None else tuple(starts),
            None if anywhere is None else tuple(anywhere),
            None if in_turn is None else tuple(in_turn),
            None if latin_free is None else tuple(latin_free),
            None if required is None else tuple(required),
        )
        # Two threads may both read the same text: either result is the same reading.
        found = _READ.setdefault(pattern, found)
    return found


def _compiled_from(pattern: str, parsed: Any) -> re.Pattern[str]:
    """What `re.compile(pattern)` returns, from its parse tree: the last steps of re's own
    compile (re/_compiler.py, `compile`), which parses a text first and takes a tree as it
    is. A Python whose re works otherwise compiles the text again instead; the tests hold
    the result equal to re.compile's, code and all, for every pattern of the pack."""
    try:
        code = sre_compile._code(parsed, 0)
        groups = parsed.state.groups
        names = parsed.state.groupdict
        by_number: list[str | None] = [None] * groups
        for name, number in names.items():
            by_number[number] = name
        flags = parsed.state.flags
        result = _sre.compile(pattern, flags, code, groups - 1, names, tuple(by_number))
    except (AttributeError, TypeError):
        return re.compile(pattern)
    assert isinstance(result, re.Pattern)
    return result
