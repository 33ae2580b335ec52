"""Yes and no as people type them, in every language the pack reads ("yes", "sí", "ja",
"oui", "nahi"), and the words they put before a place ("i live in", "vivo en").

The words are the pack's (`content/<locale>/answers.yaml`, `content/answers/*.yaml`);
this module only folds them once per pack and compares. A yes or a no is never a
country's or a zone's code: `is_yes_or_no` is what the readers of places and countries
ask before they try a code.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.content_pack.pack import ContentPack
from bot.flows.parsing.folding import fold


class Answer(StrEnum):
    YES = "yes"
    NO = "no"


@dataclass(frozen=True, slots=True)
class TypedWords:
    yes: frozenset[str]  # folded phrases ("yes", "that s right", "si")
    no: frozenset[str]
    # Folded, longest first, so "i live in" is tried before "in".
    place_leads: tuple[str, ...]
    # Single words that are a yes or a no alone: "yeah ok" and "no no" are answers too.
    yes_words: frozenset[str]
    no_words: frozenset[str]


_WORDS: dict[int, tuple[ContentPack, TypedWords]] = {}


def typed_words(content: ContentPack) -> TypedWords:
    """The pack's words, folded: once per pack (a process has one; tests share theirs)."""
    found = _WORDS.get(id(content))
    if found is not None and found[0] is content:
        return found[1]
    files = content.every_answers_file()
    yes = frozenset(fold(word) for file in files for word in file.yes) - {""}
    no = frozenset(fold(word) for file in files for word in file.no) - {""}
    leads = {fold(word) for file in files for word in file.place_leads} - {""}
    words = TypedWords(
        yes=yes,
        no=no,
        place_leads=tuple(sorted(leads, key=lambda lead: (-len(lead), lead))),
        yes_words=frozenset(word for word in yes if " " not in word),
        no_words=frozenset(word for word in no if " " not in word),
    )
    if len(_WORDS) >= 4:
        _WORDS.clear()
    _WORDS[id(content)] = (content, words)
    return words


def yes_or_no(content: ContentPack, text: str) -> Answer | None:
    """YES or NO when `text` is only a yes or only a no ("Yes!", "sí, gracias", "yeah ok",
    "nope"), in any language of the pack; None for anything else ("no, Spain")."""
    folded = fold(text)
    if not folded:
        return None
    words = typed_words(content)
    if folded in words.yes:
        return Answer.YES
    if folded in words.no:
        return Answer.NO
    said = folded.split()
    if all(word in words.yes_words for word in said):
        return Answer.YES
    if all(word in words.no_words for word in said):
        return Answer.NO
    return None


def is_yes_or_no(content: ContentPack, text: str) -> bool:
    return yes_or_no(content, text) is not None


def without_place_lead(content: ContentPack, text: str) -> str | None:
    """ "I live in Leeds" -> "Leeds", "vivo en Sevilla" -> "Sevilla": the text after the
    first words that only say a place follows. None when it has no such words."""
    stripped = text.strip()
    folded = fold(stripped)
    for lead in typed_words(content).place_leads:
        if folded.startswith(lead + " "):
            rest = _after_words(stripped, len(lead.split()))
            if rest:
                return rest
    return None


def _after_words(text: str, count: int) -> str:
    """`text` less its first `count` words, as written (a folded word may be written
    with an apostrophe inside it: "i'm" folds to two words)."""
    folded_words = 0
    position = 0
    pieces = text.split()
    for index, piece in enumerate(pieces):
        folded_words += len(fold(piece).split())
        position = index + 1
        if folded_words >= count:
            break
    return " ".join(pieces[position:]).strip(" ,.:;")
