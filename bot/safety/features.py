"""What the learned stage reads in a text: hashed character and word n-grams, with numpy.

Training (bot/safety/training.py) and the screen at run time call the same functions
here, so the model is never trained on one reading of a text and run on another.

A text is normalised line by line with the project's normaliser (case, accents, hidden
characters, look-alike quotes), and cut into segments: its lines and sentences, long ones
in pieces. Every feature is a bucket number: the hash of a character n-gram (2 to 4
characters, spaces included, so "to die" is read across its words) or of a word or a pair
of words. The hash is our own polynomial over code points with a fixed multiplicative
mixing step, never Python's salted `hash()`, so a bucket is the same on every machine and
every run. A feature counts once in each segment it is in, however often it is repeated
there (a phrase typed forty times scores as once), and a span of segments is scaled by one
over the square root of its number of features, so a short text and a long one score on
the same scale.

The language head reads the character 2- and 3-grams of a text's first LANGUAGE_SPAN
characters, folded to 2**LANGUAGE_BITS buckets: no second pass over the text.

Everything is whole-array arithmetic (no Python loop per character or word): a 4,096
character message is read in well under a millisecond.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bot.safety.normalise import normalise_lines

VERSION = 3  # bump with any change to what a bucket means; a model of another is refused
BITS = 18  # 262,144 buckets for the safety heads
LANGUAGE_BITS = 15  # the language head's buckets: the same hashes, folded to 32,768
CHAR_SIZES = (2, 3, 4)
LANGUAGE_CHAR_SIZES = (2, 3)
LANGUAGE_SPAN = 600  # characters of a text read for its language
SEGMENT_LIMIT = 240  # a segment longer than this is cut, near a space, into pieces
# A family's number salts its hashes, so the same letters read as a 3-gram and as a word
# land in different buckets: a char n-gram's family is its size, words and pairs come after.
WORD_FAMILY = 10
PAIR_FAMILY = 11

Buckets = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
_Hashes = npt.NDArray[np.uint64]

_MULTIPLIER = 0x100000001B3  # the FNV-1 64-bit prime: odd, so invertible modulo 2**64
_GOLDEN = 0x9E3779B97F4A7C15  # 2**64 over the golden ratio, odd: Fibonacci hashing
_SENTENCE_ENDS = (". ", "! ", "? ")


@dataclass(frozen=True, slots=True)
class Features:
    """A text as the model reads it: every feature's bucket and where it starts, where
    each segment starts, and the language head's buckets."""

    buckets: Buckets  # 0 <= bucket < 2**BITS, each once per segment it is in
    segments: Buckets  # the segment of each (0, 1, ...), in order
    segment_count: int
    language: Buckets  # 0 <= bucket < 2**LANGUAGE_BITS
    # Characters of scripts written without spaces (CJK ideographs, kana, Hangul) in each
    # segment: one of them carries about what three Latin letters do ("死にたい" is four),
    # so a window's length is read with them counted three times (model.MIN_WINDOW_FEATURES).
    wide: Buckets


def model_text(text: str) -> str:
    """`text` as the model reads it: normalised, one segment per line."""
    return segments(normalise_lines(text))


