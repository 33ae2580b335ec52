"""The loaded content pack: every sentence the bot can say, per locale."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.content_pack.ids import Command, Msg
from bot.content_pack.schema import (
    Affirmation,
    CheckInReply,
    CommandInfo,
    CountryResources,
    CrisisFile,
    DetectionContext,
    DetectionFile,
    Exercise,
    Opening,
    Reflection,
)
from bot.safety.rules import PRIORITY, CompiledRule, ContextCues, Detector, Intent


@dataclass(frozen=True)
class LocaleContent:
    locale: str
    messages: dict[str, str]
    commands: tuple[CommandInfo, ...]
    affirmations: list[Affirmation]
    openings: list[Opening]
    checkin_replies: list[CheckInReply]
    exercises: list[Exercise]
    reflections: list[Reflection]
    detection: DetectionFile
    detector: Detector
    crisis: CrisisFile


def compile_detector(files: list[DetectionFile]) -> Detector:
    """One detector for every language's rules, so a message is screened in all of them
    whatever the user's locale. Compiled once at load; every pattern already compiles."""
    exceptions = [re.compile(item.pattern) for file in files for item in file.exceptions]
    # The context cues of all languages together: a word can match a rule of another
    # language than the one it is written in ("suicidio" matches an English rule), and
    # the signs around it are then in its own.
    cues = _compile_cues([file.context for file in files if file.context is not None])
    rules = [
        CompiledRule(
            rule.id,
            Intent(rule.intent),
            re.compile(rule.pattern),
            cues,
        )
        for file in files
        for rule in file.rules
    ]
    # The most urgent rules first, whatever their language: once a full crisis match is
    # found, the other crisis rules need not run.
    rules.sort(key=lambda rule: PRIORITY.index(rule.intent))
    return Detector(exceptions=tuple(exceptions), rules=tuple(rules))


def _compile_cues(contexts: list[DetectionContext]) -> ContextCues:
    def cue(field: str, words: bool = False, ending: bool = False) -> re.Pattern[str] | None:
        patterns = [getattr(context, field) for context in contexts]
        joined = "|".join(f"(?:{pattern})" for pattern in patterns if pattern is not None)
        if not joined:
            return None
        if ending:  # read just before a match: it must end where the match begins
            return re.compile(rf"(?<!\w)(?:{joined})\W*$")
        return re.compile(rf"(?<!\w)(?:{joined})(?!\w)" if words else joined)

    return ContextCues(
        negation=cue("negation", ending=True),
        contrast=cue("contrast"),
        other_reflexive=cue("other_reflexive", words=True),
        distant_past=cue("distant_past"),
        accident=cue("accident"),
        title=cue("title", ending=True),
        present=cue("present"),
        first_person=cue("first_person", words=True),
        other_person=cue("other_person", words=True),
        other_object=cue("other_object", words=True),
        first_object=cue("first_object", words=True),
        possessive=cue("possessive", words=True),
        recipient=cue("recipient", words=True),
        topic=cue("topic", words=True),
        clause_break=cue("clause_break", words=True),
    )


@dataclass(frozen=True)
class ContentPack:
    default_locale: str
    locales: dict[str, LocaleContent]

    def resolve_locale(self, language_code: str | None) -> str:
        """The pack locale for a platform language code such as `de-AT`, else the default."""
        if language_code:
            code = language_code.strip().lower().replace("_", "-")
            for candidate in (code, code.split("-", 1)[0]):
                if candidate in self.locales:
                    return candidate
        return self.default_locale

    def content(self, locale: str) -> LocaleContent:
        return self.locales.get(locale) or self.locales[self.default_locale]

    def text(self, locale: str, message: Msg, **values: str | int) -> str:
        template = self.content(locale).messages.get(message.value)
        if template is None:  # a partial translation falls back to the default locale
            template = self.locales[self.default_locale].messages[message.value]
        # Placeholders were checked against ids.PLACEHOLDERS when the pack loaded.
        return template.format(**values) if values else template

    def affirmations(self, locale: str) -> list[Affirmation]:
        return self.content(locale).affirmations

    def openings(self, locale: str) -> list[Opening]:
        return self.content(locale).openings

    def checkin_replies(self, locale: str) -> list[CheckInReply]:
        return self.content(locale).checkin_replies

    def exercises(self, locale: str) -> list[Exercise]:
        return self.content(locale).exercises

    def exercise(self, locale: str, exercise_id: str) -> Exercise | None:
        return next((e for e in self.exercises(locale) if e.id == exercise_id), None)

    def reflections(self, locale: str) -> list[Reflection]:
        return self.content(locale).reflections

    def detector(self, locale: str) -> Detector:
        return self.content(locale).detector

    def crisis(self, locale: str) -> CrisisFile:
        return self.content(locale).crisis

    def country_resources(self, locale: str, country: str | None) -> CountryResources | None:
        if country is None:
            return None
        return next((c for c in self.crisis(locale).countries if c.code == country), None)

    def command_descriptions(self, locale: str) -> dict[Command, str]:
        by_name = {info.name: info.description for info in self.content(locale).commands}
        fallback = {
            info.name: info.description for info in self.content(self.default_locale).commands
        }
        return {command: by_name.get(command.value, fallback[command.value]) for command in Command}
