"""Which language a message's words belong to, from words we wrote in each language.

The screen names one rule per intent, trying the user's own language's rules first, and a
word can match a rule of another language than the one it is written in: "je veux me
suicider" from an English app is named by the English rule for "suicid-", though every
other word is French. So the reply's language also weighs the message's other words. Each
language's vocabulary is the words of its own crisis reply and the example phrases its
safety rules give (their `note`), all written by us and normalised as the screen normalises
a message; languages are compared by how many of the message's words each one has.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.content_pack.pack import ContentPack
from bot.content_pack.reply_languages import REPLY_MESSAGES
from bot.safety.normalise import normalise
from bot.safety.reply_words import speaks

_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_URL = re.compile(r"\S+://\S+|/\w+")
_WORD = re.compile(r"[^\W\d_]+")
_REPLY_KEYS = frozenset(message.value for message in REPLY_MESSAGES)


@dataclass(frozen=True, slots=True)
class Vocabularies:
    """Each reply language's words (its code: "fr", "hi-latn"), normalised."""

    words: Mapping[str, frozenset[str]]

    @classmethod
    def of(cls, content: ContentPack) -> Vocabularies:
        texts: dict[str, list[str]] = {}
        for code, locale in content.locales.items():
            texts[code] = [
                text
                for key, text in locale.messages.items()
                if isinstance(text, str) and key in _REPLY_KEYS
            ]
            texts[code] += [rule.note for rule in locale.detection.rules]
        for code, language in content.reply_languages.items():
            texts.setdefault(code, []).extend(language.messages.values())
        for file in content.languages:
            texts.setdefault(file.locale, []).extend(rule.note for rule in file.rules)
        return cls(
            {code: _words_of(found) for code, found in texts.items() if speaks(content, code)}
        )

    def preferred(self, normalised: str, chosen: str, familiar: Sequence[str] = ()) -> str:
        """`chosen`, unless more of the message's words belong to another language: the
        one that has most of them, or among several that have as many, the first of
        `familiar` (the user's locale, their app's language) that is one of them."""
        said = _words_in(normalised)
        scores = {code: len(said & words) for code, words in self.words.items()}
        best = max(scores.values(), default=0)
        if best <= scores.get(chosen, 0):
            return chosen
        leaders = [code for code, score in scores.items() if score == best]
        if len(leaders) == 1:
            return leaders[0]
        return next((code for code in familiar if code in leaders), chosen)


def _words_of(texts: Iterable[str]) -> frozenset[str]:
    found: set[str] = set()
    for text in texts:
        plain = _URL.sub(" ", _PLACEHOLDER.sub(" ", text))
        found.update(_words_in(normalise(plain)))
    return frozenset(found)


def _words_in(normalised: str) -> set[str]:
    """Words of two letters or more: a single letter ("a", "e", "i") belongs to many
    languages, and a word spelled out letter by letter ("k i l l") to none of them."""
    return {word for word in _WORD.findall(normalised) if len(word) > 1}