def segments(lined: str) -> str:
    """Text already through `normalise_lines`, one segment per line: its lines and
    sentences, each longer than SEGMENT_LIMIT cut near a space."""
    for end in _SENTENCE_ENDS:
        lined = lined.replace(end, end[0] + "\n")
    found: list[str] = []
    for whole in lined.split("\n"):
        rest = whole.strip()
        while len(rest) > SEGMENT_LIMIT:
            cut = rest.rfind(" ", SEGMENT_LIMIT // 2, SEGMENT_LIMIT)
            cut = cut if cut > 0 else SEGMENT_LIMIT
            found.append(rest[:cut])
            rest = rest[cut:].lstrip()
        if rest:
            found.append(rest)
    return "\n".join(found)


def features(text: str) -> Features:
    """Every feature of `text` (already through `model_text`)."""
    padded = f" {text} "
    narrow = np.frombuffer(padded.encode("utf-32-le"), dtype=np.uint32)
    codes = narrow.astype(np.uint64)
    # The segment of every position: how many line ends come before it.
    newline = narrow == ord("\n")
    segment_at = np.cumsum(newline) - newline
    segment_count = int(segment_at[-1]) + 1
    wide = ((narrow >= 0x2E80) & (narrow <= 0xD7FF)) | ((narrow >= 0xF900) & (narrow <= 0xFAFF))
    buckets: list[Buckets] = []
    segments: list[Buckets] = []
    language: list[Buckets] = []
    rolling = codes
    for size in range(2, max(CHAR_SIZES) + 1):
        rolling = rolling[:-1] * np.uint64(_MULTIPLIER) + codes[size - 1 :]
        found = _bucket(rolling, size)
        buckets.append(found)
        segments.append(segment_at[: len(found)])
        if size in LANGUAGE_CHAR_SIZES:
            language.append(found[:LANGUAGE_SPAN] >> (BITS - LANGUAGE_BITS))
    word_buckets, word_starts = _words(narrow, codes)
    every = np.concatenate([*buckets, word_buckets])
    where = np.concatenate([*segments, segment_at[word_starts]]).astype(np.int64)
    # Each (segment, bucket) once: sorted by segment, then bucket.
    distinct = _distinct(where << BITS | every)
    return Features(
        buckets=distinct & (2**BITS - 1),
        segments=distinct >> BITS,
        segment_count=segment_count,
        language=np.concatenate(language),
        wide=np.bincount(segment_at[wide], minlength=segment_count).astype(np.int64),
    )


def _words(narrow: npt.NDArray[np.uint32], codes: _Hashes) -> tuple[Buckets, Buckets]:
    """Words (runs of anything but spaces and punctuation; an apostrophe stays inside)
    and pairs of neighbouring words, hashed from prefix sums: no Python loop per word.
    Returns their buckets and where each starts."""
    word = _is_word(narrow)
    edges = np.diff(word.astype(np.int8), prepend=np.int8(0), append=np.int8(0))
    begins = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    if len(begins) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # A word's hash is sum(code[i] * M**(i - begin)): the difference of two prefix sums
    # of code[i] * M**i, times the inverse of M**begin (all modulo 2**64).
    length = len(codes)
    prefix = np.zeros(length + 1, dtype=np.uint64)
    np.cumsum(codes * _powers(_MULTIPLIER, length), dtype=np.uint64, out=prefix[1:])
    inverse = pow(_MULTIPLIER, -1, 2**64)
    hashes = (prefix[ends] - prefix[begins]) * _powers(inverse, length)[begins]
    pairs = hashes[:-1] * np.uint64(_MULTIPLIER) + (hashes[1:] ^ np.uint64(_GOLDEN))
    return (
        np.concatenate((_bucket(hashes, WORD_FAMILY), _bucket(pairs, PAIR_FAMILY))),
        np.concatenate((begins, begins[:-1])).astype(np.int64),
    )


def _distinct(keys: Buckets) -> Buckets:
    """The sorted distinct values of `keys`, as `np.unique` gives them: a sort and a
    comparison of neighbours is several times quicker here than its hash table."""
    ordered = np.sort(keys)
    if len(ordered) < 2:
        return ordered
    first = np.empty(len(ordered), dtype=np.bool_)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def _powers(base: int, count: int) -> _Hashes:
    """base**0, base**1, ... base**(count - 1), modulo 2**64: computed once per base for
    the longest text read so far, then sliced."""
    known = _POWERS.get(base)
    if known is None or len(known) < count:
        size = max(count, 2 * _TYPICAL_LENGTH)
        known = np.ones(size, dtype=np.uint64)
        np.cumprod(np.full(size - 1, base, dtype=np.uint64), out=known[1:])
        _POWERS[base] = known
    return known[:count]


_POWERS: dict[int, _Hashes] = {}  # filled on first use, never at import
_TYPICAL_LENGTH = 4_200  # a piece of the rules' 4,096 characters, padded


def _is_word(codes: npt.NDArray[np.uint32]) -> npt.NDArray[np.bool_]:
    """Word characters: everything but spaces, ASCII punctuation and the punctuation
    blocks of Unicode (general, CJK, full-width); letters beyond the first plane (most
    emoji) count as words. One lookup per character in a table of the first plane."""
    return _word_table()[np.minimum(codes, 0xFFFF)]


@functools.cache
def _word_table() -> npt.NDArray[np.bool_]:
    """Built once, on first use."""
    table = np.ones(0x10000, dtype=np.bool_)
    table[:0x80] = [chr(code).isalnum() or chr(code) == "'" for code in range(0x80)]
    table[0x2000:0x2070] = False  # general punctuation, spaces among them
    table[0x3000:0x3040] = False  # CJK symbols and punctuation
    table[0xFF01:0xFF10] = False  # full-width punctuation
    table[0xFF1A:0xFF21] = False
    return table


def _bucket(hashes: _Hashes, family: int) -> Buckets:
    """The top BITS bits of (hash xor family salt) times the golden constant."""
    salt = np.uint64(_GOLDEN * family % 2**64)
    return ((hashes ^ salt) * np.uint64(_GOLDEN) >> np.uint64(64 - BITS)).astype(np.int64)


def vector(found: Features) -> tuple[Buckets, Floats]:
    """The vector a linear model multiplies, for a whole text: each bucket with the number
    of segments it is in, scaled by one over the square root of all of them. A window of
    segments at run time is the same sum over its own segments."""
    unique, counted = np.unique(found.buckets, return_counts=True)
    return unique, counted.astype(np.float64) / np.sqrt(max(1, len(found.buckets)))


def counts(buckets: Buckets) -> tuple[Buckets, Floats]:
    """Each bucket once, with its count scaled by one over the square root of all counts
    (the language head's vector)."""
    unique, counted = np.unique(buckets, return_counts=True)
    scale = 1.0 / np.sqrt(max(1, len(buckets)))
    return unique, counted.astype(np.float64) * scale
