"""Split a long reply into messages a platform accepts, at the most natural place."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

Measure = Callable[[str], int]

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
# Characters that belong to the one before them: variation selectors, the zero-width joiner
# and skin-tone modifiers.
_ZWJ = "\u200d"
_JOINS_PREVIOUS = re.compile("[\ufe00-\ufe0f\u200d\U0001f3fb-\U0001f3ff]")  # + skin tones


def utf16_length(text: str) -> int:
    """Telegram counts UTF-16 code units: an emoji outside the BMP counts as two."""
    return len(text.encode("utf-16-le")) // 2


def split_text(text: str, limit: int, measure: Measure = len) -> list[str]:
    """Pieces of at most `limit` (as `measure` counts), cut between paragraphs if possible,
    else between sentences, else between words, and only as a last resort inside a word
    (never inside a character: Python strings hold whole code points)."""
    if measure(text) <= limit:
        return [text]
    pieces: list[str] = []
    rest = text
    while measure(rest) > limit:
        cut = _best_cut(rest, limit, measure)
        head, rest = rest[:cut].rstrip(), rest[cut:].lstrip()
        if head:
            pieces.append(head)
    if rest:
        pieces.append(rest)
    return pieces


def _best_cut(text: str, limit: int, measure: Measure) -> int:
    fits = _longest_prefix(text, limit, measure)
    window = text[:fits]
    for boundary in ("\n\n", "\n"):
        at = window.rfind(boundary)
        if at > fits // 3:
            return at + len(boundary)
    sentences = [match.end() for match in _SENTENCE_END.finditer(window)]
    if sentences and sentences[-1] > fits // 3:
        return sentences[-1]
    space = window.rfind(" ")
    if space > fits // 3:
        return space + 1
    return _before_marks(text, fits)


def _before_marks(text: str, cut: int) -> int:
    """Move a cut inside a word back before any combining marks, so an accent, a variation
    selector or a joined emoji stays whole (unless the whole piece is one such cluster)."""
    start = cut
    while 1 < start < len(text) and (_joins_previous(text[start]) or text[start - 1] == _ZWJ):
        start -= 1
    return start if start > 1 else cut


def _joins_previous(character: str) -> bool:
    return unicodedata.combining(character) != 0 or _JOINS_PREVIOUS.match(character) is not None


def _longest_prefix(text: str, limit: int, measure: Measure) -> int:
    """How many characters of `text` fit in `limit` (binary search: measure may not be len)."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if measure(text[:middle]) <= limit:
            low = middle
        else:
            high = middle - 1
    return max(low, 1)
