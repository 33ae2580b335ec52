"""The safety screen: runs on every piece of free text before any flow sees it.

A crisis reply is built from the content pack alone: no database write, no
lock, no queue stands between the message and the answer. Its words and order are
composed in bot/safety/crisis_reply.py; this module decides whether a text needs one,
and SafetyScreen's methods are what the router calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import DetectionFile
from bot.core.clock import Clock, SystemClock
from bot.core.replies import Reply
from bot.safety.buttons import (
    CHECK_BUTTONS,
    CHECK_HELP,
    CHECK_HELP_DANGER,
    CHECK_SAFE,
    DANGER_SUFFIX,
    SAFETY_BUTTONS,
    SOS_CARD,
    SOS_COUNTRY,
    SOS_MISREAD,
    SOS_MORE,
    SOS_PLAN,
    SOS_SHOW,
    of_kind,
)
from bot.safety.crisis_reply import CrisisReplies, Voice, Whereabouts, plan_emergency
from bot.safety.emergency_lines import ReplyKind, helplines, ranked, resource_line
from bot.safety.reply_language import asked_language, written_language
from bot.safety.reply_words import words_for
from bot.safety.rules import (
    Detection,
    Detector,
    ReplyLevel,
    RuleBook,
)
from bot.safety.second_stage import stage_for
from bot.safety.text_language import Vocabularies

# The buttons' data, as the router and tests have long read it from here.
__all__ = [
    "CHECK_BUTTONS",
    "CHECK_HELP",
    "CHECK_HELP_DANGER",
    "CHECK_SAFE",
    "DANGER_SUFFIX",
    "SAFETY_BUTTONS",
    "SOS_CARD",
    "SOS_COUNTRY",
    "SOS_MISREAD",
    "SOS_MORE",
    "SOS_PLAN",
    "SOS_SHOW",
    "SafetyScreen",
    "ScreenResult",
]


@dataclass(frozen=True, slots=True)
class _Compiled:
    """What a screen reads of its pack, made once per pack."""

    content: ContentPack  # kept, so its id stays its own
    detectors: dict[str, Detector]
    rule_languages: dict[str, str]
    vocabularies: Vocabularies


# Compiled detectors by pack. Compiling every language's rules takes a noticeable moment, and
# a process has one pack (tests share theirs), so each pack is compiled once, however many
# screens are built on it (a start builds one as it loads the pack, the Router another).
_COMPILED: dict[int, _Compiled] = {}
_COMPILED_PACKS = 4


def _compiled_for(content: ContentPack) -> _Compiled:
    """The pack's detectors (`detectors_for`) and the languages' vocabularies, made once
    per pack."""
    found = _COMPILED.get(id(content))
    if found is not None and found.content is content:
        return found
    if len(_COMPILED) >= _COMPILED_PACKS:
        _COMPILED.clear()
    own = {locale: pack.detection for locale, pack in content.locales.items()}
    found = _COMPILED[id(content)] = _Compiled(
        content,
        detectors_for(own, content.languages),
        _rule_languages(content),
        Vocabularies.of(content),
    )
    return found


def detectors_for(
    locales: Mapping[str, DetectionFile], languages: Sequence[DetectionFile]
) -> dict[str, Detector]:
    """Each locale's rules with every language's, the locale's own tried first: someone
    whose locale is Spanish may still write in English, and their crisis words must be
    read all the same. Every locale screens the same rules, so they are compiled once,
    into one book; each locale's detector only orders it (its own file first, then the
    other locales', then the languages'), so a match names the rule of the user's own
    language where two languages' rules match the same words."""
    names = sorted(locales)
    book = RuleBook.of([*(locales[name] for name in names), *languages])
    others = range(len(names), len(book.files))
    return {
        locale: book.detector(
            [own, *(other for other in range(len(names)) if other != own), *others]
        )
        for own, locale in enumerate(names)
    }


@dataclass(frozen=True, slots=True)
class ScreenResult:
    detection: Detection
    replies: tuple[Reply, ...]


def _rule_languages(content: ContentPack) -> dict[str, str]:
    """Each rule's id to the language of the file it is written in."""
    files = [pack.detection for pack in content.locales.values()] + list(content.languages)
    return {rule.id: file.locale for file in files for rule in file.rules}


