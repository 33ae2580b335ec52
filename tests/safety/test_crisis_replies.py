"""Crisis replies come first: in any flow, any hour, with the outbox jammed or the database down."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable

import pytest

from bot.content_pack.ids import CheckinMsg, GeneralMsg, SafetyMsg
from bot.core.events import Address, CommandIssued, TextMessage
from bot.core.platform import RetryAfter
from bot.core.replies import Reply
from bot.delivery.outbox import Outgoing
from bot.engine.router import Router
from bot.flows.checkin import CheckInStep
from bot.flows.context import Services
from bot.safety.screen import SOS_MISREAD, SOS_MORE
from bot.storage.flow_positions import get_position
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation
from tests.helpers.faults import every_read_through_fetch_all
from tests.helpers.outboxes import outbox_for
from tests.helpers.recording_adapter import RecordingAdapter

CRISIS = "honestly i just want to die"
DANGER = "he's outside my door banging and says he'll kill me"


async def onboard(chat: Conversation, country: str = "Germany") -> None:
    await chat.send("/start")
    await chat.send("Europe/Berlin")
    await chat.send("08:30")
    await chat.send(country)


async def test_crisis_reply_lists_local_help_and_the_emergency_line(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await onboard(chat)
    await chat.send(CRISIS)
    reply, *question_again = chat.last
    assert reply.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert not reply.silent
    assert all(again.silent for again in question_again)  # the routine part stays quiet
    assert "call 112 in Germany for an ambulance, or 110 for the police." in reply.text
    assert "0800 111 0 111" in reply.text  # TelefonSeelsorge
    assert "116 016" in reply.text  # violence against women helpline
    assert reply.text.index("0800 111 0 111") < reply.text.index("116 016")  # crisis line first
    # The worldwide directory is one tap away, with the lines the first reply left out.
    assert "findahelpline.com" not in reply.text
    assert [b.data for b in reply.flat_buttons] == [SOS_MORE, SOS_MISREAD]


async def test_danger_puts_abuse_helplines_first(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await onboard(chat)
    await chat.send(DANGER)
    assert chat.text.startswith(text_of(SafetyMsg.SAFETY_DANGER_INTRO))
    # The police number first, 112 beside it.
    assert "call 110 in Germany for the police, or 112 for an ambulance." in chat.text
    assert chat.text.index("116 016") < chat.text.index("0800 111 0 111")


async def test_without_a_country_the_likeliest_numbers_and_the_directory(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send(CRISIS)
    assert "United States: emergency 911; 988 Suicide & Crisis Lifeline, 988" in chat.text
    assert text_of(SafetyMsg.SAFETY_WIDE_NUMBERS) in chat.text
    assert text_of(SafetyMsg.SAFETY_NO_COUNTRY) in chat.text
    assert "findahelpline.com" in chat.text
    # Nothing tells us where they are: the English locale's likely countries, to tap.
    labels = [button.label for button in chat.last[0].flat_buttons]
    assert labels[:3] == ["United States", "United Kingdom", "Canada"]


async def test_country_from_time_zone_when_none_was_chosen(chat: Conversation) -> None:
    await chat.send("/start")
    await chat.send("Pacific/Auckland")
    await chat.send("08:30")
    await chat.press("Skip")
    await chat.send(CRISIS)
    assert "111 in New Zealand" in chat.text and "1737" in chat.text


async def test_crisis_mid_flow_answers_first_and_keeps_the_flow(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("strong")  # now at the note step, which takes free text
    await chat.send("i keep thinking about killing myself")
    assert chat.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    position = await get_position(services.db, user.id)
    # nothing was stored as a note
    assert position is not None and position.step == CheckInStep.NOTE
    count = await services.db.fetch_one("SELECT COUNT(*) AS n FROM checkins")
    assert count is not None and count["n"] == 0


async def test_misread_is_answered_kindly_with_sos_one_tap_away(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await onboard(chat)
    await chat.send("i could just die of embarrassment honestly, want to die lol")
    await chat.press(text_of(SafetyMsg.SAFETY_MISREAD_BUTTON))
    assert chat.text == text_of(SafetyMsg.SAFETY_MISREAD_REPLY)
    await chat.press(text_of(SafetyMsg.SAFETY_SHOW_BUTTON))
    assert "0800 111 0 111" in chat.text
    await chat.send("/sos")
    assert "0800 111 0 111" in chat.text


async def test_in_a_group_the_details_go_privately(
    router: Router, text_of: Callable[..., str]
) -> None:
    group = Address("console", "group-1", "u7", is_group=True)
    [private] = await router.handle(TextMessage(group, CRISIS))
    assert private.private and text_of(SafetyMsg.SAFETY_WIDE_NUMBERS) in private.text
    assert private.group_notice is not None
    assert private.group_notice.text == text_of(SafetyMsg.SAFETY_GROUP_PUBLIC)
    assert private.group_fallback is not None
    assert private.group_fallback.flat_buttons[0].open_private == "sos"


async def test_crisis_reply_in_quiet_hours_is_not_held_back(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await onboard(chat)
    await chat.send("/settings")
    await chat.press("Quiet hours")
    await chat.send("09:00-12:00")  # the clock reads 10:00 in Berlin: inside them
    await chat.send("/help")
    assert chat.last[0].silent  # routine replies go quietly now
    await chat.send(CRISIS)
    reply, *question_again = chat.last
    assert reply.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert not reply.silent
    assert all(again.silent for again in question_again)  # the routine part stays quiet


async def test_crisis_reply_does_not_wait_for_a_jammed_outbox(
    router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    adapter = RecordingAdapter()
    adapter.failures.extend(RetryAfter(3600) for _ in range(10))
    outbox = outbox_for(services, services.clock, {adapter.platform: adapter})
    await outbox.start()
    for number in range(50):
        await outbox.enqueue(Outgoing(Address("test", str(number), str(number)), Reply("routine")))
    replies = await asyncio.wait_for(
        router.handle(TextMessage(Address("test", "c", "u"), CRISIS)), timeout=1
    )
    assert replies[0].text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    await outbox.stop()


async def test_crisis_reply_with_the_database_failing(
    router: Router, services: Services, monkeypatch: pytest.MonkeyPatch, text_of: Callable[..., str]
) -> None:
    def broken(*_: object, **__: object) -> object:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(services.db, "fetch_one", broken)
    monkeypatch.setattr(services.db, "fetch_all", broken)
    monkeypatch.setattr(services.db, "transaction", broken)
    every_read_through_fetch_all(services.db, monkeypatch)
    replies = await router.handle(TextMessage(Address("console", "c", "u"), CRISIS))
    assert replies[0].text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    ordinary = await router.handle(TextMessage(Address("console", "c", "u"), "hello"))
    assert ordinary[0].text == text_of(GeneralMsg.SOMETHING_WENT_WRONG)


@pytest.mark.sqlite_only  # it locks SQLite's file from another connection
async def test_crisis_reply_with_the_database_file_read_only(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboard(chat)
    await services.db.fetch_one("PRAGMA user_version")
    # A second connection takes the write lock: every write now fails, as on a read-only disk.
    blocker = sqlite3.connect(services.db.path, timeout=0)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        await chat.send(CRISIS)
        assert chat.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
        assert "112 in Germany" in chat.text
    finally:
        blocker.rollback()
        blocker.close()


async def test_words_after_a_command_are_screened_too(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause i want to kill myself tonight")
    assert chat.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    await chat.send("/checkin he said he will kill me")
    assert chat.text.startswith(text_of(SafetyMsg.SAFETY_DANGER_INTRO))


async def test_sos_needs_no_database(
    router: Router, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> object:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(services.db, "fetch_one", broken)
    monkeypatch.setattr(services.db, "transaction", broken)
    replies = await router.handle(CommandIssued(Address("console", "c", "u"), "sos"))
    assert "findahelpline.com" in replies[0].text


async def test_group_messages_stay_private(router: Router, text_of: Callable[..., str]) -> None:
    group = Address("console", "group-1", "u7", is_group=True)
    assert await router.handle(TextMessage(group, "good morning everyone")) == []
    [reply] = await router.handle(CommandIssued(group, "mydata"))
    assert reply.text == text_of(GeneralMsg.GROUP_GO_PRIVATE)
    assert reply.flat_buttons[0].open_private == "mydata"
    [help_reply] = await router.handle(CommandIssued(group, "help"))
    assert "/checkin" in help_reply.text
    [sos] = await router.handle(CommandIssued(group, "sos"))
    assert sos.private and sos.group_notice is not None


async def test_a_deep_link_from_a_group_continues_in_private(
    router: Router, text_of: Callable[..., str]
) -> None:
    private = Address("console", "u7", "u7")
    replies = await router.handle(CommandIssued(private, "start", "checkin"))
    assert text_of(CheckinMsg.ASK_MOOD) in replies[0].text
