"""Text as the safety rules see it: one spelling for the many ways the same words can arrive."""

from __future__ import annotations

import re
import unicodedata

# Invisible characters that can split a word without changing how it looks:
# zero-width spaces and joiners, word joiner, BOM, and the bidi embeddings,
# overrides and isolates (a right-to-left override can make "die" read "eid").
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u02bc": "'", "`": "'", "\u201c": '"', "\u201d": '"'}
)
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """NFKC-compatible, without marks or invisible characters, case-folded, single-spaced.

    Combining marks are dropped (after NFKD splits them off), so stacked or
    strike-through marks cannot hide a word; accents go too, which only
    makes matching more forgiving.
    """
    without_invisible = _INVISIBLE.sub("", text)
    decomposed = unicodedata.normalize("NFKD", without_invisible)
    unmarked = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    composed = unicodedata.normalize("NFKC", unmarked).translate(_QUOTES)
    return _SPACE.sub(" ", composed.casefold().replace("\x00", " ")).strip()
