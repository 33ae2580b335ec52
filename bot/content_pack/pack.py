"""The loaded content pack: every sentence the bot can say, per locale."""

from __future__ import annotations

from dataclasses import dataclass

from bot.content_pack.ids import Command, Msg
from bot.content_pack.schema import Affirmation, CheckInReply, CommandInfo, Opening


@dataclass(frozen=True)
class LocaleContent:
    locale: str
    messages: dict[str, str]
    affirmations: tuple[Affirmation, ...]
    openings: tuple[Opening, ...]
    checkin_replies: tuple[CheckInReply, ...]
    commands: tuple[CommandInfo, ...]


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

    def _content(self, locale: str) -> LocaleContent:
        return self.locales.get(locale) or self.locales[self.default_locale]

    def text(self, locale: str, message: Msg, **values: str | int) -> str:
        template = self._content(locale).messages.get(message.value)
        if template is None:  # a partial translation falls back to the default locale
            template = self.locales[self.default_locale].messages[message.value]
        # Placeholders were checked against ids.PLACEHOLDERS when the pack loaded.
        return template.format(**values) if values else template

    def affirmations(self, locale: str) -> tuple[Affirmation, ...]:
        return self._content(locale).affirmations

    def openings(self, locale: str) -> tuple[Opening, ...]:
        return self._content(locale).openings

    def checkin_replies(self, locale: str) -> tuple[CheckInReply, ...]:
        return self._content(locale).checkin_replies

    def command_descriptions(self, locale: str) -> dict[Command, str]:
        by_name = {info.name: info.description for info in self._content(locale).commands}
        fallback = {
            info.name: info.description for info in self._content(self.default_locale).commands
        }
        return {command: by_name.get(command.value, fallback[command.value]) for command in Command}
