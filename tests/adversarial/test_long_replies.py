"""Long replies and astral characters: split where Telegram allows, nothing lost or cut in half.

Telegram counts UTF-16 code units, so an emoji outside the Basic Multilingual
Plane counts twice; a splitter that counted characters would send pieces that
Telegram refuses, and one that cut between the two halves would send invalid text.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.adapters.telegram.render import MAX_TEXT, text_pieces
from bot.adapters.text_split import utf16_length
from bot.content_pack.ids import AnswersMsg, ReasonsMsg
from tests.helpers.telegram_checks import failed_sends
from tests.helpers.telegram_world import TelegramWorld

ANA = 3001
GRIN = "\U0001f600"  # two UTF-16 code units
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one picture, eight code units


def whole_characters(piece: str) -> bool:
    """Valid UTF-8 means no half of a surrogate pair was left at either end."""
    try:
        piece.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@pytest.mark.parametrize(
    "text",
    [
        GRIN * 2048,  # exactly the limit
        GRIN * 2048 + "a",  # one unit over
        "a" + GRIN * 2048,  # over, with every emoji starting at an odd unit
        (FAMILY + " ") * 1000,  # joined sequences and spaces
        "e\u0301" * 5000,  # combining accents, 10,000 code points
        GRIN * 10_000,  # 20,000 units, not a space anywhere
    ],
)
def test_pieces_fit_in_utf16_and_keep_every_character(text: str) -> None:
    pieces = text_pieces(text)
    assert all(utf16_length(piece) <= MAX_TEXT for piece in pieces)
    assert all(whole_characters(piece) for piece in pieces)
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")  # only spaces at cuts go
    if utf16_length(text) <= MAX_TEXT:
        assert pieces == [text]


async def test_long_reasons_of_emoji_arrive_split_and_complete_on_telegram(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    """Six reasons of 500 emoji: 3,000 characters but 6,000 UTF-16 units, so one message
    by character count and two by Telegram's."""
    reasons = [f"{n}{GRIN * 499}" for n in range(1, 7)]
    await telegram.says(ANA, "/reasons")
    for reason in reasons:
        await telegram.taps(ANA, text_of(ReasonsMsg.REASONS_ADD))
        await telegram.says(ANA, reason)
    before = len(telegram.bot_messages(ANA))
    await telegram.says(ANA, "/reasons")
    pieces = [message.text or "" for message in telegram.bot_messages(ANA)[before:]]
    assert len(pieces) >= 2
    assert all(utf16_length(piece) <= MAX_TEXT for piece in pieces)
    shown = "\n".join(pieces).splitlines()
    assert [f"{n}. {reason}" for n, reason in enumerate(reasons, start=1)] == [
        line for line in shown if line[:2] in {f"{n}." for n in range(1, 7)}
    ]
    assert telegram.bot_messages(ANA)[-1].reply_markup is not None  # buttons under the last
    assert failed_sends(telegram) == []


async def test_a_10000_character_message_on_telegram_is_answered(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await telegram.says(ANA, ("a long day " * 1000)[:10_000])
    assert telegram.last_text(ANA) == text_of(AnswersMsg.BEFORE_START)  # never begun: how to
    assert failed_sends(telegram) == []
