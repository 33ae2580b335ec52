"""What the learned stage reads in a text: hashed character and word n-grams, with numpy.

Training (bot/safety/training.py) and the screen at run time call the same functions
here, so the model is never trained on one reading of a text and run on another.

A text is normalised line by line with the project's normaliser (case, accents, hidden
characters, look-alike quotes), and cut into segments: its lines and sentences, long ones
in pieces. Every feature is a bucket number: the hash of a character n-gram (2 to 4
characters, spaces included, so "to die" is read across its words) or of a word or a pair
of words. The hash is our own polynomial over code points with a fixed mixing step, never
Python's salted `hash()`, so a bucket is the same on every machine and every run. The
features of a span of segments count once each, scaled by one over the square root of
their number, so a short text and a long one score on the same scale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bot.safety.normalise import normalise_lines

BITS = 18  # 262,144 buckets for the safety head
LANGUAGE_BITS = 15  # the language head reads the same buckets, folded to 32,768
CHAR_SIZES = (2, 3, 4)
LANGUAGE_CHAR_SIZES = (1, 2, 3)  # enough to tell languages apart, and cheap
LANGUAGE_SPAN = 600  # characters of a text read for its language
SEGMENT_LIMIT = 240  # a segment longer than this is cut, near a space, into pieces
# A family's number salts its hashes, so the same letters read as a 3-gram and as a word
# land in different buckets: a char n-gram's family is its size, words and pairs come after.
WORD_FAMILY = 10
PAIR_FAMILY = 11

Buckets = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

_MULTIPLIER = np.uint64(0x100000001B3)  # the FNV-1 64-bit prime: odd, so invertible mod 2**64
_INVERSE = np.uint64(pow(0x100000001B3, -1, 2**64))
_SALT_INT = 0x9E3779B97F4A7C15  # the golden ratio's fraction in 64 bits
_SALT = np.uint64(_SALT_INT)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_SEGMENT_END = re.compile(r"(?<=[.!?]) |\n")
_SPACE_CODE = 0x20


@dataclass(frozen=True, slots=True)
class Family:
    """One family's features over a text, in the order they start."""

    buckets: Buckets  # bucket numbers, 0 <= b < 2**BITS
    starts: Buckets  # where each feature starts in the text


@dataclass(frozen=True, slots=True)
class Features:
    """A text as the model reads it: its families of features, and where its segments begin."""

    text: str  # normalised, one segment a line
    families: tuple[Family, ...]
    segment_starts: Buckets  # the character position of each segment, in order

    @property
    def count(self) -> int:
        return sum(len(family.buckets) for family in self.families)


def model_text(text: str) -> str:
    """`text` as the model reads it: normalised, one segment per line."""
    return segments(normalise_lines(text))


