"""The finders of the screen's index (starts.py): one pattern that finds, wherever it
is, the longest of a listing's beginnings, written as a trie of them."""

from __future__ import annotations

import math
import re


def _trie(words: list[str]) -> str:
    """An alternation of `words` that always takes the longest one that fits: each letter
    branches once, and stopping early is the last choice at every step."""
    branches: dict[str, list[str]] = {}
    ends = False
    for word in words:
        if word:
            branches.setdefault(word[0], []).append(word[1:])
        else:
            ends = True
    alternatives = [re.escape(first) + _trie(rests) for first, rests in branches.items()]
    if not alternatives:
        return ""
    if ends:
        alternatives.append("")
    if len(alternatives) == 1:
        return alternatives[0]
    return "(?:" + "|".join(alternatives) + ")"


def grouped_trie(listed: dict[str, list[int]]) -> str:
    """The trie of every beginning, its first letters split into groups of about the
    square root of their number. The regex engine skips a group whose class holds no
    letter at a place in one step, and tries the letters of a group one by one only where
    the class matched: some twenty steps at a place instead of one for each of the
    hundreds of first letters of eleven scripts. The longest beginning still wins."""
    by_first: dict[str, list[str]] = {}
    for text in sorted(listed):
        by_first.setdefault(text[0], []).append(text[1:])
    firsts = sorted(by_first)
    size = max(1, math.isqrt(len(firsts)))
    groups = [firsts[at : at + size] for at in range(0, len(firsts), size)]
    return (
        "(?:"
        + "|".join(
            class_of(group)
            + "(?:"
            + "|".join(f"(?<={re.escape(first)}){_trie(by_first[first])}" for first in group)
            + ")"
            for group in groups
        )
        + ")"
    )


def class_of(letters: list[str]) -> str:
    return "[" + "".join(re.escape(letter) for letter in letters) + "]"
