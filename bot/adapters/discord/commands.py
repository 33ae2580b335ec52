"""Steady's slash commands for Discord: what is registered, and options back to core args.

Every core command is a slash command with the pack's description. `/reminder` is a
group of subcommands with typed options; whichever is used, the core receives one
`/reminder <args>` in the plain syntax it parses itself (`add 09:00 Europe/Berlin
mon-fri theme grief`), so Discord's menu and the other platforms' typed command meet
in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from bot.adapters.discord.inbound import options_of, values_of
from bot.content_pack.commands import Command
from bot.content_pack.ids import Msg, ReminderMsg
from bot.content_pack.pack import ContentPack
from bot.reminders.words import Action, words_for

MAX_DESCRIPTION = 100
MANAGE_CHANNELS = 1 << 4
MAX_REMINDER_TEXT = 500

# Discord's locales; a pack locale describes each one that is it or a regional form of it.
DISCORD_LOCALES = (
    "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu",
    "nl", "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru",
    "uk", "hi", "th", "zh-CN", "ja", "zh-TW", "ko",
)  # fmt: skip


class OptionType(IntEnum):
    SUB_COMMAND = 1
    STRING = 3
    INTEGER = 4


class Context(IntEnum):
    GUILD = 0
    BOT_DM = 1


@dataclass(frozen=True, slots=True)
class Described:
    """A description in the default locale, with the other locales' words by Discord locale."""

    text: str
    localized: dict[str, str] = field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {"description": self.text}
        if self.localized:
            body["description_localizations"] = self.localized
        return body


@dataclass(frozen=True, slots=True)
class OptionSpec:
    name: str
    kind: OptionType
    description: Described
    required: bool = False
    max_length: int | None = None
    min_value: int | None = None
    options: tuple[OptionSpec, ...] = ()
    # Its name in other locales ("añadir", "hora"), as for a command.
    localized_names: dict[str, str] = field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {"name": self.name, "type": int(self.kind)}
        if self.localized_names:
            body["name_localizations"] = self.localized_names
        body |= self.description.payload()
        if self.kind is not OptionType.SUB_COMMAND:
            body["required"] = self.required
        if self.max_length is not None:
            body["max_length"] = self.max_length
        if self.min_value is not None:
            body["min_value"] = self.min_value
        if self.options:
            body["options"] = [option.payload() for option in self.options]
        return body


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str
    description: Described
    options: tuple[OptionSpec, ...] = ()
    guild_only: bool = False
    # Only members who may manage the channel see it; the core checks again server-side.
    admin_only: bool = False
    # The name people of other locales see in the list (es-ES, es-419: "ajustes"). A chosen
    # command still arrives under its own name, so the core reads it unchanged.
    localized_names: dict[str, str] = field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {"name": self.name, "type": 1}
        if self.localized_names:
            body["name_localizations"] = self.localized_names
        body |= self.description.payload()
        contexts = [Context.GUILD] if self.guild_only else [Context.GUILD, Context.BOT_DM]
        body["contexts"] = [int(context) for context in contexts]
        body["integration_types"] = [0]  # installed to a server, not to a user's account
        body["default_member_permissions"] = str(MANAGE_CHANNELS) if self.admin_only else None
        if self.options:
            body["options"] = [option.payload() for option in self.options]
        return body


def command_specs(content: ContentPack) -> list[CommandSpec]:
    describe = _Describer(content)
    specs: list[CommandSpec] = []
    for command in Command:
        description = describe.command(command)
        names = describe.names(command)
        if command is Command.REMINDER:
            specs.append(
                CommandSpec(
                    command.value,
                    description,
                    _reminder_subcommands(describe),
                    guild_only=True,
                    admin_only=True,
                    localized_names=names,
                )
            )
        else:
            specs.append(CommandSpec(command.value, description, localized_names=names))
    return specs


def command_payloads(content: ContentPack) -> list[dict[str, Any]]:
    """The body of the bulk overwrite of global commands."""
    return [spec.payload() for spec in command_specs(content)]


