"""The detection patterns as compiled, kept beside the data so that a restart does not
compile them again.

Parsing and compiling the pack's patterns in Python (re's compiler is written in Python)
took seconds of every start once the pack held 22 languages; building a pattern from its
code with `_sre.compile` takes a fraction of that. So the first start writes the code of
every pattern it compiled (pattern_form.py) to a book in the data folder, and later
starts build from it.

The book lives beside the data, not in the pack: the code is the compiler's output on one
interpreter, so a book made on another Python would be of no use to this one, and a book
shipped with the pack would have to be remade by hand at every change to a rule. Kept
here, each interpreter and each version of the pack writes its own on its first start.

It is only ever an aid. Each form is keyed by a hash of its pattern's exact text (a rule
changed is compiled again, and so is a rule the book does not hold); the book is refused
whole when it was made by another interpreter or its checksum does not hold (damaged),
and the patterns are then compiled from their text, as without it: the screen matches
the same either way. It holds no user text, only the pack's patterns, as JSON, and what
is built from them alone (the screen's index, under a key of what it was built from and
of the code that built it: bot/safety/starts.py).
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import functools
import hashlib
import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bot.content_pack import pattern_form, pattern_starts, patterns
from bot.content_pack.pattern_form import CODE_TYPE, CompiledForm
from bot.logs import log_event

log = logging.getLogger("steady.content")

BOOK_FILE = "detection-patterns.json"
# 2: a form keeps the starts taken in turn, the Latin-free starts and the required strings.
# 3: the forms beside other entries built from the patterns (the screen's index).
FORMAT = 3


@functools.cache
def _readers() -> str:
    """A hash of the code that reads a pattern's beginnings and writes its form: a book
    written by other code would hand this one beginnings it does not read the same way
    (a mended reader would go on using the book's old, wrong ones)."""
    digest = hashlib.sha256()
    for module in (pattern_starts, pattern_form):
        try:
            digest.update(Path(module.__file__ or "").read_bytes())
        except OSError:  # not installed as files: no book is trusted across versions then
            return "unknown"
    return digest.hexdigest()


def interpreter() -> dict[str, object]:
    """What the book's forms depend on: re's compiler and engine on this interpreter, and
    the code that read their beginnings."""
    return {
        "format": FORMAT,
        "readers": _readers(),
        "implementation": sys.implementation.cache_tag,
        "version": list(sys.version_info),
        "magic": _sre.MAGIC,
        "codesize": _sre.CODESIZE,
        "byteorder": sys.byteorder,
    }


class BookRefused(Exception):
    """Why a book is not used: its reason is one of a few fixed words, fit for a log."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Book:
    forms: dict[str, CompiledForm]
    # Plain JSON data built from the patterns, by its builder's key (patterns.kept_entry):
    # each is checked by the code that reads it, which builds it anew when it is not well
    # formed.
    entries: dict[str, object] = field(default_factory=dict)


def read_book(path: Path) -> dict[str, CompiledForm]:
    """The forms of the book at `path` (read_whole_book)."""
    return read_whole_book(path).forms


def read_whole_book(path: Path) -> Book:
    """The book at `path`; raises BookRefused (missing, unreadable, damaged,
    other_interpreter) when it cannot be used."""
    if not CODE_TYPE:
        raise BookRefused("other_interpreter")
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):  # the data folder's own check says why
        raise BookRefused("missing") from None
    except OSError:
        raise BookRefused("unreadable") from None
    header, _, body = raw.partition(b"\n")
    try:
        heading = json.loads(header)
        if not isinstance(heading, dict):
            raise ValueError("no heading")
        if heading.get("interpreter") != interpreter():
            raise BookRefused("other_interpreter")
        if heading.get("sha256") != hashlib.sha256(body).hexdigest():
            raise ValueError("checksum")
        whole = json.loads(body)
        forms, entries = whole["forms"], whole["entries"]
        if not isinstance(forms, dict) or not isinstance(entries, dict):
            raise ValueError("no forms")
        return Book(
            {str(key): CompiledForm.from_data(data) for key, data in forms.items()}, entries
        )
    except (ValueError, TypeError, AttributeError, KeyError):  # JSONDecodeError: ValueError
        raise BookRefused("damaged") from None


def write_book(
    path: Path, forms: dict[str, CompiledForm], entries: dict[str, object] | None = None
) -> None:
    """Write the book whole, under a temporary name first: a start that reads it while it
    is written, or a crash half way, finds the old book or none, never half of one."""
    entries = entries or {}
    body = json.dumps(
        {
            "forms": {key: forms[key].as_data() for key in sorted(forms)},
            "entries": {key: entries[key] for key in sorted(entries)},
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()
    heading = {"interpreter": interpreter(), "sha256": hashlib.sha256(body).hexdigest()}
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        # Owner-only, as everything in the data folder.
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(handle, "wb") as file:
            file.write(json.dumps(heading).encode() + b"\n" + body)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


class BookUse:
    """The forms a load used or made (pattern_book), to be kept once writing is allowed."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / BOOK_FILE
        self.forms: dict[str, CompiledForm] = {}
        self.entries: dict[str, object] = {}
        self.changed = False

    def keep(self) -> None:
        """Write the book again when the load did not find every pattern in it, or some
        of it went unused; a book that cannot be written is said once in the log."""
        # The forms are let go either way: a running bot has no more use for them.
        forms, self.forms = self.forms, {}
        entries, self.entries = self.entries, {}
        if not self.changed or not self.path.parent.is_dir():
            return
        try:
            write_book(self.path, forms, entries)
        except OSError as error:
            log_event(
                log, "content.pattern_book_not_written", logging.WARNING, error=type(error).__name__
            )
        else:
            log_event(log, "content.pattern_book_written", patterns=len(forms))
            self.changed = False


@contextmanager
def pattern_book(folder: Path) -> Iterator[BookUse]:
    """Take the patterns compiled inside from the book in `folder` where it holds them.
    A book that cannot be used is said once in the log, without a pattern's text, and
    never stops a start: the patterns are compiled from their text. Nothing is written
    here: `keep()` the use afterwards, once the start may write in the folder."""
    use = BookUse(folder)
    book = _book_in(use.path)
    patterns.open_book(book.forms, book.entries)
    try:
        yield use
    finally:
        closed = patterns.close_book()
    if closed is not None:
        use.forms, use.entries, use.changed = closed.forms, closed.entries, closed.changed


def _book_in(path: Path) -> Book:
    """The book, or an empty one, with why in the log (a missing book in a missing folder
    is a first start, and a folder that is not one is reported by its own check)."""
    try:
        return read_whole_book(path)
    except BookRefused as refused:
        if path.parent.is_dir():
            level = logging.INFO if refused.reason == "missing" else logging.WARNING
            log_event(log, "content.pattern_book_unused", level, reason=refused.reason)
        return Book({})
