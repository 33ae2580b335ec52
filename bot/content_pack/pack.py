"""The loaded content pack: every sentence the bot can say, per locale."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from babel.dates import get_day_names

from bot.content_pack.commands import Command
from bot.content_pack.ids import Msg, SafetyMsg
from bot.content_pack.placeholders import COUNTS
from bot.content_pack.plurals import babel_locale, form_for
from bot.content_pack.reply_languages import ReplyLanguage
from bot.content_pack.schema import (
    Affirmation,
    AnswersFile,
    CheckInReply,
    CommandInfo,
    CountryName,
    CountryResources,
    CrisisFile,
    DetectionFile,
    EmergencyNumbers,
    Exercise,
    Opening,
    Reflection,
)

HOURS_VARY = "Hours vary"
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_DAY_WORDS = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|Daily)\b")


def hours_in_words(hours: str, daily: str, vary: str, day_names: list[str]) -> str:
    """Opening hours as data writes them, in a language's words: `daily` for "Daily",
    `vary` for "Hours vary", day names Monday to Sunday from `day_names`."""
    if hours == HOURS_VARY:
        return vary

    def named(match: re.Match[str]) -> str:
        word = match.group(0)
        return daily if word == "Daily" else day_names[_WEEKDAYS.index(word)]

    return _DAY_WORDS.sub(named, hours)


@dataclass(frozen=True)
class LocaleContent:
    locale: str
    # A text, or plural forms by category; keys may carry a platform (`id@telegram`).
    messages: dict[str, str | dict[str, str]]
    commands: tuple[CommandInfo, ...]
    affirmations: list[Affirmation]
    openings: list[Opening]
    checkin_replies: list[CheckInReply]
    exercises: list[Exercise]
    reflections: list[Reflection]
    detection: DetectionFile
    crisis: CrisisFile
    countries: dict[str, CountryName]
    likely_countries: tuple[str, ...]
    answers: AnswersFile  # yes, no and the words before a place, as typed in this language


@dataclass(frozen=True)
class ContentPack:
    default_locale: str
    locales: dict[str, LocaleContent]
    emergency: dict[str, EmergencyNumbers]
    # Crisis and danger rules of more languages than there are locales: every message is
    # screened in all of them, whatever the user's locale.
    languages: tuple[DetectionFile, ...] = ()
    # The folder it was read from: the safety screen's learned model lives beside the rules.
    folder: Path | None = None
    # Yes and no in more languages than there are locales: read whatever the user's locale.
    answer_languages: tuple[AnswersFile, ...] = ()

    def every_answers_file(self) -> tuple[AnswersFile, ...]:
        """Each locale's typed words, then those of the other languages."""
        return (*(content.answers for content in self.locales.values()), *self.answer_languages)

    # The crisis reply's words in languages the screen reads but the bot does not otherwise
    # speak (bot/content_pack/reply_languages.py), by language code.
    reply_languages: Mapping[str, ReplyLanguage] = field(default_factory=dict)

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

    def text(self, locale: str, message: Msg, /, **values: str | int) -> str:
        """The message in this locale, in the plural form its count asks for."""
        return self.text_on(locale, message, None, **values)

    def text_on(
        self, locale: str, message: Msg, platform: str | None, /, **values: str | int
    ) -> str:
        """As `text`, in this platform's wording where the pack has one."""
        chosen = self.content(locale)
        template = self._template(chosen, message, platform)
        if template is None:  # a partial translation falls back to the default locale
            chosen = self.locales[self.default_locale]
            template = self._template(chosen, message, platform)
        if template is None:  # pragma: no cover - the loader requires every message
            raise KeyError(message.value)
        if isinstance(template, dict):
            count = values.get(COUNTS.get(message, ""), 0)
            number = count if isinstance(count, int) else int(count) if count.isdigit() else -1
            template = form_for(chosen.locale, template, number)
        # Placeholders were checked against placeholders.PLACEHOLDERS when the pack loaded.
        return template.format(**values) if values else template

    @staticmethod
    def _template(
        content: LocaleContent, message: Msg, platform: str | None
    ) -> str | dict[str, str] | None:
        if platform is not None:
            own = content.messages.get(f"{message.value}@{platform}")
            if own is not None:
                return own
        return content.messages.get(message.value)

    def hours(self, locale: str, hours: str) -> str:
        """Opening hours as the locale reads them. The data writes them one way everywhere
        ("24/7", "Hours vary", "Mon–Fri 8:00–24:00", "Daily 17:00–24:00": schema.Hours);
        the day names come from CLDR, "Daily" and "Hours vary" from the pack."""
        days = get_day_names("abbreviated", locale=babel_locale(self.content(locale).locale))
        return hours_in_words(
            hours,
            daily=self.text(locale, SafetyMsg.HOURS_DAILY),
            vary=self.text(locale, SafetyMsg.HOURS_VARY),
            day_names=[str(days[day]) for day in range(7)],
        )

    def command_named(self, name: str) -> Command | None:
        """The command a name stands for: its own, or its name in any locale (/ajustes)."""
        folded = name.casefold()
        for command in Command:
            if command.value == folded:
                return command
        for content in self.locales.values():
            for info in content.commands:
                if info.local_name is not None and info.local_name.casefold() == folded:
                    return Command(info.name)
        return None

    def command_name(self, locale: str, command: Command) -> str:
        """What a reader of `locale` types for `command`: its local name (/ajustes) where the
        locale gives one, else its own. Both always work; menus and lists show this one."""
        for info in self.content(locale).commands:
            if info.name == command.value and info.local_name is not None:
                return info.local_name
        return command.value

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

    def crisis(self, locale: str) -> CrisisFile:
        return self.content(locale).crisis

    def country_resources(self, locale: str, country: str | None) -> CountryResources | None:
        """The locale's helplines for the country, else the default locale's: a locale may
        cover fewer countries, and a helpline named in another language still helps more
        than none. The sentences around them stay in the user's language."""
        if country is None:
            return None
        for crisis in (self.crisis(locale), self.crisis(self.default_locale)):
            found = next((c for c in crisis.countries if c.code == country), None)
            if found is not None:
                return found
        return None

    def emergency_numbers(self, country: str | None) -> EmergencyNumbers | None:
        return None if country is None else self.emergency.get(country)

    def country(self, locale: str, code: str) -> CountryName | None:
        """A country's names in the locale, else in the default locale."""
        found = self.content(locale).countries.get(code)
        return found or self.locales[self.default_locale].countries.get(code)

    def country_label(self, locale: str, code: str) -> str:
        """For buttons and lists ("United Kingdom")."""
        found = self.country(locale, code)
        return code if found is None else found.name

    def country_in_sentence(self, locale: str, code: str) -> str:
        """As it reads after "in" ("the United Kingdom")."""
        found = self.country(locale, code)
        return code if found is None else found.sentence_name

    def likely_countries(self, locale: str) -> tuple[str, ...]:
        return (
            self.content(locale).likely_countries
            or self.content(self.default_locale).likely_countries
        )

    def command_descriptions(self, locale: str, discreet: bool = False) -> dict[Command, str]:
        """What each command does, for menus. Discreet: neutral words that say nothing
        about relationships, fit for a menu someone else may see."""

        def described(content: LocaleContent) -> dict[str, str]:
            return {
                info.name: info.discreet_description if discreet else info.description
                for info in content.commands
            }

        by_name = described(self.content(locale))
        fallback = described(self.content(self.default_locale))
        return {command: by_name.get(command.value, fallback[command.value]) for command in Command}
