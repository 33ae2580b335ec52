"""The Telegram command menu: neutral for everyone (discreet mode is the default), full
in the own chat of someone who turned discreet mode off, neutral again after /forget."""

from __future__ import annotations

from collections.abc import Callable

from bot.content_pack.commands import Command
from bot.content_pack.ids import DataMsg, SettingsMsg
from bot.content_pack.pack import ContentPack
from tests.adapters.test_telegram import ANA, onboard
from tests.helpers.telegram_world import TelegramWorld


def described(world: TelegramWorld, scope: str = "default") -> dict[str, str] | None:
    specs = world.tg.commands_for(scope=scope)
    return None if specs is None else {s.command: s.description for s in specs}


async def test_the_menu_follows_discreet_mode(
    telegram: TelegramWorld, content: ContentPack, text_of: Callable[..., str]
) -> None:
    neutral = content.command_descriptions("en", discreet=True)
    full = content.command_descriptions("en")
    menu = described(telegram)
    assert menu is not None and menu["reasons"] == neutral[Command.REASONS] == "Your saved notes"
    assert menu["nocontact"] == "A day counter"

    await onboard(telegram)
    assert described(telegram, f"chat:{ANA}") is None
    await telegram.says(ANA, "/settings")
    await telegram.taps(ANA, text_of(SettingsMsg.SETTINGS_DISCREET_OFF))
    mine = described(telegram, f"chat:{ANA}")
    assert mine is not None and mine["nocontact"] == full[Command.NOCONTACT]
    assert described(telegram) == menu  # everyone else's menu stays neutral

    await telegram.taps(ANA, text_of(SettingsMsg.SETTINGS_DISCREET_ON))
    assert described(telegram, f"chat:{ANA}") is None

    await telegram.taps(ANA, text_of(SettingsMsg.SETTINGS_DISCREET_OFF))
    assert described(telegram, f"chat:{ANA}") is not None
    await telegram.says(ANA, "/forget")
    await telegram.taps(ANA, text_of(DataMsg.FORGET_YES))
    assert described(telegram, f"chat:{ANA}") is None
