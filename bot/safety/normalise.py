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
# Cyrillic and Greek letters drawn like Latin ones, capitals included (mapped before
# case-folding: a Greek capital Mu folds to a letter that looks like "u", not "m").
_LOOKALIKES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "і": "i", "ї": "i", "ј": "j", "к": "k",
        "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x",
        "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ү": "y",
        "А": "A", "В": "B", "Е": "E", "Ё": "E", "І": "I", "Ј": "J", "К": "K", "М": "M",
        "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S",
        "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
        "τ": "t", "υ": "u", "χ": "x", "γ": "y", "η": "n",
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    }
)  # fmt: skip
_OVERRIDE, _POP = "\u202e", "\u202c"
_OTHER_PUSHES = frozenset("\u202a\u202b\u202d")  # embeddings and left-to-right override


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


def as_displayed(text: str) -> str | None:
    """The text in the order a reader sees it when it holds right-to-left overrides
    ("i want to \u202eeid" shows "i want to die"); None when it holds none.

    Overrides nest: each pop closes the innermost one, and a line end or the end of
    the text closes whatever is still open, as the Unicode bidi rules do.
    """
    if _OVERRIDE not in text:
        return None
    open_runs: list[tuple[list[str], bool]] = [([], False)]

    def close() -> None:
        run, reversed_ = open_runs.pop()
        joined = "".join(run)
        open_runs[-1][0].append(joined[::-1] if reversed_ else joined)

    for character in text:
        if character == _OVERRIDE or character in _OTHER_PUSHES:
            open_runs.append(([], character == _OVERRIDE))
        elif character == _POP and len(open_runs) > 1:
            close()
        elif character == "\n":
            while len(open_runs) > 1:
                close()
            open_runs[-1][0].append(character)
        else:
            open_runs[-1][0].append(character)
    while len(open_runs) > 1:
        close()
    return "".join(open_runs[0][0])


def unmask_lookalikes(text: str) -> str:
    """Every Cyrillic or Greek look-alike read as the Latin letter it imitates. The rules
    see this as a second reading of a message, beside the text as written, so a word
    disguised letter by letter is found and text really written in those scripts still
    reads as itself."""
    return text.translate(_LOOKALIKES)
