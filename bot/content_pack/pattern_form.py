"""A compiled pattern as plain data: what `_sre.compile` takes, and the beginnings the
screen's index reads (pattern_starts.py), so that a start can build a pattern in C
instead of parsing and compiling it in Python again (bot/content_pack/pattern_book.py).

The code is what re's own compiler made of the pattern's text on this interpreter; it
is only ever used for the text whose hash keys it, and `_sre.compile` refuses code that
is not well formed (the book is refused whole when its checksum does not hold).
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import base64
import binascii
import hashlib
import re
from array import array
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

# What a pattern's matches can begin with and must hold (patterns.PatternReading's fields
# after the compiled pattern, in order): None where not known.
Starts = tuple[
    tuple[str, ...] | None,
    tuple[str, ...] | None,
    tuple[str, ...] | None,
    tuple[str, ...] | None,
    tuple[str, ...] | None,
]

# The array type whose items are as wide as the regex engine's code words.
CODE_TYPE = next((kind for kind in "IL" if array(kind).itemsize == _sre.CODESIZE), "")


def form_key(pattern: str, flags: int) -> str:
    """The key of a pattern's form: a hash of its exact text and flags."""
    return hashlib.sha256(f"{flags}\0{pattern}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class CompiledForm:
    flags: int  # the compiled pattern's flags (re adds UNICODE to a text's)
    groups: int  # the parse's count of groups, the whole match included
    names: tuple[tuple[str, int], ...]  # named groups and their numbers
    code: bytes  # the code words, CODE_TYPE items in this machine's byte order
    read: bool  # whether its beginnings were read (patterns.read), below
    word_starts: tuple[str, ...] | None = None
    anywhere_starts: tuple[str, ...] | None = None
    word_starts_in_turn: tuple[str, ...] | None = None
    latin_free_starts_in_turn: tuple[str, ...] | None = None
    required: tuple[str, ...] | None = None

    @classmethod
    def of(cls, parsed: Any, code: list[int], read: bool) -> CompiledForm:
        names = tuple(sorted(parsed.state.groupdict.items(), key=lambda item: item[1]))
        return cls(
            parsed.state.flags, parsed.state.groups, names, array(CODE_TYPE, code).tobytes(), read
        )

    def with_starts(self, starts: Starts) -> CompiledForm:
        """With the beginnings read (patterns.PatternReading's, in its order)."""
        word, anywhere, in_turn, latin_free, required = starts
        return replace(
            self,
            word_starts=word,
            anywhere_starts=anywhere,
            word_starts_in_turn=in_turn,
            latin_free_starts_in_turn=latin_free,
            required=required,
        )

    @property
    def starts(self) -> Starts:
        return (
            self.word_starts,
            self.anywhere_starts,
            self.word_starts_in_turn,
            self.latin_free_starts_in_turn,
            self.required,
        )

    def as_data(self) -> dict[str, object]:
        return {
            "flags": self.flags,
            "groups": self.groups,
            "names": [list(pair) for pair in self.names],
            "code": base64.b64encode(self.code).decode("ascii"),
            "read": self.read,
            "word_starts": _listed(self.word_starts),
            "anywhere_starts": _listed(self.anywhere_starts),
            "word_starts_in_turn": _listed(self.word_starts_in_turn),
            "latin_free_starts_in_turn": _listed(self.latin_free_starts_in_turn),
            "required": _listed(self.required),
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> CompiledForm:
        """The form written by `as_data`; raises ValueError when it is not one."""
        try:
            names = tuple((str(name), _int(number)) for name, number in data["names"])
            return cls(
                _int(data["flags"]),
                _int(data["groups"]),
                names,
                base64.b64decode(data["code"], validate=True),
                data["read"] is True,
                _strings(data["word_starts"]),
                _strings(data["anywhere_starts"]),
                _strings(data["word_starts_in_turn"]),
                _strings(data["latin_free_starts_in_turn"]),
                _strings(data["required"]),
            )
        except (KeyError, TypeError, binascii.Error) as error:
            raise ValueError(f"not a compiled form: {type(error).__name__}") from None


def pattern_from(pattern: str, form: CompiledForm) -> re.Pattern[str] | None:
    """The pattern built from its form, as re/_compiler.py's `compile` builds it; None
    when the engine refuses the code (damaged: the text is compiled instead)."""
    code = array(CODE_TYPE)
    by_number: list[str | None] = [None] * form.groups
    try:
        code.frombytes(form.code)
        for name, number in form.names:
            by_number[number] = name
        built = _sre.compile(
            pattern, form.flags, code.tolist(), form.groups - 1, dict(form.names), tuple(by_number)
        )
    except (RuntimeError, TypeError, ValueError, OverflowError, IndexError):
        return None
    return built if isinstance(built, re.Pattern) else None


def _listed(strings: tuple[str, ...] | None) -> list[str] | None:
    return None if strings is None else list(strings)


def _int(value: object) -> int:
    if type(value) is not int:
        raise TypeError("not a whole number")
    return value


def _strings(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(type(text) is str for text in value):
        raise TypeError("not a list of texts")
    return tuple(value)
