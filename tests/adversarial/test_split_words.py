"""Crisis words split by invisible characters, spelled out letter by letter or turned by
nested overrides still get the full reply, and ordinary text with single letters gets none."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.content_pack.ids import SafetyMsg
from tests.helpers.conversation import Conversation

SPLIT_CRISIS = [
    "i want to ki\x00ll myself",  # NUL inside the word
    "i want to ki\u00adll my\u200dself",  # soft hyphen, zero-width joiner
    "i want to kill\ufe0f my\u034fself",  # variation selector, combining grapheme joiner
    "k i l l m y s e l f",
    "k.i.l.l myself tonight",
    "s-u-i-c-i-d-e is all i think about",
    "i want to d_i_e",
    "i want to \u202e\u202eeid\u202c\u202c",  # nested overrides show "die"
    "x" * 6_000 + " i want to kill myself " + "y" * 6_000,  # across the pieces of a long text
]


@pytest.mark.parametrize("text", SPLIT_CRISIS)
async def test_split_crisis_words_get_the_full_reply(
    chat: Conversation, text_of: Callable[..., str], text: str
) -> None:
    [reply] = await chat.send(text)
    assert reply.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))


@pytest.mark.parametrize(
    "text",
    [
        "my name is a. b. smith",
        "i got a b+ on my essay",
        "see you at 5 p.m. by the u.k. embassy",
        "v i b e s only today",
    ],
)
async def test_single_letters_in_ordinary_text_get_no_safety_reply(
    chat: Conversation, text_of: Callable[..., str], text: str
) -> None:
    replies = await chat.send(text)
    safety = {text_of(SafetyMsg.SAFETY_CHECK), text_of(SafetyMsg.SAFETY_CRISIS_INTRO)}
    assert not any(reply.text.split("\n\n")[0] in safety for reply in replies)