class SafetyScreen:
    """The screen and the replies it gives. `locale` is always the user's own; `language`,
    where given, the language a reply is written in instead (a press on a button of a
    reply in another language carries it)."""

    def __init__(
        self, content: ContentPack, clock: Clock | None = None, model_raises: bool = True
    ) -> None:
        self._content = content
        # Today's date says which years are the past ("in 2015" softens crisis words).
        self._clock = clock or SystemClock()
        # Whether the learned stage may raise a message to the check, or only reads it.
        self._model_raises = model_raises
        compiled = _compiled_for(content)
        self._detectors = compiled.detectors
        self._rule_languages = compiled.rule_languages
        self._vocabularies = compiled.vocabularies
        self._replies = CrisisReplies(content)
        self.second_stage = stage_for(content.folder)  # the learned model behind the rules

    def reply_locale(
        self, detection: Detection, locale: str, app_language: str | None = None
    ) -> str:
        """The language to answer a crisis in: the user's, unless they wrote it in another
        language a crisis reply speaks ("quiero morirme", "ich will nicht mehr leben" from an
        English app). Someone in crisis is answered in the words they used, not their
        phone's setting (bot/safety/reply_language.py)."""
        return written_language(
            self._content,
            self._rule_languages,
            detection,
            locale,
            app_language,
            self._vocabularies,
        )

    def sos_language(self, locale: str, app_language: str | None) -> str:
        """The language of /sos, which carries no words: see reply_language.asked_language."""
        return asked_language(self._content, locale, app_language)

    def detector(self, locale: str) -> Detector:
        """The locale's rules, else the default locale's, as the pack's own lookups fall back."""
        return self._detectors.get(locale) or self._detectors[self._content.default_locale]

    def detect(self, text: str, locale: str) -> Detection:
        """The rules, read on the screen's today (a year before it is the past), then the
        learned stage on what they leave below a check."""
        return self.second_stage.detect(
            self.detector(locale), text, self._clock.now().date(), self._model_raises
        )

    def screen(
        self,
        text: str,
        locale: str,
        country: str | None,
        is_group: bool,
        has_plan: bool = False,
        where: Whereabouts | None = None,
    ) -> ScreenResult | None:
        """The replies that must go out first, or None when the text needs none: the full
        reply for crisis or danger, a short check when the words are softened by context."""
        detection = self.detect(text, locale)
        app_language = None if where is None else where.language_code
        voice = self._replies.voice(locale, self.reply_locale(detection, locale, app_language))
        match detection.reply:
            case ReplyLevel.CRISIS | ReplyLevel.DANGER:
                kind = (
                    ReplyKind.DANGER if detection.reply is ReplyLevel.DANGER else ReplyKind.CRISIS
                )
                reply = self._replies.full(voice, country, kind, has_plan, where)
            case ReplyLevel.CHECK:
                reply = self._replies.check(voice, danger=detection.check_leans_danger)
            case _:
                return None
        return ScreenResult(detection, (self._replies.in_private(voice, reply, is_group),))

    def full_reply(
        self,
        locale: str,
        country: str | None,
        danger_first: bool,
        has_plan: bool = False,
        language: str | None = None,
        where: Whereabouts | None = None,
        misread: bool = True,
    ) -> Reply:
        """The intro, then every contact: the answer to crisis or danger said plainly.
        `misread`: False where the person chose this reply (no "you misread me")."""
        kind = ReplyKind.DANGER if danger_first else ReplyKind.CRISIS
        voice = self._replies.voice(locale, language)
        return self._replies.full(voice, country, kind, has_plan, where, misread)

    def check_reply(self, locale: str, danger: bool, language: str | None = None) -> Reply:
        """One kind line and two buttons, for words softened by their context."""
        return self._replies.check(self._replies.voice(locale, language), danger)

    def pressed(
        self,
        data: str,
        locale: str,
        country: str | None,
        is_group: bool,
        has_plan: bool = False,
        language: str | None = None,
        where: Whereabouts | None = None,
    ) -> list[Reply] | None:
        """A press on a button of a crisis reply or a check that needs nothing but the pack
        (`data` without its language: buttons.untagged), answered in `language`. None for
        data it does not know (a country is chosen by the router: it is stored)."""
        plain, kind = of_kind(data)
        if data in CHECK_BUTTONS:
            return self.check_pressed(data, locale, country, is_group, has_plan, language, where)
        if data == SOS_SHOW:
            at = where or Whereabouts()
            return self.sos_replies(
                locale, country, is_group, at.timezone, has_plan, language, at.language_code
            )
        if data == SOS_MISREAD:
            return [self.misread_reply(locale, language)]
        if plain == SOS_MORE:
            voice = self._replies.voice(locale, language)
            return [self._replies.more(voice, country, kind, where)]
        if data == SOS_CARD:
            return [self.safety_card_reply(locale, language)]
        return None

    def check_pressed(
        self,
        data: str,
        locale: str,
        country: str | None,
        is_group: bool,
        has_plan: bool = False,
        language: str | None = None,
        where: Whereabouts | None = None,
    ) -> list[Reply] | None:
        """A press on a check's button: the full reply, or a short acknowledgement."""
        voice = self._replies.voice(locale, language)
        reply = self._replies.check_answered(voice, data, country, has_plan, where)
        if reply is None:
            return None
        return [reply if data == CHECK_SAFE else self._replies.in_private(voice, reply, is_group)]

    def resources_reply(
        self,
        locale: str,
        country: str | None,
        danger_first: bool = False,
        timezone: str | None = None,
        safety_card: bool | None = None,
        misread: bool = True,
        language: str | None = None,
        app_language: str | None = None,
    ) -> Reply:
        """The numbers to dial and the helplines, without the first line of a crisis reply.
        Without a known country: the likeliest countries' numbers, and countries to tap.
        `misread`: the "you misread me" button, for replies to what someone wrote (not for
        helplines someone asked for)."""
        kind = ReplyKind.DANGER if danger_first else ReplyKind.CRISIS
        where = Whereabouts(timezone, app_language)
        voice = self._replies.voice(locale, language)
        return self._replies.numbers(voice, country, kind, where, safety_card, misread)

    def more_helplines_reply(
        self,
        locale: str,
        country: str | None,
        danger_first: bool | ReplyKind,
        language: str | None = None,
    ) -> Reply:
        """The helplines the first message left out ("More helplines")."""
        kind = _kind(danger_first)
        return self._replies.more(self._replies.voice(locale, language), country, kind)

    def safety_card_reply(self, locale: str, language: str | None = None) -> Reply:
        """Privacy and safety tips for danger from another person, behind a button."""
        return self._replies.card(self._replies.voice(locale, language))

    def country_chosen_reply(
        self,
        locale: str,
        country: str,
        danger_first: bool | ReplyKind,
        saved: bool,
        has_plan: bool = False,
        language: str | None = None,
    ) -> Reply:
        """After a country button: its numbers, and (when it was stored) how to change it."""
        voice = self._replies.voice(locale, language)
        return self._replies.country_chosen(voice, country, _kind(danger_first), saved, has_plan)

    def sos_replies(
        self,
        locale: str,
        country: str | None,
        is_group: bool,
        timezone: str | None = None,
        has_plan: bool = False,
        language: str | None = None,
        app_language: str | None = None,
    ) -> list[Reply]:
        """/sos: the numbers, a crisis line and an abuse line first, privately when asked
        in a group."""
        voice = self._replies.voice(locale, language)
        where = Whereabouts(timezone, app_language)
        reply = self._replies.numbers(voice, country, ReplyKind.HELP, where)
        reply = self._replies.with_plan(voice, reply, has_plan)
        return [self._replies.in_private(voice, reply, is_group)]

    def misread_reply(self, locale: str, language: str | None = None) -> Reply:
        return self._replies.misread(self._replies.voice(locale, language))

    def voice(self, locale: str, language: str | None = None) -> Voice:
        return self._replies.voice(locale, language)

    def plan_lines(self, locale: str, country: str | None) -> list[str]:
        """The country's emergency number and helplines, one a line, crisis lines first, as
        the crisis reply ranks them: offered to keep in a safety plan. None without one."""
        numbers = self._content.emergency_numbers(country)
        if numbers is None:
            return []
        words = words_for(self._content, locale)
        lines = ranked(helplines(self._content, words, numbers.code), ReplyKind.CRISIS.lead)
        return [plan_emergency(words, numbers), *(resource_line(words, line) for line in lines)]


def _kind(danger_first: bool | ReplyKind) -> ReplyKind:
    if isinstance(danger_first, ReplyKind):
        return danger_first
    return ReplyKind.DANGER if danger_first else ReplyKind.CRISIS
