"""How a match can begin: an index that tries each rule only where it could match.

Every rule is a regular expression, and searching a text with one costs time at every
position, whether or not the rule could start there; with over a hundred rules in eleven
languages that cost grows into tens of milliseconds for a long message. But each rule
begins at the start of a word, and with one of a small set of spellings ("kill", "want",
"suic", ...). Those spellings are read from each pattern once, at load. A text is then
walked word by word; at each word only the rules that can begin with it are tried, with
`pattern.match` at that word. The matches are exactly those a search would find at word
starts; a rule whose beginning cannot be read that way is simply searched in full.

Chinese and Japanese are written without spaces (and Korean in chat often is), so a word
there can begin anywhere in a run of letters and `\b` finds no start inside it. A rule
in those scripts opens with no word-start assertion; when each of its beginnings holds a
letter of such a script, it is listed apart and tried at every place in the text where one
of its beginnings is found, word start or not. That pass only runs on a text holding such
a letter, so the rest pay nothing for it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

# How many characters of each match's beginning are indexed. Seven tell most openings
# apart ("want to" from "was", "kill m" from "kill t"), so few rules are tried at each
# word; a rule with too many beginnings to list is searched in full instead.
PREFIX_LENGTH = 7
# In scripts without spaces a character says more than a Latin letter, and rules there
# have many more beginnings (every ideograph of an alternation): three characters tell
# them apart, and keep the list, and the finder built from it, small.
ANYWHERE_PREFIX_LENGTH = 3
MAX_STARTS = 4000
# A rule in another script with more beginnings than this is listed by shorter ones: a
# letter of Arabic or Greek narrows a word down faster than a Latin one, and Arabic's
# joined "and" (و, ف) doubles every beginning. Its finder, built at every start, stays
# small; Latin-letter rules keep their seven letters, on which English screening relies.
MANY_STARTS = 500
SHORT_PREFIX_LENGTH = 4
_MAX_CLASS = 8  # a character class is spelled out letter by letter only when this small
_WORD_START = re.compile(r"(?<!\w)\w")
# Letters of the scripts written without spaces between words: CJK ideographs (with their
# extensions and compatibility forms), hiragana, katakana and Hangul.
_UNSPACED = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af\U00020000-\U0003134f"
)
_UNSPACED_LETTER = re.compile(f"[{_UNSPACED}]")

# Each start is (text, complete): complete when the piece's whole match is `text`, so
# what follows comes from the next piece; otherwise `text` only begins the match.
_Start = tuple[str, bool]


def starting_strings(pattern: str) -> frozenset[str] | None:
    """Strings of PREFIX_LENGTH characters or fewer, one of which begins every match of
    `pattern`, when every match also begins at the start of a word; else None."""
    try:
        parsed = sre_parse.parse(pattern)
    except re.error:
        return None
    if parsed.state.flags & re.IGNORECASE or not _starts_a_word(list(parsed)):
        return None
    starts = _starts(list(parsed))
    if (
        starts is not None
        and len(starts) > MANY_STARTS
        and not any(text[0].isascii() for text, _ in starts)
    ):
        starts = _starts(list(parsed), SHORT_PREFIX_LENGTH)
    if starts is None or any(not text or not text[0].isalnum() for text, _ in starts):
        return None
    return frozenset(text for text, _ in starts)


def anywhere_strings(pattern: str) -> frozenset[str] | None:
    """Strings of ANYWHERE_PREFIX_LENGTH characters or fewer, one of which begins every
    match of `pattern`, when each holds a letter of a script written without spaces (so the
    pattern is tried wherever one is found, not only at word starts); else None."""
    try:
        parsed = sre_parse.parse(pattern)
    except re.error:
        return None
    if parsed.state.flags & re.IGNORECASE:
        return None
    for limit in (ANYWHERE_PREFIX_LENGTH, PREFIX_LENGTH):  # longer when a Latin word opens it
        starts = _starts(list(parsed), limit)
        if starts is not None and all(_UNSPACED_LETTER.search(text) for text, _ in starts):
            return frozenset(text for text, _ in starts)
    return None


@dataclass(frozen=True, slots=True)
class _Listing:
    """Patterns by their beginnings, and one pattern that finds those beginnings."""

    by_start: dict[str, tuple[int, ...]]  # each beginning, with every pattern that may start there
    finder: re.Pattern[str]

    @classmethod
    def of(cls, listed: dict[str, list[int]], anchor: str) -> _Listing:
        # The longest beginning found, with every pattern listed under it and under each
        # shorter beginning it starts with.
        by_start = {
            text: tuple(
                dict.fromkeys(
                    n for size in range(1, len(text) + 1) for n in listed.get(text[:size], ())
                )
            )
            for text in listed
        }
        if not listed:
            return cls(by_start, re.compile("(?!)"))
        firsts = _class_of(sorted({text[0] for text in listed}))
        return cls(by_start, re.compile(rf"{anchor}(?={firsts})(?=({_grouped_trie(listed)}))"))

    def add_matches(
        self,
        patterns: tuple[re.Pattern[str], ...],
        text: str,
        start: int,
        found: dict[int, list[re.Match[str]]],
    ) -> None:
        by_start = self.by_start
        for place in self.finder.finditer(text, start):
            position = place.start()
            for number in by_start[place.group(1)]:
                match = patterns[number].match(text, position)
                if match is not None:
                    found.setdefault(number, []).append(match)


@dataclass(frozen=True, slots=True)
class StartIndex:
    """Patterns by the strings their matches begin with."""

    patterns: tuple[re.Pattern[str], ...]
    at_words: _Listing  # patterns that begin at a word start, found word by word
    anywhere: _Listing  # patterns in scripts without spaces, found wherever they begin
    searched: tuple[int, ...]  # patterns whose beginnings are unknown: searched in full

    @classmethod
    def of(cls, patterns: Sequence[re.Pattern[str]]) -> StartIndex:
        at_words: dict[str, list[int]] = {}
        anywhere: dict[str, list[int]] = {}
        searched: list[int] = []
        for number, pattern in enumerate(patterns):
            starts = starting_strings(pattern.pattern)
            listed = at_words
            if starts is None:
                starts, listed = anywhere_strings(pattern.pattern), anywhere
            if starts is None:
                searched.append(number)
                continue
            for text in starts:
                listed.setdefault(text, []).append(number)
        return cls(
            tuple(patterns),
            _Listing.of(at_words, r"(?<!\w)"),
            _Listing.of(anywhere, ""),
            tuple(searched),
        )

    def matches(self, text: str) -> dict[int, list[re.Match[str]]]:
        """Every match of every pattern at the start of a word, or for a pattern in a
        script without spaces wherever it begins (plus, for a searched pattern, its
        non-overlapping matches anywhere), by pattern number, in order."""
        found: dict[int, list[re.Match[str]]] = {}
        self.at_words.add_matches(self.patterns, text, 0, found)
        if self.anywhere.by_start:
            first = _UNSPACED_LETTER.search(text)
            if first is not None:  # every beginning holds such a letter, within its first 7
                self.anywhere.add_matches(
                    self.patterns, text, max(0, first.start() - PREFIX_LENGTH), found
                )
        for number in self.searched:
            hits = list(self.patterns[number].finditer(text))
            if hits:
                found[number] = hits
        return found


def _trie(words: list[str]) -> str:
    """An alternation of `words` that always takes the longest one that fits: each letter
    branches once, and stopping early is the last choice at every step."""
    branches: dict[str, list[str]] = {}
    ends = False
    for word in words:
        if word:
            branches.setdefault(word[0], []).append(word[1:])
        else:
            ends = True
    alternatives = [re.escape(first) + _trie(rests) for first, rests in branches.items()]
    if not alternatives:
        return ""
    if ends:
        alternatives.append("")
    if len(alternatives) == 1:
        return alternatives[0]
    return "(?:" + "|".join(alternatives) + ")"


def _grouped_trie(listed: dict[str, list[int]]) -> str:
    """The trie of every beginning, its first letters split into groups of about the
    square root of their number. The regex engine skips a group whose class holds no
    letter at a place in one step, and tries the letters of a group one by one only where
    the class matched: some twenty steps at a place instead of one for each of the
    hundreds of first letters of eleven scripts. The longest beginning still wins."""
    by_first: dict[str, list[str]] = {}
    for text in sorted(listed):
        by_first.setdefault(text[0], []).append(text[1:])
    firsts = sorted(by_first)
    size = max(1, math.isqrt(len(firsts)))
    groups = [firsts[at : at + size] for at in range(0, len(firsts), size)]
    return (
        "(?:"
        + "|".join(
            _class_of(group)
            + "(?:"
            + "|".join(f"(?<={re.escape(first)}){_trie(by_first[first])}" for first in group)
            + ")"
            for group in groups
        )
        + ")"
    )


def _class_of(letters: list[str]) -> str:
    return "[" + "".join(re.escape(letter) for letter in letters) + "]"


def _starts_a_word(items: list[tuple[Any, Any]]) -> bool:
    """Whether the pattern opens with \\b or (?<!\\w), so it can only match at a word start
    (it is checked elsewhere that a letter or digit follows)."""
    while items:
        op, value = items[0]
        if op is sre.SUBPATTERN:
            items = list(value[-1])
            continue
        if op is sre.AT:
            return value is sre.AT_BOUNDARY
        if op is sre.ASSERT_NOT:
            direction, body = value
            return direction == -1 and list(body) == [(sre.IN, [(sre.CATEGORY, sre.CATEGORY_WORD)])]
        if op is sre.BRANCH:
            return all(_starts_a_word(list(alternative)) for alternative in value[1])
        return False
    return False


def _starts(items: list[tuple[Any, Any]], limit: int = PREFIX_LENGTH) -> set[_Start] | None:
    current: set[_Start] = {("", True)}
    for op, value in items:
        if all(not complete or len(text) >= limit for text, complete in current):
            break
        piece = _piece_starts(op, value, limit)
        following: set[_Start] = set()
        for text, complete in current:
            if not complete or len(text) >= limit:
                following.add((text[:limit], False))
            elif piece is None:
                following.add((text, False))
            else:
                for more, more_complete in piece:
                    joined = text + more
                    if len(joined) >= limit:
                        following.add((joined[:limit], False))
                    else:
                        following.add((joined, more_complete))
        if len(following) > MAX_STARTS:
            return None
        current = following
    return current


def _piece_starts(op: Any, value: Any, limit: int) -> set[_Start] | None:
    if op is sre.LITERAL:
        return {(chr(value), True)}
    if op is sre.IN:
        letters = _class(value)
        return None if letters is None else {(letter, True) for letter in letters}
    if op is sre.SUBPATTERN:
        return _starts(list(value[-1]), limit)
    if op is sre.BRANCH:
        found: set[_Start] = set()
        for alternative in value[1]:
            starts = _starts(list(alternative), limit)
            if starts is None:
                return None
            found |= starts
        return found
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
        low, high, body = value
        inner = _starts(list(body), limit)
        if inner is None:
            return None
        once = {(text, complete and high == 1) for text, complete in inner}
        return (once | {("", True)}) if low == 0 else once
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
        return {("", True)}  # zero-width: it matches no characters of its own
    return None


def _class(members: list[tuple[Any, Any]]) -> frozenset[str] | None:
    letters: set[str] = set()
    for op, value in members:
        if op is not sre.LITERAL:
            return None  # a range, a category or a negation: too wide to spell out
        letters.add(chr(value))
    return frozenset(letters) if len(letters) <= _MAX_CLASS else None
