"""Runs of eight words that two items of a locale share.

Every sentence of the pack is written for one place. Eight words in a row that turn up in
two items mean one was written from the other, or from a stock phrase, so the content
check fails on them. What is one item: a message with its plural forms and its platform
wordings (`forget.done`, `forget.done@telegram`), an exercise with its steps, a command
with both its descriptions. Phrases the pack repeats on purpose are listed in its house
style and left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.content_pack.findings import Finding

RUN = 8
_WORD = re.compile(r"\w+(?:['’]\w+)*")


def words_of(text: str) -> list[str]:
    """Words as the run compares them: any case, placeholders' names as words."""
    return [word.casefold().replace("’", "'") for word in _WORD.findall(text)]


def item_of(where: str) -> str:
    """ "messages.yaml forget.done@telegram (one)" -> "messages.yaml forget.done"."""
    file_name, _, rest = where.partition(" ")
    return f"{file_name} {rest.split(' ')[0].split('@')[0]}"


def _runs(words: list[str]) -> Iterable[tuple[str, ...]]:
    for start in range(len(words) - RUN + 1):
        yield tuple(words[start : start + RUN])


def find_shared_runs(
    locale: str, texts: Iterable[tuple[str, str]], on_purpose: Iterable[str] = ()
) -> list[Finding]:
    """One finding per pair of items that share a run, naming the first run they share."""
    allowed = {run for phrase in on_purpose for run in _runs(words_of(phrase))}
    owner: dict[tuple[str, ...], str] = {}
    pairs: dict[tuple[str, str], tuple[str, ...]] = {}
    for where, text in texts:
        item = item_of(where)
        for run in _runs(words_of(text)):
            if run in allowed:
                continue
            first = owner.setdefault(run, item)
            if first != item:
                pairs.setdefault((first, item), run)
    return [
        Finding(f"{locale}/{second}", f"shares 8 words with {first}: {' '.join(run)!r}")
        for (first, second), run in pairs.items()
    ]
