"""What a regular expression's matches can begin with, read from its parse.

The safety screen indexes its rules by these beginnings (bot/safety/starts.py). They are
read here, below the screen, so that the pack's check of each detection pattern can parse
it once and take both its compiled form and its beginnings from that one parse
(bot/content_pack/patterns.py): parsing is half of what compiling a pattern costs.
"""

from __future__ import annotations

import re
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
# Letters of the scripts written without spaces between words: CJK ideographs (with their
# extensions and compatibility forms), hiragana, katakana and Hangul.
_UNSPACED = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af\U00020000-\U0003134f"
)
UNSPACED_LETTER = re.compile(f"[{_UNSPACED}]")
_WORD_LETTER = re.compile(r"\w")
# Ops that match no characters: a literal before one and a literal after it are side by
# side in every match ("kill\b me" holds "kill me" whenever it matches).
_ZERO_WIDTH = (sre.AT, sre.ASSERT, sre.ASSERT_NOT)
_LITERAL = sre.LITERAL

# Each start is (text, complete): complete when the piece's whole match is `text`, so
# what follows comes from the next piece; otherwise `text` only begins the match.
_Start = tuple[str, bool]


def starting_strings(pattern: str) -> frozenset[str] | None:
    """Strings of PREFIX_LENGTH characters or fewer, one of which begins every match of
    `pattern`, when every match also begins at the start of a word; else None."""
    parsed = _parsed(pattern)
    return None if parsed is None else word_starts(parsed)


def anywhere_strings(pattern: str) -> frozenset[str] | None:
    """Strings of ANYWHERE_PREFIX_LENGTH characters or fewer, one of which begins every
    match of `pattern`, when each holds a letter of a script written without spaces (so the
    pattern is tried wherever one is found, not only at word starts); else None."""
    parsed = _parsed(pattern)
    return None if parsed is None else anywhere_starts(parsed)


def word_starts(parsed: Any) -> frozenset[str] | None:
    """`starting_strings` of a pattern already parsed (re's own parse tree, not changed)."""
    return _word_starts(parsed, looked_ahead=False)


def word_starts_in_turn(parsed: Any) -> frozenset[str] | None:
    """Of a pattern `word_starts` cannot index only because a beginning of it opens with
    a character that is no letter ("'s in the house") while the pattern first looks ahead
    for a letter ((?<!\\w)(?=\\w)), so that beginning never begins a match: its other
    beginnings, one of which begins every match. Else None.

    Such a pattern was searched in full, and the screen still takes its matches one
    after another as a search does (none inside another), so it finds what it found."""
    if word_starts(parsed) is not None or not _looks_ahead_for_a_letter(_items(parsed)):
        return None
    return _word_starts(parsed, looked_ahead=True)


def starts_after_no_latin_letter(parsed: Any) -> frozenset[str] | None:
    """Of a pattern that opens by looking behind for no Latin letter ((?<![a-z]),
    (?<![a-z0-9]), as Arabic, Chinese and Japanese typed in Latin letters do), so a
    match never begins right after one: strings one of which begins every match. Else
    None. The screen tries it only where one of them follows no such letter, and takes
    its matches in turn, as a search does (it was searched in full before)."""
    if parsed.state.flags & re.IGNORECASE or not _looks_behind_for_no_latin(_items(parsed)):
        return None
    starts = _starts(_items(parsed))
    if not starts or any(not text for text, _ in starts):
        return None
    return frozenset(text for text, _ in starts)


def _looks_behind_for_no_latin(items: list[tuple[Any, Any]]) -> bool:
    """Whether, before it matches any character, the pattern looks behind for a
    character that is not a Latin letter: one class, holding all of a-z or every word
    character."""
    for op, value in items:
        if op is sre.ASSERT_NOT and value[0] == -1:
            body = _items(value[1])
            if len(body) == 1 and body[0][0] is sre.IN and _covers_latin(body[0][1]):
                return True
        if op is sre.BRANCH:  # every alternative must
            return all(_looks_behind_for_no_latin(_items(one)) for one in value[1])
        if op is sre.SUBPATTERN:
            return _looks_behind_for_no_latin(_items(value[-1]))
        if op not in _ZERO_WIDTH:
            return False
    return False


def _covers_latin(members: list[tuple[Any, Any]]) -> bool:
    for op, value in members:
        if op is sre.RANGE and value[0] <= ord("a") and value[1] >= ord("z"):
            return True
        if op is sre.CATEGORY and value is sre.CATEGORY_WORD:
            return True
    return False


def _word_starts(parsed: Any, looked_ahead: bool) -> frozenset[str] | None:
    if parsed.state.flags & re.IGNORECASE or not _starts_a_word(_items(parsed)):
        return None
    starts = _starts(_items(parsed))
    if starts is not None and looked_ahead:
        # A beginning that opens with no letter never begins a match and is dropped; an
        # empty one is a beginning not spelled out (a class such as \d), kept, so that
        # the pattern is not indexed (below) rather than indexed without it.
        starts = {
            (text, complete) for text, complete in starts if not text or _WORD_LETTER.match(text)
        }
    if (
        starts is not None
        and len(starts) > MANY_STARTS
        and not any(text[0].isascii() for text, _ in starts)
    ):
        starts = _starts(_items(parsed), SHORT_PREFIX_LENGTH)
    if not starts or any(not text or not text[0].isalnum() for text, _ in starts):
        return None
    return frozenset(text for text, _ in starts)


