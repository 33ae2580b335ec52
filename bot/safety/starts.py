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

from bot.content_pack.pattern_starts import PREFIX_LENGTH, UNSPACED_LETTER
from bot.content_pack.patterns import compiled, read


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
        # As long as the pack's longest patterns: taken from the book of compiled patterns.
        return cls(by_start, compiled(rf"{anchor}(?={firsts})(?=({_grouped_trie(listed)}))"))

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
            # Read when the pack was checked (bot/content_pack/patterns.py), not again.
            reading = read(pattern.pattern)
            starts, listed = reading.word_starts, at_words
            if starts is None:
                starts, listed = reading.anywhere_starts, anywhere
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
            first = UNSPACED_LETTER.search(text)
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
