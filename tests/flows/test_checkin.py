from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta

from bot.content_pack.ids import AnswersMsg, CheckinMsg, GeneralMsg
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage.checkins import list_checkins
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation


async def answers(services: Services, user_id: str = "u1") -> list[tuple[int, str, str | None]]:
    user = await find_user(services.db, "console", user_id)
    if user is None:
        return []
    return [
        (
            answer.mood,
            answer.urge,
            None
            if answer.sealed_note is None
            else services.cipher.decrypt(answer.sealed_note, user.id),
        )
        for answer in await list_checkins(services.db, user.id)
    ]


async def test_checkin_with_buttons_stores_mood_urge_and_time(
    chat: Conversation,
    services: Services,
    clock: ManualClock,
    content: ContentPack,
    text_of: Callable[..., str],
) -> None:
    await chat.send("/checkin")
    first_line = chat.text.splitlines()[0]
    assert first_line == text_of(CheckinMsg.CHECKIN_OPENING)  # neutral on a lock screen
    assert [b.label for b in chat.last[0].flat_buttons] == [
        text_of(m)
        for m in (
            CheckinMsg.MOOD_1,
            CheckinMsg.MOOD_2,
            CheckinMsg.MOOD_3,
            CheckinMsg.MOOD_4,
            CheckinMsg.MOOD_5,
            CheckinMsg.CHECKIN_URGE_NOW,
        )
    ]
    await chat.press(text_of(CheckinMsg.MOOD_2))
    assert chat.text == text_of(CheckinMsg.ASK_URGE)
    await chat.press(text_of(CheckinMsg.URGE_STRONG))
    assert chat.text == text_of(CheckinMsg.ASK_NOTE)
    await chat.press(text_of(CheckinMsg.SKIP_NOTE))
    saved, reply = chat.last[0].text.split("\n\n")
    assert saved == text_of(CheckinMsg.CHECKIN_SAVED)
    assert reply in {r.text for r in content.checkin_replies("en") if r.category == "strong_urge"}

    assert await answers(services) == [(2, "strong", None)]
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    stored = await list_checkins(services.db, user.id)
    assert stored[0].answered_at == clock.now().replace(microsecond=0)


async def test_typed_answers_work_like_taps(chat: Conversation, services: Services) -> None:
    await chat.send("/checkin")
    await chat.send(" 4 ")
    await chat.send("Some")
    await chat.send("slept well, long walk by the river")
    assert await answers(services) == [(4, "some", "slept well, long walk by the river")]


async def test_note_is_encrypted_at_rest(
    chat: Conversation, services: Services, settings: object
) -> None:
    secret = "zebra-lantern-quietly-47"
    await chat.send("/checkin")
    await chat.send("3")
    await chat.send("none")
    await chat.send(secret)
    row = await services.db.fetch_one("SELECT note FROM checkins")
    assert row is not None and secret.encode() not in bytes(row["note"])
    assert await answers(services) == [(3, "none", secret)]


async def test_out_of_range_answers_change_nothing(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    for bad in ("0", "6", "great", ""):
        await chat.send(bad)
        assert chat.text == text_of(AnswersMsg.USE_BUTTONS_BELOW)
        assert chat.last[-1].flat_buttons[0].label == text_of(CheckinMsg.MOOD_1)  # shown again
    await chat.send("5")
    await chat.send("extreme")
    assert chat.text == text_of(AnswersMsg.USE_BUTTONS_BELOW)
    assert await answers(services) == []


async def test_over_long_note_is_refused_and_nothing_lost(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    await chat.send("3")
    await chat.send("some")
    await chat.send("x" * 1001)
    assert chat.text == text_of(CheckinMsg.NOTE_TOO_LONG, limit=1000)
    await chat.send("shorter now")
    assert await answers(services) == [(3, "some", "shorter now")]


async def test_stale_forged_and_foreign_buttons_change_nothing(
    chat: Conversation, services: Services, router: Router, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    old_mood_button = chat.button(text_of(CheckinMsg.MOOD_1))
    await chat.press(text_of(CheckinMsg.MOOD_5))
    urge_button = chat.button(text_of(CheckinMsg.URGE_NONE))

    for data in (old_mood_button.data, "ci:urge:00000000:none", "garbage", "", "fg:confirm:x:yes"):
        await chat.press_data(data)
        assert chat.text == text_of(GeneralMsg.BUTTON_EXPIRED), data

    stranger = Conversation(router, Address("console", "c2", "u2"))
    await stranger.press_data(urge_button.data)
    assert stranger.text == text_of(GeneralMsg.BUTTON_NOT_YOURS)
    assert stranger.last[0].ephemeral  # a notice for the one who tapped, not the chat

    await chat.press_data(urge_button.data)
    assert chat.text == text_of(CheckinMsg.ASK_NOTE)
    await chat.press_data(urge_button.data)  # replayed
    assert chat.text == text_of(GeneralMsg.BUTTON_EXPIRED)
    assert await answers(services) == []
    assert await answers(services, "u2") == []


async def test_two_taps_at_once_store_one_answer(chat: Conversation, services: Services) -> None:
    await chat.send("/checkin")
    await chat.send("3")
    await chat.send("none")
    skip = chat.button("Skip").data
    await asyncio.gather(chat.press_data(skip), chat.press_data(skip))
    assert await answers(services) == [(3, "none", None)]


async def test_cancel_leaves_checkin_without_storing(
    chat: Conversation, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("/cancel")
    assert chat.text == text_of(GeneralMsg.CANCEL_DONE)
    clock.advance(timedelta(minutes=1))
    await chat.send("some")
    assert chat.text == text_of(GeneralMsg.UNEXPECTED_TEXT)
    await chat.send("/cancel")
    assert chat.text == text_of(GeneralMsg.CANCEL_NOTHING)
    assert await answers(services) == []
