"""One spelling for typed words: no accents, any case, punctuation as spaces."""

from __future__ import annotations

import re
import unicodedata

_NOT_WORD = re.compile(r"[^0-9a-z]+")


def fold(text: str) -> str:
    """ "São Paulo", "sao_paulo" and "SAO-PAULO!" all become "sao paulo"."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return _NOT_WORD.sub(" ", bare.casefold()).strip()