def _reminder_subcommands(describe: _Describer) -> tuple[OptionSpec, ...]:
    def number() -> tuple[OptionSpec, ...]:
        text = describe.message(ReminderMsg.DISCORD_OPTION_NUMBER)
        names = describe.option_names("number")
        return (
            OptionSpec(
                "number", OptionType.INTEGER, text, required=True, min_value=1,
                localized_names=names,
            ),
        )  # fmt: skip

    def string(name: str, message: Msg, required: bool, max_length: int) -> OptionSpec:
        text, names = describe.message(message), describe.option_names(name)
        return OptionSpec(
            name, OptionType.STRING, text, required, max_length=max_length, localized_names=names
        )

    def subcommand(
        action: Action, message: Msg, options: tuple[OptionSpec, ...] = ()
    ) -> OptionSpec:
        return OptionSpec(
            action.value,
            OptionType.SUB_COMMAND,
            describe.message(message),
            options=options,
            localized_names=describe.action_names(action),
        )

    add = (
        string("time", ReminderMsg.DISCORD_OPTION_TIME, True, 5),
        string("timezone", ReminderMsg.DISCORD_OPTION_TIMEZONE, True, 64),
        string("days", ReminderMsg.DISCORD_OPTION_DAYS, False, 40),
        string("theme", ReminderMsg.DISCORD_OPTION_THEME, False, 40),
        string("text", ReminderMsg.DISCORD_OPTION_TEXT, False, MAX_REMINDER_TEXT),
    )
    return (
        subcommand(Action.ADD, ReminderMsg.DISCORD_REMINDER_ADD, add),
        subcommand(Action.LIST, ReminderMsg.DISCORD_REMINDER_LIST),
        subcommand(Action.PAUSE, ReminderMsg.DISCORD_REMINDER_PAUSE, number()),
        subcommand(Action.RESUME, ReminderMsg.DISCORD_REMINDER_RESUME, number()),
        subcommand(Action.DELETE, ReminderMsg.DISCORD_REMINDER_DELETE, number()),
    )


class _Describer:
    """Descriptions from the pack in every locale it has, cut to Discord's 100 characters."""

    def __init__(self, content: ContentPack) -> None:
        self._content = content
        self._default = content.default_locale
        self._others = {
            discord_locale: locale
            for locale in content.locales
            if locale != self._default
            for discord_locale in DISCORD_LOCALES
            if discord_locale.lower() == locale or discord_locale.lower().startswith(f"{locale}-")
        }

    def command(self, command: Command) -> Described:
        def text(locale: str) -> str:
            # Slash commands are one list for everyone, and discreet mode is the default:
            # neutral words, fit for a screen someone else may see.
            return self._content.command_descriptions(locale, discreet=True)[command]

        return self._described(text)

    def names(self, command: Command) -> dict[str, str]:
        """The command's own name in each other locale that gives one."""
        own = {
            locale: info.local_name
            for locale in set(self._others.values())
            for info in self._content.content(locale).commands
            if info.name == command.value and info.local_name is not None
        }
        return {
            discord_locale: own[locale]
            for discord_locale, locale in self._others.items()
            if locale in own
        }

    def message(self, message: Msg) -> Described:
        return self._described(lambda locale: self._content.text(locale, message))

    def action_names(self, action: Action) -> dict[str, str]:
        """A /reminder subcommand's name in each other locale that has words for it."""
        return self._local_names(action.value, lambda locale: words_for(locale).action(action))

    def option_names(self, option: str) -> dict[str, str]:
        return self._local_names(option, lambda locale: words_for(locale).options.get(option))

    def _local_names(self, own: str, local: Any) -> dict[str, str]:
        named = {discord_locale: local(locale) for discord_locale, locale in self._others.items()}
        return {where: name for where, name in named.items() if name and name != own}

    def _described(self, text: Any) -> Described:
        localized = {
            discord_locale: _fit(text(locale)) for discord_locale, locale in self._others.items()
        }
        return Described(_fit(text(self._default)), localized)


def _fit(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"


def command_args(name: str, data: Mapping[str, Any] | None) -> str:
    """The plain-text arguments the core parses, from a slash command's options."""
    options = options_of(data)
    if name != Command.REMINDER.value:
        return " ".join(values_of(options).values())
    return reminder_args(options)


def reminder_args(options: Sequence[Mapping[str, Any]]) -> str:
    """`add <HH:MM> <zone> [<days>] [theme <name>] [text <words...>]`, `list`, or
    `pause|resume|delete <n>`. Both theme and text may come through: the core then asks
    the admin to choose one, in its own words."""
    if not options:
        return ""
    subcommand = options[0]
    name = str(subcommand.get("name"))
    values = values_of(options_of(subcommand))
    if name == "add":
        # Spaces would split one value into two words of the core's syntax.
        parts = ["add", *(_one_word(values.get(key, "")) for key in ("time", "timezone", "days"))]
        if values.get("theme"):
            parts += ["theme", _one_word(values["theme"])]
        if values.get("text"):
            parts += ["text", " ".join(values["text"].split())]
        return " ".join(part for part in parts if part)
    if name == "list":
        return "list"
    return f"{name} {values.get('number', '')}".strip()


def _one_word(value: str) -> str:
    return "".join(value.split())
