"""The words of one crisis reply, in the language it is written in.

That language is a pack locale (English, Spanish: the whole bot speaks it) or a reply
language (German, Arabic ...: only the crisis reply does; see
bot/content_pack/reply_languages.py). Either way the reply asks the same questions of its
words, answered here: a message, opening hours, a country's name, a number set so that it
reads left to right inside right-to-left text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.content_pack.ids import Msg, SafetyMsg
from bot.content_pack.pack import ContentPack, hours_in_words
from bot.content_pack.reply_languages import ReplyLanguage, language_name
from bot.content_pack.schema import CrisisResource

ALWAYS_OPEN = "24/7"

# Unicode's left-to-right isolate and its end. A phone number inside Arabic text is a row
# of digit groups: without these, the groups of "0800 111 0 111" are shown in reverse
# order, and the person dials a number that does not exist.
_LTR_ISOLATE, _END_ISOLATE = "\u2066", "\u2069"
# Languages that write one sentence straight after another, with no space between
# ("…（24時間）。今危険な…").
_UNSPACED = frozenset({"ja", "zh"})
_TIMES = re.compile(r"\d{1,2}:\d{2}\s*[–-]\s*\d{1,2}:\d{2}")


@dataclass(frozen=True, slots=True)
class ReplyWords:
    """One language's words for a crisis reply: `language` is a locale of the pack or a
    complete reply language (`words_for` never makes one of anything else)."""

    content: ContentPack
    language: str
    own: ReplyLanguage | None = None  # set for a reply language, None for a locale

    def text(self, message: Msg, /, **values: str | int) -> str:
        if self.own is not None:
            return self.own.text(message, **values)
        return self.content.text(self.language, message, **values)

    def hours(self, hours: str) -> str:
        """Opening hours as this language writes them: "24/7", "Hours vary" and "Daily" in
        its words, day names from CLDR, times as the data gives them (24-hour)."""
        if hours == ALWAYS_OPEN:
            return self.text(SafetyMsg.HOURS_ALWAYS)
        if self.own is None:
            return self.content.hours(self.language, hours)
        told = hours_in_words(
            hours,
            daily=self.text(SafetyMsg.HOURS_DAILY),
            vary=self.text(SafetyMsg.HOURS_VARY),
            day_names=self.own.day_names(),
        )
        # "9:00–17:00" in right-to-left text would show as "17:00–9:00": kept in order.
        return _TIMES.sub(lambda found: self.ltr(found.group(0)), told)

    def country_label(self, code: str) -> str:
        """For buttons and lists ("United Kingdom", "Vereinigtes Königreich")."""
        if self.own is not None:
            return self.own.country_name(code)
        return self.content.country_label(self.language, code)

    def country_in_sentence(self, code: str) -> str:
        """As the language's sentences hold it: a locale's own form after "in" ("the
        United Kingdom"); a reply language writes its sentences around the plain name."""
        if self.own is not None:
            return self.own.country_name(code)
        return self.content.country_in_sentence(self.language, code)

    def helpline_name(self, resource: CrisisResource) -> str:
        """A helpline's name: the reply language's own where it gives one, else the data's."""
        own = None if self.own is None else self.own.helpline_names.get(resource.id)
        return own or resource.name

    def likely_countries(self) -> tuple[str, ...]:
        """Where someone writing this language most likely is, when nothing else says."""
        if self.own is not None:
            return self.own.likely_countries
        return self.content.likely_countries(self.language)

    def language_name(self, code: str) -> str:
        """A language's name in this language, as CLDR gives it ("Deutsch", "alemán")."""
        return language_name(self.language, code)

    @property
    def right_to_left(self) -> bool:
        return self.own is not None and self.own.right_to_left

    def ltr(self, value: str) -> str:
        """A number, name or address kept in its own left-to-right order inside
        right-to-left text; unchanged elsewhere."""
        return f"{_LTR_ISOLATE}{value}{_END_ISOLATE}" if self.right_to_left else value

    def sentences(self, *told: str) -> str:
        """Sentences one after another, as this language sets them."""
        gap = "" if self.language.split("-")[0] in _UNSPACED else " "
        return gap.join(sentence for sentence in told if sentence)

    def either(self, values: list[str]) -> str:
        """ "A or B or C", in this language."""
        joined = values[0]
        for value in values[1:]:
            joined = self.text(SafetyMsg.SAFETY_OR, first=joined, second=value)
        return joined


def speaks(content: ContentPack, language: str | None) -> bool:
    """Whether a crisis reply can be written wholly in this language."""
    if language is None:
        return False
    if language in content.locales:
        return True
    own = content.reply_languages.get(language)
    return own is not None and own.complete


def words_for(content: ContentPack, language: str) -> ReplyWords:
    """The words of a locale or a complete reply language; anything else (an unknown
    code, a reply language still being written) falls back to the default locale."""
    if language in content.locales:
        return ReplyWords(content, language)
    own = content.reply_languages.get(language)
    if own is not None and own.complete:
        return ReplyWords(content, language, own)
    return ReplyWords(content, content.default_locale)
