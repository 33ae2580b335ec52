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
# Cyrillic and Greek letters drawn like Latin ones (after case-folding). Mixed into a
# Latin word they disguise it ("kіll" with a Cyrillic і); they are read as the Latin
# letter only inside such words, so text really written in those scripts is left alone.
_LOOKALIKES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "і": "i", "ї": "i", "ј": "j",
        "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y",
        "х": "x", "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ү": "y",
        "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
        "τ": "t", "υ": "u", "χ": "x", "γ": "y", "η": "n", "μ": "u",
    }
)  # fmt: skip
_WORD = re.compile(r"\w+")
_LATIN_LETTER = re.compile("[a-z]")
# A right-to-left override shows the letters after it in reverse, up to a pop (or the end).
_OVERRIDDEN = re.compile("\u202e([^\u202c\n]*)\u202c?")


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
    folded = _unmask_lookalikes(composed.casefold())
    return _SPACE.sub(" ", folded.replace("\x00", " ")).strip()


def as_displayed(text: str) -> str | None:
    """The text in the order a reader sees it when it holds right-to-left overrides
    ("i want to \u202eeid" shows "i want to die"); None when it holds none."""
    if "\u202e" not in text:
        return None
    return _OVERRIDDEN.sub(lambda found: found.group(1)[::-1], text)


def _unmask_lookalikes(text: str) -> str:
    """Read look-alike letters as Latin in words that are Latin otherwise, and in a
    message that is Latin otherwise."""
    if not _LATIN_LETTER.search(text):
        return text

    def unmask(word: re.Match[str]) -> str:
        found = word.group(0)
        latin = found.translate(_LOOKALIKES)
        all_lookalike = not _LATIN_LETTER.search(found) and latin.isascii()
        return latin if _LATIN_LETTER.search(found) or all_lookalike else found

    return _WORD.sub(unmask, text)
