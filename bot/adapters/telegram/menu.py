"""The command menu: one per bot in every language the pack has, neutral words, and the
commands that change a group's settings shown to its administrators only."""

from __future__ import annotations

from telegram import Bot, BotCommand, BotCommandScopeAllChatAdministrators, BotCommandScopeChat

from bot.content_pack.commands import Command
from bot.content_pack.pack import ContentPack

# Commands that change a group's settings: only its administrators may use them.
ADMIN_COMMANDS = frozenset({Command.REMINDER.value})


async def set_commands(bot: Bot, content: ContentPack) -> None:
    """Group admins also see the commands that change a group's settings; everyone else
    is not shown them."""
    for locale in content.locales:
        # One menu per bot, and discreet mode is every user's default: neutral words.
        described = content.command_descriptions(locale, discreet=True).items()
        # Each language's menu shows the names its readers type (/ajustes); all work.
        everyone = [
            BotCommand(content.command_name(locale, c), d)
            for c, d in described
            if c not in ADMIN_COMMANDS
        ]
        admins = [BotCommand(content.command_name(locale, c), d) for c, d in described]
        language = None if locale == content.default_locale else locale
        await bot.set_my_commands(everyone, language_code=language)
        await bot.set_my_commands(
            admins, scope=BotCommandScopeAllChatAdministrators(), language_code=language
        )


async def set_chat_menu(
    bot: Bot, content: ContentPack, chat_id: str, locale: str | None, full: bool
) -> None:
    """The menu is one per bot and neutral; discreet mode is per user. Someone who turned
    it off gets the full descriptions in their own chat (in `locale`); turning it back on
    (or /forget) removes that chat's menu, so the neutral one shows again."""
    scope = BotCommandScopeChat(int(chat_id))
    if not full:
        await bot.delete_my_commands(scope=scope)
        return
    shown = locale or content.default_locale
    described = content.command_descriptions(shown).items()
    commands = [
        BotCommand(content.command_name(shown, c), d)
        for c, d in described
        if c not in ADMIN_COMMANDS
    ]
    await bot.set_my_commands(commands, scope=scope)
