"""Invisible, reversed, stacked and exotic characters: the screen still sees the words,
and what users write is kept and shown back whole."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from bot.content_pack.ids import CheckinMsg, GeneralMsg, Msg, OnboardingMsg, PauseMsg, SafetyMsg
from bot.core.events import Address, ButtonPressed, TextMessage
from bot.engine.router import Router
from bot.flows.checkin import NOTE_LIMIT, CheckInStep
from bot.flows.context import Services
from bot.storage.checkins import list_checkins
from bot.storage.flow_positions import get_position
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation

HIDDEN_CRISIS = [
    "I w\u200bant to d\u0301ie",  # a zero-width space and a combining accent
    "i want to \u202edie\u202c",  # right-to-left override around the word
    "i\u2060 want\u200d to\ufeff die",  # word joiner, zero-width joiner, byte-order mark
    "i want to k\u0336i\u0337l\u0338l myself",  # strike-through marks stacked on each letter
    "\uff49 \uff57\uff41\uff4e\uff54 \uff54\uff4f \uff44\uff49\uff45",  # full-width letters
    "I\u00a0WANT\u2003TO\u2009DIE",  # no-break, em and thin spaces, shouting
    "i want\x00 to die",  # a NUL byte between the words
    "i want to die " + "\U0001f600" * 3000,  # the words, then a flood of emoji
    "x" * 9_980 + " i want to die",  # the words at the end of a 10,000-character message
]


@pytest.mark.parametrize("text", HIDDEN_CRISIS)
async def test_crisis_words_are_found_through_hostile_characters(
    chat: Conversation, text_of: Callable[..., str], text: str
) -> None:
    [reply] = await chat.send(text)
    assert reply.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))


async def test_hidden_crisis_words_in_a_check_in_note_are_answered_and_not_saved(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("some")
    reply, not_saved, question = await chat.send("I w\u200bant to d\u0301ie")
    assert reply.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert not_saved.text == text_of(
        GeneralMsg.ANSWER_NOT_SAVED
    )  # said plainly, not dropped silently
    assert question.text.endswith(text_of(CheckinMsg.ASK_NOTE))
    user = await find_user(services.db, "console", "u1")
    assert user is not None and await list_checkins(services.db, user.id) == []
    position = await get_position(services.db, user.id)
    # the check-in waits, untouched
    assert position is not None and position.step == CheckInStep.NOTE


async def test_a_10000_character_message_is_answered(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    [reply] = await chat.send("word " * 2_000)
    assert reply.text == text_of(OnboardingMsg.BAD_TIMEZONE)
    await chat.send("/cancel")
    [reply] = await chat.send("word " * 2_000)
    assert reply.text == text_of(GeneralMsg.UNEXPECTED_TEXT)


@pytest.mark.parametrize(
    ("start", "refusal", "limit"),
    [
        (["/checkin", "3", "none"], CheckinMsg.NOTE_TOO_LONG, NOTE_LIMIT),
        (["/pause", "Write it here, not to them"], PauseMsg.DRAFT_TOO_LONG, 4000),
        (["/reasons", "Write one down"], PauseMsg.REASON_TOO_LONG, 500),
    ],
)
async def test_a_10000_character_text_is_refused_kindly_and_nothing_is_kept(
    chat: Conversation,
    services: Services,
    text_of: Callable[..., str],
    start: list[str],
    refusal: Msg,
    limit: int,
) -> None:
    for step in start:
        if step.startswith("/") or step.isdigit() or step == "none":
            await chat.send(step)
        else:
            await chat.press(step)
    [reply] = await chat.send("a" * 10_000)
    assert reply.text == text_of(refusal, limit=limit)
    await chat.send("/mydata")
    export = json.loads(chat.last[-1].text)
    assert (export["checkins"], export["kept_drafts"], export["reasons"]) == ([], [], [])


async def test_nul_bytes_in_a_note_are_kept_and_shown_back_exactly(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    note = "before\x00after \x00\x00 end"
    await chat.send("/checkin")
    await chat.send("3")
    await chat.send("none")
    [reply] = await chat.send(note)
    assert reply.text.startswith(text_of(CheckinMsg.CHECKIN_SAVED_WITH_NOTE))
    await chat.send("/mydata")
    assert [c["note"] for c in json.loads(chat.last[-1].text)["checkins"]] == [note]


async def test_a_lone_surrogate_does_not_lose_the_note(
    router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    """Half an emoji (a client cut it) used to make the note impossible to encrypt: the
    user got "something went wrong" and their words were gone."""
    chat = Conversation(router, Address("console", "c1", "u1"))
    await chat.send("/checkin")
    await chat.send("3")
    await chat.send("none")
    [reply] = await router.handle(TextMessage(chat.address, "cut \ud83d here, \U0001f600 kept"))
    assert reply.text.startswith(text_of(CheckinMsg.CHECKIN_SAVED_WITH_NOTE))
    await chat.send("/mydata")
    [answer] = json.loads(chat.last[-1].text)["checkins"]
    assert answer["note"] == "cut \ufffd here, \U0001f600 kept"


async def test_a_lone_surrogate_in_button_data_is_just_an_old_button(
    router: Router, text_of: Callable[..., str]
) -> None:
    chat = Conversation(router, Address("console", "c1", "u1"))
    await chat.send("/checkin")
    [notice] = await router.handle(ButtonPressed(chat.address, "ci:mood:\udc00:4"))
    assert notice.text == text_of(GeneralMsg.BUTTON_EXPIRED)