def anywhere_starts(parsed: Any) -> frozenset[str] | None:
    """`anywhere_strings` of a pattern already parsed (re's own parse tree, not changed)."""
    if parsed.state.flags & re.IGNORECASE:
        return None
    for limit in (ANYWHERE_PREFIX_LENGTH, PREFIX_LENGTH):  # longer when a Latin word opens it
        starts = _starts(_items(parsed), limit)
        if starts is not None and all(UNSPACED_LETTER.search(text) for text, _ in starts):
            return frozenset(text for text, _ in starts)
    return None


def _parsed(pattern: str) -> Any:
    try:
        return sre_parse.parse(pattern)
    except re.error:
        return None


def _items(parsed: Any) -> list[tuple[Any, Any]]:
    """The items of a parse tree's sequence, as the list it holds (read only, never
    changed): copying them through SubPattern's own indexing, a Python call per item, was
    a good part of reading the beginnings of the pack's longest alternations."""
    items: list[tuple[Any, Any]] = parsed.data
    return items


def _starts_a_word(items: list[tuple[Any, Any]]) -> bool:
    """Whether the pattern opens with \\b or (?<!\\w), so it can only match at a word start
    (it is checked elsewhere that a letter or digit follows)."""
    while items:
        op, value = items[0]
        if op is sre.SUBPATTERN:
            items = _items(value[-1])
            continue
        if op is sre.AT:
            return value is sre.AT_BOUNDARY
        if op is sre.ASSERT_NOT:
            direction, body = value
            word = [(sre.IN, [(sre.CATEGORY, sre.CATEGORY_WORD)])]
            return direction == -1 and _items(body) == word
        if op is sre.BRANCH:
            return all(_starts_a_word(_items(alternative)) for alternative in value[1])
        return False
    return False


def _looks_ahead_for_a_letter(items: list[tuple[Any, Any]]) -> bool:
    """Whether the pattern, before it matches any character, looks ahead for a word
    character ((?=\\w)), so every match begins with one."""
    letter = [(sre.IN, [(sre.CATEGORY, sre.CATEGORY_WORD)])]
    for op, value in items:
        if op is sre.ASSERT and value[0] == 1 and _items(value[1]) == letter:
            return True
        if op not in _ZERO_WIDTH:
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
        return _starts(_items(value[-1]), limit)
    if op is sre.BRANCH:
        found: set[_Start] = set()
        for alternative in value[1]:
            starts = _starts(_items(alternative), limit)
            if starts is None:
                return None
            found |= starts
        return found
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
        low, high, body = value
        inner = _starts(_items(body), limit)
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


# A pattern's required strings (below) are worth checking only while they are few: an
# alternation of hundreds of words says too little, and reading it costs time at load.
MAX_REQUIRED = 64


def required_strings(parsed: Any) -> frozenset[str] | None:
    """Strings one of which every match of the pattern holds (`(?:he|she) will kill`:
    {" will kill"}), or None when none is known. The screen skips a pattern whose required
    strings a text does not hold: it cannot match there. Of the sets found, the one with
    the longest shortest string is kept (the rarest to find by chance), then the smallest."""
    if parsed.state.flags & re.IGNORECASE:
        return None
    return _required(_items(parsed))


def _required(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    best: frozenset[str] | None = None
    best_key = (0, 0)
    run = ""
    for op, value in items:
        if op is _LITERAL:
            run += chr(value)
            continue
        if op in _ZERO_WIDTH:
            continue
        if run and (len(run), -1) > best_key:
            best, best_key = frozenset((run,)), (len(run), -1)
        run = ""
        found = _piece_required(op, value)
        if found is not None and (key := _rarity(found)) > best_key:
            best, best_key = found, key
    if run and (len(run), -1) > best_key:
        best = frozenset((run,))
    return best


def _piece_required(op: Any, value: Any) -> frozenset[str] | None:
    if op is sre.SUBPATTERN:
        _group, add_flags, _del_flags, body = value
        return None if add_flags & re.IGNORECASE else _required(_items(body))
    if op is sre.BRANCH:
        found: set[str] = set()
        for alternative in value[1]:
            each = _required(_items(alternative))
            if each is None:
                return None
            found.update(each)
            if len(found) > MAX_REQUIRED:
                return None
        return frozenset(found)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
        low, _high, body = value
        return _required(_items(body)) if low >= 1 else None
    if op is sre.IN:
        return _class(value)
    return None


def _rarity(found: frozenset[str]) -> tuple[int, int]:
    """How good a set is to require, the higher the better: a longer shortest string,
    then fewer strings."""
    return min(map(len, found)), -len(found)
