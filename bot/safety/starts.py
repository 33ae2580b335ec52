"""How a match can begin: an index that tries each rule only where it could match.

Every rule is a regular expression, and searching a text with one costs time at every
position, whether or not the rule could start there; with over a hundred rules in eleven
languages that cost grows into tens of milliseconds for a long message. But each rule
begins at the start of a word, and with one of a small set of spellings ("kill", "want",
"suic", ...). Those spellings are read from each pattern once, at load. A text is then
walked word by word; at each word only the rules that can begin with it are tried, with
`pattern.match` at that word. The matches are exactly those a search would find at word
starts; a rule whose beginning cannot be read that way is simply searched in full.

Which rules a word's first seven characters call for is looked up in a table of those
beginnings and kept: the same words come back in every message ("want to", "i feel"),
so most words cost one lookup, and no pattern runs over the text to find them.

Chinese and Japanese are written without spaces (and Korean in chat often is), so a word
there can begin anywhere in a run of letters and `\b` finds no start inside it. A rule
in those scripts opens with no word-start assertion; when each of its beginnings holds a
letter of such a script, it is listed apart and tried at every place in the text where one
of its beginnings is found, word start or not. That pass only runs on a text holding such
a letter, so the rest pay nothing for it.

A few rules once searched in full are listed too, and their matches taken one after
another as a search takes them, so they find what they found: those that look ahead for
a letter past a beginning that opens with none ((?<!\\w)(?=\\w)...'s), and those that only
ever begin after no Latin letter ((?<![a-z]): Arabic, Chinese, Japanese in Latin
letters). A rule still searched in full is skipped in a text holding none of the strings
every match of it holds.

Building the listings takes a good part of a second for the pack's rules, so a start
that opens the book of compiled patterns keeps them there and a restart reads them
(starts_book.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import cast

from bot.content_pack.pattern_starts import PREFIX_LENGTH, UNSPACED_LETTER
from bot.content_pack.patterns import compiled, keep_entry, kept_entry, read
from bot.safety.start_tries import class_of, grouped_trie
from bot.safety.starts_book import index_key, kept_field, numbers_by_start


@dataclass(frozen=True, slots=True)
class _Listing:
    """Patterns by their beginnings, and one pattern that finds those beginnings."""

    by_start: dict[str, tuple[int, ...]]  # each beginning, with every pattern that may start there
    finder: re.Pattern[str]

    @classmethod
    def of(cls, listed: dict[str, list[int]], anchor: str) -> _Listing:
        by_start = _by_start(listed)
        if not listed:
            return cls(by_start, re.compile("(?!)"))
        firsts = class_of(sorted({text[0] for text in listed}))
        # As long as the pack's longest patterns: taken from the book of compiled patterns.
        return cls(by_start, compiled(rf"{anchor}(?={firsts})(?=({grouped_trie(listed)}))"))

    def as_data(self) -> dict[str, object]:
        return {"by_start": _listed_data(self.by_start), "finder": self.finder.pattern}

    @classmethod
    def from_data(cls, data: object, count: int, anchor: str) -> _Listing:
        """The listing `as_data` kept, of `count` patterns; TypeError or ValueError when
        it is not one."""
        by_start = numbers_by_start(kept_field(data, "by_start"), count)
        finder = kept_field(data, "finder")
        if not isinstance(finder, str):
            raise TypeError("no finder")
        if not by_start:
            return cls.of({}, anchor)
        return cls(by_start, compiled(finder))

    def add_matches(
        self,
        patterns: tuple[re.Pattern[str], ...],
        text: str,
        start: int,
        found: dict[int, list[re.Match[str]]],
        only: frozenset[int] | None = None,
    ) -> None:
        by_start = self.by_start
        for place in self.finder.finditer(text, start):
            position = place.start()
            for number in by_start[place.group(1)]:
                if only is not None and number not in only:
                    continue
                match = patterns[number].match(text, position)
                if match is not None:
                    found.setdefault(number, []).append(match)


# Where a word starts: a word character after none.
_WORD_START = re.compile(r"(?<!\w)\w")
# Where a beginning may follow no Latin letter (its finder's anchor).
_AFTER_NO_LATIN = "(?<![a-z])"
# Each word start of a text, and the text's next PREFIX_LENGTH characters at each.
WordHeads = tuple[list[int], list[str]]


def word_heads(text: str) -> WordHeads:
    """Every word start of `text`, with what follows it as far as a beginning reaches:
    read once a text, for the idioms' index and the rules' alike."""
    positions = [place.start() for place in _WORD_START.finditer(text)]
    return positions, [text[position : position + PREFIX_LENGTH] for position in positions]


# Words' first characters whose patterns a listing keeps; past this many it starts again
# (a process meets a few thousand different ones in ordinary talk).
_KEPT_WORDS = 65_536


@dataclass(frozen=True, slots=True)
class _WordListing:
    """Patterns by their beginnings, read at each word start: the same choice as the
    finder of a _Listing anchored at word starts (the longest beginning at each word, with
    every pattern listed under it or under a shorter beginning it starts with), by lookup."""

    by_start: dict[str, tuple[int, ...]]  # as _Listing's
    # Patterns by a word's first PREFIX_LENGTH characters (fewer at the end of a text),
    # as found before; filled as messages come, so it is no cost at start-up.
    kept: dict[str, tuple[int, ...]]

    @classmethod
    def of(cls, listed: dict[str, list[int]]) -> _WordListing:
        return cls.checked(_by_start(listed))

    @classmethod
    def checked(cls, by_start: dict[str, tuple[int, ...]]) -> _WordListing:
        if max(map(len, by_start), default=0) > PREFIX_LENGTH:
            raise ValueError(f"a beginning longer than {PREFIX_LENGTH} characters")
        return cls(by_start, {})

    def as_data(self) -> dict[str, object]:
        return {"by_start": _listed_data(self.by_start)}

    @classmethod
    def from_data(cls, data: object, count: int) -> _WordListing:
        """The listing `as_data` kept, of `count` patterns; TypeError or ValueError when
        it is not one (a beginning past PREFIX_LENGTH)."""
        return cls.checked(numbers_by_start(kept_field(data, "by_start"), count))

    def add_matches(
        self,
        patterns: tuple[re.Pattern[str], ...],
        text: str,
        found: dict[int, list[re.Match[str]]],
        words: WordHeads,
        only: frozenset[int] | None = None,
    ) -> None:
        positions, heads = words
        # Looked up all at once (most words are met before); a word listing no pattern
        # (an empty tuple) is then passed over without a step of its own.
        looked_up = list(map(self.kept.get, heads))
        if None in looked_up:
            for at, numbers in enumerate(looked_up):
                if numbers is None:
                    looked_up[at] = self._kept_under(heads[at])
        listed = cast(list[tuple[int, ...]], looked_up)  # none left unknown
        for position, numbers in compress(zip(positions, listed, strict=True), listed):
            for number in numbers:
                if only is not None and number not in only:
                    continue
                match = patterns[number].match(text, position)
                if match is not None:
                    found.setdefault(number, []).append(match)

    def _kept_under(self, head: str) -> tuple[int, ...]:
        """`_listed_under`, kept for the next time the same word comes."""
        numbers = self._listed_under(head)
        if len(self.kept) >= _KEPT_WORDS:
            self.kept.clear()
        self.kept[head] = numbers
        return numbers

    def _listed_under(self, head: str) -> tuple[int, ...]:
        """The patterns of the longest beginning that `head` starts with (none: ()). Each
        of its beginnings is looked up: a word is met once, then kept."""
        numbers: tuple[int, ...] = ()
        for size in range(1, len(head) + 1):
            numbers = self.by_start.get(head[:size], numbers)
        return numbers


@dataclass(frozen=True, slots=True)
class StartIndex:
    """Patterns by the strings their matches begin with."""

    patterns: tuple[re.Pattern[str], ...]
    at_words: _WordListing  # patterns that begin at a word start, found word by word
    anywhere: _Listing  # patterns in scripts without spaces, found wherever they begin
    searched: tuple[int, ...]  # patterns whose beginnings are unknown: searched in full
    # Patterns listed at words whose matches are taken one after another, none inside
    # the one before, as a search takes them (pattern_starts.word_starts_in_turn).
    in_turn: tuple[int, ...] = ()
    # Patterns that never begin right after a Latin letter, found wherever one of their
    # beginnings follows none, and taken in turn too (starts_after_no_latin_letter).
    after_no_latin: _Listing = field(default_factory=lambda: _Listing.of({}, _AFTER_NO_LATIN))
    # Of each searched pattern, strings one of which every match holds (None: unknown):
    # a text without any of them is not searched with it.
    required: dict[int, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, patterns: Sequence[re.Pattern[str]]) -> StartIndex:
        at_words: dict[str, list[int]] = {}
        anywhere: dict[str, list[int]] = {}
        searched: list[int] = []
        in_turn: list[int] = []
        after_no_latin: dict[str, list[int]] = {}
        required: dict[int, tuple[str, ...]] = {}
        for number, pattern in enumerate(patterns):
            # Read when the pack was checked (bot/content_pack/patterns.py), not again.
            reading = read(pattern.pattern)
            starts, listed = reading.word_starts, at_words
            if starts is None and reading.word_starts_in_turn is not None:
                starts = reading.word_starts_in_turn
                in_turn.append(number)
            if starts is None:
                starts, listed = reading.anywhere_starts, anywhere
            if starts is None and reading.latin_free_starts_in_turn is not None:
                starts, listed = reading.latin_free_starts_in_turn, after_no_latin
                in_turn.append(number)
            if starts is None:
                searched.append(number)
                if reading.required is not None:
                    required[number] = reading.required
                continue
            for text in starts:
                listed.setdefault(text, []).append(number)
        words, unspaced, latin_free = _listings(patterns, at_words, anywhere, after_no_latin)
        return cls(
            tuple(patterns),
            words,
            unspaced,
            tuple(searched),
            tuple(in_turn),
            latin_free,
            required,
        )

    def matches(
        self, text: str, words: WordHeads | None = None, only: frozenset[int] | None = None
    ) -> dict[int, list[re.Match[str]]]:
        """Every match of every pattern at the start of a word, or for a pattern in a
        script without spaces wherever it begins (plus, for a searched pattern or one taken
        in turn, its non-overlapping matches anywhere), by pattern number, in order.
        `words` is `word_heads(text)` when the caller has it; `only`, the numbers of the
        patterns to match (None: all): each pattern's matches are its own, found alike
        whichever others are asked for."""
        found: dict[int, list[re.Match[str]]] = {}
        self.at_words.add_matches(
            self.patterns, text, found, word_heads(text) if words is None else words, only
        )
        if self.anywhere.by_start:
            first = UNSPACED_LETTER.search(text)
            if first is not None:  # every beginning holds such a letter, within its first 7
                self.anywhere.add_matches(
                    self.patterns, text, max(0, first.start() - PREFIX_LENGTH), found, only
                )
        if self.after_no_latin.by_start:
            self.after_no_latin.add_matches(self.patterns, text, 0, found, only)
        for number in self.in_turn:
            hits = found.get(number)
            if hits is not None:
                found[number] = _in_turn(hits, self.patterns[number], text)
        for number in self.searched:
            if only is not None and number not in only:
                continue
            required = self.required.get(number)
            if required is not None and not any(part in text for part in required):
                continue  # none of the strings every match holds: it cannot match here
            hits = list(self.patterns[number].finditer(text))
            if hits:
                found[number] = hits
        return found


def _listings(
    patterns: Sequence[re.Pattern[str]],
    at_words: dict[str, list[int]],
    anywhere: dict[str, list[int]],
    after_no_latin: dict[str, list[int]],
) -> tuple[_WordListing, _Listing, _Listing]:
    """The three listings of these beginnings, read from the open book where it keeps
    them for these patterns (starts_book.py), else built and kept there."""
    key = index_key(patterns)
    kept = None if key is None else kept_entry(key)
    if kept is not None:
        try:
            return (
                _WordListing.from_data(kept_field(kept, "at_words"), len(patterns)),
                _Listing.from_data(kept_field(kept, "anywhere"), len(patterns), ""),
                _Listing.from_data(
                    kept_field(kept, "after_no_latin"), len(patterns), _AFTER_NO_LATIN
                ),
            )
        except (TypeError, ValueError):
            pass  # not well formed (a broken writer): built anew below, and kept
    built = (
        _WordListing.of(at_words),
        _Listing.of(anywhere, ""),
        _Listing.of(after_no_latin, _AFTER_NO_LATIN),
    )
    if key is not None:
        words, unspaced, latin_free = built
        kept_data = {
            "at_words": words.as_data(),
            "anywhere": unspaced.as_data(),
            "after_no_latin": latin_free.as_data(),
        }
        keep_entry(key, kept_data)
    return built


def _by_start(listed: dict[str, list[int]]) -> dict[str, tuple[int, ...]]:
    """Each beginning, with every pattern listed under it and under each shorter
    beginning it starts with: the patterns to try where it is the longest one found."""
    return {
        text: tuple(
            dict.fromkeys(
                n for size in range(1, len(text) + 1) for n in listed.get(text[:size], ())
            )
        )
        for text in listed
    }


def _listed_data(by_start: dict[str, tuple[int, ...]]) -> dict[str, list[int]]:
    return {text: list(numbers) for text, numbers in by_start.items()}


def _in_turn(hits: list[re.Match[str]], pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """The matches a search finds, of every match at a word start (in order): each one
    that begins where or after the one kept before it ends. An empty match, after which a
    search goes on by its own rules, leaves the search to find them."""
    kept: list[re.Match[str]] = []
    end = 0
    for hit in hits:
        if hit.end() == hit.start():
            return list(pattern.finditer(text))
        if hit.start() >= end:
            kept.append(hit)
            end = hit.end()
    return kept
