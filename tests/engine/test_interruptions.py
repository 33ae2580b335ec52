"""Stale and interrupted questions, as a user meets them in a conversation."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from bot.config import Settings
from bot.content_pack.ids import CheckinMsg, GeneralMsg, PauseMsg, ReasonsMsg, SafetyMsg
from bot.core.clock import ManualClock
from bot.core.events import Address, CheckInDue
from bot.engine.router import Router
from bot.flows.context import Services
from bot.safety.screen import SOS_MISREAD
from bot.storage.checkins import list_checkins
from bot.storage.flow_positions import get_position
from bot.storage.user_texts import TextKind, list_texts
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation

CRISIS = "i want to die"
SAD = "I cried all morning and I miss how things were"


async def reasons_of(services: Services) -> list[str]:
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    found = await list_texts(services.db, services.cipher, TextKind.REASON, user.id)
    return [item.text for item in found]


async def notes_of(services: Services) -> list[str | None]:
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    return [
        None if c.sealed_note is None else services.cipher.decrypt(c.sealed_note, user.id)
        for c in await list_checkins(services.db, user.id)
    ]


def labels(chat: Conversation) -> list[str]:
    return [button.label for button in chat.last[-1].flat_buttons]


async def test_a_message_long_after_the_question_is_not_saved_as_its_answer(
    chat: Conversation, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await chat.send("/reasons")
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))
    clock.advance(timedelta(minutes=31))  # the question waited past STEADY_STEP_EXPIRY
    closed, fresh = await chat.send(SAD)
    assert closed.text == text_of(GeneralMsg.STEP_CLOSED)
    assert fresh.text == text_of(GeneralMsg.UNEXPECTED_TEXT)
    assert await reasons_of(services) == []
    user = await find_user(services.db, "console", "u1")
    assert user is not None and await get_position(services.db, user.id) is None
    await chat.send(SAD)  # and the one after is simply a new message too
    assert chat.text == text_of(GeneralMsg.UNEXPECTED_TEXT)


async def test_an_answer_within_the_expiry_is_saved(
    chat: Conversation, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await chat.send("/reasons")
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))
    clock.advance(timedelta(minutes=29))
    await chat.send("I sleep through the night now")
    assert await reasons_of(services) == ["I sleep through the night now"]


def test_the_expiry_is_a_setting(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    assert settings.step_expiry == timedelta(minutes=30)
    monkeypatch.setenv("STEADY_STEP_EXPIRY", "5m")
    assert Settings(_env_file=None).step_expiry == timedelta(minutes=5)


async def test_a_crisis_in_a_check_in_note_says_it_was_not_saved_and_asks_again(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("some")
    crisis, not_saved, again = await chat.send(CRISIS)
    assert crisis.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert not_saved.text == text_of(GeneralMsg.ANSWER_NOT_SAVED)
    assert again.text == f"{text_of(GeneralMsg.QUESTION_AGAIN)}\n\n{text_of(CheckinMsg.ASK_NOTE)}"
    assert [b.label for b in again.flat_buttons] == [text_of(CheckinMsg.SKIP_NOTE)]
    assert await notes_of(services) == []
    await chat.send("a calmer evening after the call")  # the question it can see
    assert await notes_of(services) == ["a calmer evening after the call"]


async def test_a_crisis_in_a_pause_draft_asks_for_the_draft_again(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WRITE))
    *_, not_saved, again = await chat.send(CRISIS)
    assert not_saved.text == text_of(GeneralMsg.ANSWER_NOT_SAVED)
    assert again.text.endswith(text_of(PauseMsg.WRITE_PROMPT))
    await chat.send("what I wanted to say to them")
    assert chat.text == text_of(PauseMsg.WRITE_WRITTEN)  # the next message is the draft, as asked


async def test_help_in_the_middle_of_a_check_in_shows_its_question_with_working_buttons(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    await chat.press(text_of(CheckinMsg.MOOD_2))
    await chat.send("/help")
    assert chat.last[-1].text.endswith(text_of(CheckinMsg.ASK_URGE))
    assert text_of(CheckinMsg.URGE_STRONG) in labels(chat)
    await chat.press(text_of(CheckinMsg.URGE_STRONG))
    assert chat.text == text_of(CheckinMsg.ASK_NOTE)


async def test_a_crisis_reply_at_a_scheduled_check_in_shows_the_mood_question_again(
    router: Router, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    chat = Conversation(router, Address("console", "c1", "u1"))
    await chat.send("/start")  # a user, as the scheduler finds them
    await chat.send("/cancel")
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    async with services.db.transaction() as tx:  # sent by the tick: no question kept
        due = CheckInDue(chat.address, clock.now(), user.id, "en", clock.now())
        await router.checkin.start_due(tx, services, [due])
    *_, again = await chat.send(CRISIS)
    assert again.text.endswith(text_of(CheckinMsg.ASK_MOOD))
    await chat.press(text_of(CheckinMsg.MOOD_4))
    assert chat.text == text_of(CheckinMsg.ASK_URGE)


async def test_sos_shows_the_question_again_and_has_no_misread_button(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    sos, again = await chat.send("/sos")
    assert text_of(SafetyMsg.SAFETY_WIDE_NUMBERS) in sos.text
    assert SOS_MISREAD not in {button.data for button in sos.flat_buttons}  # nothing misread
    assert again.text.endswith(text_of(CheckinMsg.ASK_MOOD))
    # A crisis reply to what someone wrote keeps its "you misread me" button.
    await chat.send("/cancel")
    [crisis] = await chat.send(CRISIS)
    assert SOS_MISREAD in {b.data for b in crisis.flat_buttons}


async def test_an_open_question_is_shown_again_after_a_restart(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    await chat.press(text_of(CheckinMsg.MOOD_3))
    restarted = Router(services)
    [again] = await restarted.reshow(chat.address)
    assert again.text.endswith(text_of(CheckinMsg.ASK_URGE))
    chat.router = restarted
    chat.history.append(again)
    await chat.press(text_of(CheckinMsg.URGE_NONE))
    assert chat.text == text_of(CheckinMsg.ASK_NOTE)


async def test_an_expired_question_is_not_shown_again_after_a_restart(
    chat: Conversation, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    clock.advance(timedelta(hours=2))
    assert await Router(services).reshow(chat.address) == []


async def test_unrecognised_text_is_acknowledged_and_offers_a_pause_and_helplines(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/settings")  # someone who has begun (before that: a welcome)
    await chat.send("/cancel")
    for text in ("🫠🫠", "help", "sos", SAD, "so much to say " * 200):
        [reply] = await chat.send(text)
        assert reply.text == text_of(GeneralMsg.UNEXPECTED_TEXT)
        assert "/" not in reply.text  # no list of commands
        assert labels(chat) == [
            text_of(GeneralMsg.UNEXPECTED_PAUSE_BUTTON),
            text_of(GeneralMsg.UNEXPECTED_SOS_BUTTON),
        ]
    await chat.press(text_of(GeneralMsg.UNEXPECTED_SOS_BUTTON))
    assert text_of(SafetyMsg.SAFETY_WIDE_NUMBERS) in chat.text
    await chat.press(text_of(GeneralMsg.UNEXPECTED_PAUSE_BUTTON))
    assert chat.text == text_of(PauseMsg.PAUSE_MENU)


async def test_a_draft_waiting_for_its_buttons_outlives_the_expiry(
    chat: Conversation, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WRITE))
    await chat.send("the words I did not send")
    clock.advance(timedelta(hours=2))
    await chat.send(SAD)  # a new message: no question of it is closed, nothing lost
    assert chat.text == text_of(GeneralMsg.UNEXPECTED_TEXT)
    await chat.send("/history")
    await chat.press(text_of(PauseMsg.WRITE_KEEP))  # the old buttons still keep the draft
    assert chat.text.startswith(text_of(PauseMsg.WRITE_KEPT))
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    kept = await list_texts(services.db, services.cipher, TextKind.DRAFT, user.id)
    assert [item.text for item in kept] == ["the words I did not send"]
