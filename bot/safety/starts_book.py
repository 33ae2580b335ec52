"""The screen's index kept in the book of compiled patterns, so a restart reads it.

Building the index (bot/safety/starts.py: every beginning of every rule, with the rules
each may open, and the finders of the scripts written without spaces) was most of what a
restart still did once the patterns themselves came from the book
(bot/content_pack/pattern_book.py). It depends only on the patterns' texts and flags
(their beginnings are read from those, by code the book as a whole is keyed by) and on
the code that builds it (starts.py, start_tries.py and this module), so it is kept under
a key made of both: a changed rule, or changed index code, makes another key, and the
index is built anew and kept under it.

What the book hands back is checked before it is used (each rule number one of the
index's, each part of the right kind); anything else is built anew, as without a book.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping, Sequence
from itertools import chain
from pathlib import Path

from bot.content_pack.patterns import book_open

_HERE = Path(__file__).resolve().parent
# The code an index kept in a book was built by: its key changes with any of it.
_INDEX_CODE = ("starts.py", "start_tries.py", "starts_book.py")


@functools.cache
def _code_hash() -> str | None:
    digest = hashlib.sha256()
    for name in _INDEX_CODE:
        try:
            digest.update((_HERE / name).read_bytes())
        except OSError:  # not installed as files: no kept index is trusted then
            return None
    return digest.hexdigest()


def index_key(patterns: Sequence[re.Pattern[str]]) -> str | None:
    """The key of the index of `patterns` in the open book: a hash of the index code and
    of each pattern's flags and text, in order. None when no book is open (nothing is
    kept then) or the code cannot be read."""
    code = _code_hash()
    if code is None or not book_open():
        return None
    digest = hashlib.sha256(code.encode())
    for pattern in patterns:
        digest.update(f"{pattern.flags}\0{pattern.pattern}\0".encode())
    return f"start-index:{digest.hexdigest()}"


def numbers_by_start(data: object, count: int) -> dict[str, tuple[int, ...]]:
    """A listing's beginnings and rule numbers as kept (as_data), each number below
    `count`; raises TypeError or ValueError when they are not."""
    if not isinstance(data, Mapping) or not all(type(found) is list for found in data.values()):
        raise TypeError("not rule numbers by beginning")
    listed = {str(text): tuple(found) for text, found in data.items()}
    # Each distinct number checked once (a list inside a list is not hashable: TypeError).
    if not all(type(n) is int and 0 <= n < count for n in set(chain(*listed.values()))):
        raise ValueError("a rule number the index does not have")
    return listed


def kept_field(data: object, name: str) -> object:
    if not isinstance(data, Mapping) or name not in data:
        raise TypeError(f"no {name}")
    return data[name]
