"""Words a pattern cannot match without: a cheap test that lets most rules skip most messages.

Each rule is a regular expression tried at every word of a message, which costs time in
proportion to the text times the number of rules. But nearly every rule names a word it
cannot do without ("myself", "suicid", "die"), and looking for a plain string is many
times faster than running the pattern. So each pattern is read once, at load, for a small
set of strings such that every possible match contains at least one of them; a rule whose
strings are all absent from a text cannot match it and is not run. When no such set can
be found, the rule always runs: the test only ever skips work, never a match.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import product
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

# Fewer, longer strings make a sharper test; a set with a string shorter than this, or
# more strings than the cap, is no test at all (the rule just runs).
MIN_LENGTH = 3
MAX_STRINGS = 24
_MAX_SPELLED = 64  # how many exact spellings are followed before they are summed up
_MAX_CLASS = 8  # a character class is expanded into its letters only when it is this small


@dataclass(frozen=True, slots=True)
class _Reading:
    """What one piece of a pattern can match: `exact` lists every string it can match, when
    that list is short; `required` is a set of strings one of which any match contains."""

    exact: frozenset[str] | None
    required: frozenset[str] | None


_LETTERS = re.compile(r"[^\W\d_]+")
_EMPTY = _Reading(frozenset({""}), None)
_UNKNOWN = _Reading(None, None)


def required_strings(pattern: str) -> frozenset[str] | None:
    """Strings one of which every match of `pattern` contains, or None when there are none
    worth testing (then the pattern must simply be run)."""
    try:
        parsed = sre_parse.parse(pattern)
    except re.error:
        return None
    if parsed.state.flags & re.IGNORECASE:
        return None  # the text is case-folded already; a case-blind pattern is left to run
    reading = _sequence(list(parsed))
    return _best(reading.required, reading.exact)


def _best(*candidates: frozenset[str] | None) -> frozenset[str] | None:
    usable = [shrunk for found in candidates if (shrunk := _shrink(found)) is not None]
    if not usable:
        return None
    return min(usable, key=lambda found: (len(found), -min(map(len, found))))


def _shrink(strings: frozenset[str] | None) -> frozenset[str] | None:
    """The fewest letter runs that still cover `strings`: any piece of a required string is
    required too, so "killing", "killed" and "kills" can all be tested as "kill"."""
    if not strings or len(strings) > 4 * _MAX_SPELLED:
        return None
    pieces = {string: _pieces(string) for string in strings}
    if not all(pieces.values()):
        return None  # a string with no run of letters long enough: nothing sharp to test
    chosen: set[str] = set()
    left = set(strings)
    while left:
        counts = Counter(piece for string in left for piece in pieces[string])
        piece = max(counts, key=lambda candidate: (counts[candidate], len(candidate), candidate))
        chosen.add(piece)
        left = {string for string in left if piece not in pieces[string]}
    return frozenset(chosen) if len(chosen) <= MAX_STRINGS else None


def _pieces(string: str) -> frozenset[str]:
    found: set[str] = set()
    for run in _LETTERS.findall(string):
        if len(run) == MIN_LENGTH:
            found.add(run)
        for size in range(MIN_LENGTH + 1, len(run) + 1):
            found.update(run[start : start + size] for start in range(len(run) - size + 1))
    return frozenset(found)


def _sequence(items: list[tuple[Any, Any]]) -> _Reading:
    exact: frozenset[str] | None = frozenset({""})
    whole_is_exact = True  # every piece so far joined into `exact`
    best: frozenset[str] | None = None
    for op, value in items:
        part = _item(op, value)
        if part.exact is not None and exact is not None:
            joined = frozenset(a + b for a, b in product(exact, part.exact))
            if len(joined) <= _MAX_SPELLED:
                exact = joined
                continue
        # The run of exact pieces ends here: what it spells is required, as is what this
        # piece requires on its own; keep the sharper of the sets seen so far.
        whole_is_exact = False
        best = _best(best, exact, part.required, part.exact)
        exact = part.exact
    best = _best(best, exact)
    return _Reading(exact if whole_is_exact else None, best)


def _item(op: Any, value: Any) -> _Reading:
    if op is sre.LITERAL:
        return _Reading(frozenset({chr(value)}), None)
    if op is sre.IN:
        return _class(value)
    if op is sre.SUBPATTERN:
        return _sequence(list(value[-1]))
    if op is sre.BRANCH:
        return _branch(value[1])
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
        return _repeat(*value)
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
        return _EMPTY  # zero-width: matches no characters of its own
    return _UNKNOWN


def _class(members: list[tuple[Any, Any]]) -> _Reading:
    letters: set[str] = set()
    for op, value in members:
        if op is not sre.LITERAL:
            return _UNKNOWN  # a range, a category or a negation: too wide to spell out
        letters.add(chr(value))
    if len(letters) > _MAX_CLASS:
        return _UNKNOWN
    return _Reading(frozenset(letters), None)


def _branch(alternatives: list[Any]) -> _Reading:
    readings = [_sequence(list(alternative)) for alternative in alternatives]
    exact: frozenset[str] | None = None
    if all(reading.exact is not None for reading in readings):
        exact = frozenset().union(*(reading.exact or () for reading in readings))
        if len(exact) > _MAX_SPELLED:
            exact = None
    required: frozenset[str] | None = frozenset()
    for reading in readings:
        own = _best(reading.required, reading.exact)
        if own is None or required is None:
            required = None
            break
        required = required | own
    return _Reading(exact, _shrink(required))


def _repeat(low: int, high: int, body: Any) -> _Reading:
    inner = _sequence(list(body))
    if low == 0:
        if high == 1 and inner.exact is not None:
            return _Reading(inner.exact | {""}, None)
        return _EMPTY if high == 0 else _Reading(None, None)
    if low == high == 1:
        return inner
    return _Reading(None, _best(inner.required, inner.exact))