def segments(lined: str) -> str:
    """Text already through `normalise_lines`, one segment per line: its lines and
    sentences, each longer than SEGMENT_LIMIT cut near a space."""
    found: list[str] = []
    for whole in _SEGMENT_END.split(lined):
        rest = whole
        while len(rest) > SEGMENT_LIMIT:
            cut = rest.rfind(" ", SEGMENT_LIMIT // 2, SEGMENT_LIMIT)
            cut = cut if cut > 0 else SEGMENT_LIMIT
            found.append(rest[:cut])
            rest = rest[cut:].lstrip()
        if rest:
            found.append(rest)
    return "\n".join(found)


def features(text: str, char_sizes: tuple[int, ...] = CHAR_SIZES, words: bool = True) -> Features:
    """Every feature of `text` (already through `model_text`), family by family."""
    padded = f" {text} "
    codes = np.frombuffer(padded.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    families: list[Family] = []
    rolling = codes.copy()
    for size in range(1, max(char_sizes) + 1):
        if size > 1:
            rolling = rolling[:-1] * _MULTIPLIER + codes[size - 1 :]
        if size in char_sizes:
            starts = np.arange(len(rolling), dtype=np.int64)
            families.append(Family(_bucket(rolling, size), starts))
    if words:
        families += _word_families(codes)
    newlines = np.flatnonzero(codes == ord("\n"))
    segment_starts = np.concatenate(([0], newlines + 1)).astype(np.int64)
    return Features(text, tuple(families), segment_starts)


def _word_families(codes: npt.NDArray[np.uint64]) -> list[Family]:
    """Words (runs of letters, digits, apostrophes and any other non-separator) and pairs
    of neighbouring words, hashed from prefix sums so no Python loop runs per word."""
    word = _is_word(codes)
    edges = np.diff(np.concatenate(([False], word, [False])).astype(np.int8))
    begins = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    if len(begins) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return [Family(empty, empty), Family(empty, empty)]
    # A word's hash is sum(code[i] * M**(i - begin)): the difference of two prefix sums
    # of code[i] * M**i, times the inverse of M**begin (all modulo 2**64).
    powers = _powers(_MULTIPLIER, len(codes))
    prefix = np.zeros(len(codes) + 1, dtype=np.uint64)
    np.cumsum(codes * powers, dtype=np.uint64, out=prefix[1:])
    hashes = (prefix[ends] - prefix[begins]) * _powers(_INVERSE, len(codes))[begins]
    pairs = np.asarray(hashes[:-1] * _MULTIPLIER + (hashes[1:] ^ _SALT), dtype=np.uint64)
    return [
        Family(_bucket(hashes, WORD_FAMILY), begins.astype(np.int64)),
        Family(_bucket(pairs, PAIR_FAMILY), begins[:-1].astype(np.int64)),
    ]


def _powers(base: np.uint64, count: int) -> npt.NDArray[np.uint64]:
    """base**0, base**1, ... base**(count - 1), modulo 2**64."""
    powers = np.ones(count, dtype=np.uint64)
    np.cumprod(np.full(count - 1, base, dtype=np.uint64), out=powers[1:])
    return powers


def _is_word(codes: npt.NDArray[np.uint64]) -> npt.NDArray[np.bool_]:
    """Word characters: everything but spaces, ASCII punctuation and the punctuation
    blocks of Unicode (general, CJK, full-width); an apostrophe stays inside a word."""
    ascii_separator = (codes < 0x80) & ~_ASCII_WORD[np.minimum(codes, 0x7F)]
    general = (codes >= 0x2000) & (codes < 0x2070)
    cjk = (codes >= 0x3000) & (codes < 0x3040)
    full_width = ((codes >= 0xFF01) & (codes < 0xFF10)) | ((codes >= 0xFF1A) & (codes < 0xFF21))
    return np.asarray(~(ascii_separator | general | cjk | full_width), dtype=np.bool_)


_ASCII_WORD = np.array([chr(code).isalnum() or chr(code) == "'" for code in range(0x80)])


def _bucket(hashes: npt.NDArray[np.uint64], family: int) -> Buckets:
    """A well-mixed hash (the splitmix64 finaliser, salted by family), cut to BITS bits."""
    mixed = hashes ^ np.uint64(_SALT_INT * (family + 1) % 2**64)
    mixed = (mixed ^ (mixed >> np.uint64(30))) * _MIX_1
    mixed = (mixed ^ (mixed >> np.uint64(27))) * _MIX_2
    mixed = mixed ^ (mixed >> np.uint64(31))
    return (mixed >> np.uint64(64 - BITS)).astype(np.int64)


def language_buckets(text: str) -> Buckets:
    """The buckets the language head reads: short character n-grams of the text's start,
    folded to 2**LANGUAGE_BITS."""
    found = features(text[:LANGUAGE_SPAN], LANGUAGE_CHAR_SIZES, words=False)
    every = np.concatenate([family.buckets for family in found.families])
    return every >> (BITS - LANGUAGE_BITS)


def counts(buckets: Buckets) -> tuple[Buckets, Floats]:
    """Each bucket once, with its count scaled by one over the square root of all counts:
    the vector a linear model multiplies."""
    unique, counted = np.unique(buckets, return_counts=True)
    scale = 1.0 / np.sqrt(max(1, len(buckets)))
    return unique, counted.astype(np.float64) * scale


def all_buckets(found: Features) -> Buckets:
    return np.concatenate([family.buckets for family in found.families])
