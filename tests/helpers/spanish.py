"""What a Spanish-speaking user must never read: the English pack's words.

A fragment is a run of at least three words of an English message or item, between its
placeholders. Fragments the Spanish pack holds too (a helpline's proper name, a URL) are
not English to this check. Button labels are compared whole, as they are short; the
language buttons are left out, since each names its language in that language."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from bot.content_pack.audit import texts_of
from bot.content_pack.ids import OnboardingMsg
from bot.content_pack.locale_checks import BUTTON_LABELS
from bot.content_pack.pack import ContentPack, LocaleContent

_PLACEHOLDER = re.compile(r"\{[^}]*\}")
_EDGES = " \t\n.,;:!?¿¡()\"'«»—–-"
MIN_WORDS = 3


def _fragments(content: LocaleContent) -> Iterator[str]:
    for _, text in texts_of(content):
        for part in _PLACEHOLDER.split(text):
            for line in part.splitlines():
                fragment = line.strip(_EDGES)
                if len(fragment.split()) >= MIN_WORDS:
                    yield fragment.casefold()


def english_only(content: ContentPack) -> list[str]:
    spanish = "\n".join(text.casefold() for _, text in texts_of(content.content("es")))
    return sorted({f for f in _fragments(content.content("en")) if f not in spanish})


def english_labels(content: ContentPack) -> set[str]:
    """The English words of every button the pack labels, less those Spanish shares."""

    def labels(locale: str) -> set[str]:
        found: set[str] = set()
        for message in BUTTON_LABELS - {OnboardingMsg.LANGUAGE_NAME}:  # each language names itself
            value = content.content(locale).messages.get(message.value)
            if value is not None:
                found |= {value} if isinstance(value, str) else set(value.values())
        return found

    return labels("en") - labels("es")


def english_in(content: ContentPack, texts: Iterable[str], labels: Iterable[str] = ()) -> list[str]:
    """Every English fragment found in `texts`, and every button label that is English."""
    said = "\n".join(texts).casefold()
    found = [fragment for fragment in english_only(content) if fragment in said]
    english = english_labels(content)
    return found + [label for label in labels if label in english]
