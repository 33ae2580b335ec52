"""Ways to read what came back from Steady on Telegram: a hostile text must break nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bot.content_pack.ids import DataMsg, OnboardingMsg
from tests.helpers.telegram_world import TelegramWorld


async def onboard(world: TelegramWorld, chat: int, text_of: Callable[..., str]) -> None:
    await world.says(chat, "/start")
    await world.says(chat, "Europe/Berlin")
    await world.says(chat, "08:30")
    await world.taps(chat, text_of(OnboardingMsg.COUNTRY_SKIP))


def failed_sends(world: TelegramWorld) -> list[str]:
    """Every message Telegram refused, with its reason: a hostile text must cause none."""
    return [
        f"{call.method}: {call.description}"
        for call in world.tg.calls
        if call.method in {"sendMessage", "editMessageText", "sendPhoto"} and not call.ok
    ]


def mydata_export(world: TelegramWorld, chat: int, text_of: Callable[..., str]) -> Any:
    """The /mydata JSON as the user received it: every piece after the intro, joined back."""
    texts = world.tg.sent_texts(chat)
    intro = max(i for i, text in enumerate(texts) if text == text_of(DataMsg.MYDATA_INTRO))
    pieces = texts[intro + 1 :]
    for end in range(1, len(pieces) + 1):
        try:
            return json.loads("\n".join(pieces[:end]))
        except json.JSONDecodeError:
            continue
    raise AssertionError(f"no JSON export after the /mydata intro: {pieces!r}")
