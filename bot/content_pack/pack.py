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
from bot.safety.prefilter import required_strings
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
    exceptions: list[re.Pattern[str]] = []
    rules: list[CompiledRule] = []
    for detection in files:
        exceptions += [re.compile(item.pattern) for item in detection.exceptions]
        cues = _compile_cues(detection.context)
        rules += [
            CompiledRule(
                rule.id,
                Intent(rule.intent),
                re.compile(rule.pattern),
                required_strings(rule.pattern),
                cues,
            )
            for rule in detection.rules
        ]
    # The most urgent rules first, whatever their language: once a full crisis match is
    # found, the other crisis rules need not run.
    rules.sort(key=lambda rule: PRIORITY.index(rule.intent))
    return Detector(exceptions=tuple(exceptions), rules=tuple(rules))


def _compile_cues(context: DetectionContext | None) -> ContextCues:
    if context is None:
        return ContextCues()

    def cue(pattern: str | None, words: bool = False) -> re.Pattern[str] | None:
        if pattern is None:
            return None
        return re.compile(rf"(?<!\w)(?:{pattern})(?!\w)" if words else pattern)

    return ContextCues(
        negation=cue(context.negation),
        distant_past=cue(context.distant_past),
        accident=cue(context.accident),
        title=cue(context.title),
        present=cue(context.present),
        first_person=cue(context.first_person, words=True),
        other_person=cue(context.other_person, words=True),
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
