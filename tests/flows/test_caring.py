"""The caring check, as a user lives it: after a crisis reply, an offer to look in on them
tomorrow; on yes, one neutral message the next day at their check-in time, and nothing
more; on no, or after /forget, nothing at all."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.commands import Command
from bot.content_pack.ids import CaringMsg, DataMsg, GeneralMsg, OnboardingMsg, SafetyMsg
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.engine import router as router_module
from bot.engine.router import Router
from bot.flows import caring as caring_module
from bot.flows.pause import Pause
from bot.storage.caring_checks import get_check
from bot.storage.db import Transaction
from bot.storage.flow_positions import get_position
from bot.storage.safety_plans import read_plan
from bot.storage.users import QuietHours, find_user, set_quiet_hours
from tests.helpers.conversation import Conversation
from tests.helpers.world import World, build_world

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # the clock fixture's start: 10:00 in Berlin
TOMORROW = START + timedelta(days=1)
CRISIS = "i want to die"


def caring_checks_sent(world: World, text_of: Callable[..., str]) -> list[Reply]:
    return [
        reply for _, reply in world.adapter.take() if reply.text == text_of(CaringMsg.CARING_CHECK)
    ]


async def crisis_then_yes(chat: Conversation, text_of: Callable[..., str]) -> list[Reply]:
    await chat.send(CRISIS)
    return await chat.press(text_of(CaringMsg.CARING_OFFER_YES))


async def user_id_of(world: World, chat: Conversation) -> int:
    user = await find_user(world.services.db, chat.address.platform, chat.address.user_id)
    assert user is not None
    return user.id


# The offer ------------------------------------------------------------------------------


async def test_the_crisis_reply_comes_first_then_the_offer(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    crisis, offer, *rest = await chat.send(CRISIS)
    assert crisis.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert offer.text == text_of(CaringMsg.CARING_OFFER)
    labels = [button.label for button in offer.flat_buttons]
    assert labels == [text_of(CaringMsg.CARING_OFFER_YES), text_of(CaringMsg.CARING_OFFER_NO)]
    assert offer.silent  # right after the crisis reply: one sound is enough
    assert all(reply.text != text_of(CaringMsg.CARING_OFFER) for reply in rest)
    # Once: another crisis message the same day gets the crisis reply, and no second offer.
    again = await chat.send(CRISIS)
    assert again[0].text == crisis.text
    assert all(reply.text != text_of(CaringMsg.CARING_OFFER) for reply in again)


async def test_danger_and_show_me_help_now_are_offered_too_but_not_sos(
    router: Router, text_of: Callable[..., str]
) -> None:
    async def onboarded(name: str) -> Conversation:
        chat = Conversation(router, Address("console", name, name))
        for said in ("/start", "Europe/Berlin", "08:30"):
            await chat.send(said)
        return chat

    danger = await onboarded("dana")
    replies = await danger.send("he's outside my door banging and says he'll kill me")
    assert replies[0].text.startswith(text_of(SafetyMsg.SAFETY_DANGER_INTRO))
    assert replies[1].text == text_of(CaringMsg.CARING_OFFER)
    checked = await onboarded("chen")
    check, *_ = await checked.send("my friend died by suicide")
    assert check.text == text_of(SafetyMsg.SAFETY_CHECK)  # a check alone is no crisis reply
    replies = await checked.press(text_of(SafetyMsg.SAFETY_CHECK_HELP_BUTTON))
    assert replies[0].text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert replies[1].text == text_of(CaringMsg.CARING_OFFER)
    asked = await onboarded("sam")
    replies = await asked.send("/sos")
    assert all(reply.text != text_of(CaringMsg.CARING_OFFER) for reply in replies)


async def test_never_offered_in_a_group(router: Router, text_of: Callable[..., str]) -> None:
    private = Conversation(router, Address("console", "u1", "u1"))
    for said in ("/start", "Europe/Berlin", "08:30"):
        await private.send(said)
    group = Conversation(router, Address("console", "g1", "u1", is_group=True))
    replies = await group.send(CRISIS)
    assert replies[0].private  # the help itself goes privately
    shown = [*replies, *(r.group_notice for r in replies if r.group_notice)]
    assert all(reply.text != text_of(CaringMsg.CARING_OFFER) for reply in shown)
    # A forged press in the group schedules nothing.
    [notice] = await group.press_data(caring_module.CARING_YES)
    assert notice.text == text_of(GeneralMsg.BUTTON_EXPIRED)
    user = await find_user(router.services.db, "console", "u1")
    assert user is not None and await get_check(router.services.db, user.id) is None


async def test_a_stalled_offer_never_holds_the_crisis_reply_back(
    world: World, monkeypatch: pytest.MonkeyPatch, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    stalled = asyncio.Event()

    async def hanging(tx: Transaction, user_id: int, today: object) -> bool:
        stalled.set()
        await asyncio.Event().wait()  # a disk that never answers
        return True

    monkeypatch.setattr(caring_module.caring_checks, "record_offer", hanging)
    replies = await asyncio.wait_for(chat.send(CRISIS), 1.0)
    assert stalled.is_set()  # the offer really was stuck, not skipped
    assert replies[0].text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert all(reply.text != text_of(CaringMsg.CARING_OFFER) for reply in replies)


async def test_a_slow_question_again_does_not_lose_the_offer(
    world: World, monkeypatch: pytest.MonkeyPatch, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")

    async def hanging(db: object, user_id: int) -> None:
        await asyncio.Event().wait()  # the read of the open question never comes back

    monkeypatch.setattr(router_module.flow_positions, "get_position", hanging)
    replies = await asyncio.wait_for(chat.send(CRISIS), 1.0)
    assert [reply.text for reply in replies[1:]] == [text_of(CaringMsg.CARING_OFFER)]
    monkeypatch.undo()
    [scheduled, *_] = await chat.press(text_of(CaringMsg.CARING_OFFER_YES))
    assert scheduled.text == text_of(CaringMsg.CARING_SCHEDULED, time="08:30")


# Yes, no, and the message itself --------------------------------------------------------


async def test_yes_brings_one_message_the_next_day_at_the_checkin_time(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    [scheduled] = await crisis_then_yes(chat, text_of)
    assert scheduled.text == text_of(CaringMsg.CARING_SCHEDULED, time="08:30")
    world.adapter.take()
    await world.run_until(TOMORROW - timedelta(hours=1, minutes=35))  # 08:25 in Berlin
    assert caring_checks_sent(world, text_of) == []
    await world.run_until(TOMORROW - timedelta(hours=1, minutes=30))  # 08:30 in Berlin
    [message] = caring_checks_sent(world, text_of)
    first_line = message.text.splitlines()[0]
    for word in ("crisis", "safe", "feel", "help", "hurt", "sad"):
        assert word not in first_line.lower()  # it may show on a lock screen
    assert not message.silent
    await world.run_until(TOMORROW + timedelta(days=3))
    assert caring_checks_sent(world, text_of) == []  # once, never again unasked
    check = await get_check(world.services.db, await user_id_of(world, chat))
    assert check is not None and check.next_due_at is None and check.claimed_at is None


async def test_a_second_yes_keeps_the_one_planned(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await crisis_then_yes(chat, text_of)
    world.clock.set(TOMORROW - timedelta(hours=8))  # 02:00 in Berlin, the day it is due
    [again] = await chat.press(text_of(CaringMsg.CARING_OFFER_YES))
    assert again.text == text_of(CaringMsg.CARING_SCHEDULED_TODAY, time="08:30")  # at 02:00
    world.adapter.take()
    await world.run_until(TOMORROW + timedelta(days=1))
    assert len(caring_checks_sent(world, text_of)) == 1


async def test_no_sends_nothing_and_is_not_offered_again_that_day(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await chat.send(CRISIS)
    [declined] = await chat.press(text_of(CaringMsg.CARING_OFFER_NO))
    assert declined.text == text_of(CaringMsg.CARING_DECLINED)
    world.clock.set(START + timedelta(hours=10))  # 20:00 in Berlin, the same day
    replies = await chat.send(CRISIS)
    assert all(reply.text != text_of(CaringMsg.CARING_OFFER) for reply in replies)
    world.adapter.take()
    await world.run_until(START + timedelta(days=3))
    assert caring_checks_sent(world, text_of) == []
    # Another day, another crisis: the offer is there again.
    replies = await chat.send(CRISIS)
    assert replies[1].text == text_of(CaringMsg.CARING_OFFER)


async def test_no_after_yes_cancels_it(world: World, text_of: Callable[..., str]) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await crisis_then_yes(chat, text_of)
    [declined] = await chat.press(text_of(CaringMsg.CARING_OFFER_NO))
    assert declined.text == text_of(CaringMsg.CARING_DECLINED)
    world.adapter.take()
    await world.run_until(TOMORROW + timedelta(days=1))
    assert caring_checks_sent(world, text_of) == []


async def test_without_a_checkin_time_it_comes_at_ten_local(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = world.chat("noor")
    await chat.send("/start")
    await chat.send("Asia/Tokyo")
    await chat.press(
        text_of(OnboardingMsg.TIMEZONE_YES)
    )  # and no check-in time: that question stays open
    world.clock.set(START + timedelta(hours=3))  # 21:00 in Tokyo
    [scheduled] = await crisis_then_yes(chat, text_of)
    assert scheduled.text == text_of(CaringMsg.CARING_SCHEDULED, time="10:00")
    world.adapter.take()
    due = datetime(2026, 3, 3, 1, 0, tzinfo=UTC)  # 10:00 in Tokyo
    await world.run_until(due - timedelta(minutes=5))
    assert caring_checks_sent(world, text_of) == []
    await world.run_until(due)
    assert len(caring_checks_sent(world, text_of)) == 1
    await world.run_until(due + timedelta(days=2))
    assert caring_checks_sent(world, text_of) == []


async def test_quiet_hours_move_it_to_their_end(world: World, text_of: Callable[..., str]) -> None:
    chat = world.chat("ana")
    await chat.send("/start")
    await chat.send("Europe/Berlin")
    await chat.press(text_of(OnboardingMsg.TIMEZONE_YES))  # no check-in time
    user_id = await user_id_of(world, chat)
    async with world.services.db.transaction() as tx:
        await set_quiet_hours(tx, user_id, QuietHours(time(22, 0), time(11, 15)))
    [scheduled] = await crisis_then_yes(chat, text_of)
    assert scheduled.text == text_of(CaringMsg.CARING_SCHEDULED, time="11:15")
    world.adapter.take()
    await world.run_until(TOMORROW + timedelta(hours=1, minutes=10))  # 11:10 in Berlin
    assert caring_checks_sent(world, text_of) == []
    await world.run_until(TOMORROW + timedelta(hours=1, minutes=15))
    [message] = caring_checks_sent(world, text_of)
    assert not message.silent


async def test_a_restart_before_it_is_due_still_delivers_it_once(
    settings: Settings, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        chat = await world.onboard("ana", "Europe/Berlin", "08:30")
        await crisis_then_yes(chat, text_of)
        await world.outbox.stop()
    clock.set(TOMORROW - timedelta(hours=3))  # down until the small hours
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        await world.run_until(TOMORROW)
        assert len(caring_checks_sent(world, text_of)) == 1
        await world.run_until(TOMORROW + timedelta(days=2))
        assert caring_checks_sent(world, text_of) == []
        await world.outbox.stop()


async def test_forget_before_it_is_due_sends_nothing_and_leaves_no_row(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await crisis_then_yes(chat, text_of)
    user_id = await user_id_of(world, chat)
    assert await get_check(world.services.db, user_id) is not None
    await chat.send("/forget")
    await chat.press(text_of(DataMsg.FORGET_YES))
    row = await world.services.db.fetch_one("SELECT COUNT(*) AS n FROM caring_checks")
    assert row is not None and row["n"] == 0
    world.adapter.take()
    await world.run_until(TOMORROW + timedelta(days=1))
    assert caring_checks_sent(world, text_of) == []


async def test_mydata_shows_the_pending_caring_check(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await crisis_then_yes(chat, text_of)
    await chat.send("/mydata")
    export = json.loads(chat.last[-1].text)["caring_check"]
    assert export["due_at"] == "2026-03-03T07:30:00+00:00"  # 08:30 in Berlin
    assert export["last_offered_on"] == "2026-03-02"
    assert export["asked_at"] == START.isoformat()


# Its buttons ----------------------------------------------------------------------------


async def received_check(
    world: World, text_of: Callable[..., str], with_plan: bool = False
) -> Conversation:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await chat.send("Germany")  # the country question, answered
    if with_plan:
        await chat.send("/plan")
        await chat.send("Not sleeping")  # one part written
        await chat.send("/cancel")
    await crisis_then_yes(chat, text_of)
    world.adapter.take()
    await world.run_until(TOMORROW)
    chat.history = caring_checks_sent(world, text_of)
    assert len(chat.history) == 1
    return chat


async def test_its_buttons_lead_where_they_say(world: World, text_of: Callable[..., str]) -> None:
    chat = await received_check(world, text_of)
    labels = [button.label for button in chat.history[0].flat_buttons]
    assert labels == [
        text_of(CaringMsg.CARING_SOS_BUTTON),
        text_of(CaringMsg.CARING_WRITE_PLAN_BUTTON),  # no plan yet: the button begins one
        text_of(CaringMsg.CARING_PAUSE_BUTTON),
        text_of(CaringMsg.CARING_OKAY_BUTTON),
    ]
    check = chat.history[0]
    pressed = [reply.text for reply in await chat.press(text_of(CaringMsg.CARING_SOS_BUTTON))]
    assert pressed == [reply.text for reply in await chat.send("/sos")]
    assert "110" in pressed[0]  # Germany's own numbers: the user's country is known
    chat.history = [check]
    [okay] = await chat.press(text_of(CaringMsg.CARING_OKAY_BUTTON))
    assert okay.text == text_of(CaringMsg.CARING_OKAY_REPLY)
    chat.history = [check]
    pressed = [
        reply.text for reply in await chat.press(text_of(CaringMsg.CARING_WRITE_PLAN_BUTTON))
    ]
    assert pressed == [reply.text for reply in await chat.send("/plan")]
    if "plan" not in {command.value for command in Command}:
        assert pressed == [text_of(GeneralMsg.UNKNOWN_COMMAND)]
    chat.history = [check]
    pressed = [reply.text for reply in await chat.press(text_of(CaringMsg.CARING_PAUSE_BUTTON))]
    position = await get_position(world.services.db, await user_id_of(world, chat))
    assert position is not None and position.flow == Pause.name
    await chat.send("/cancel")
    assert pressed == [reply.text for reply in await chat.send("/pause")]


async def test_with_a_plan_its_button_says_my_plan_and_shows_it(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await received_check(world, text_of, with_plan=True)
    labels = [button.label for button in chat.history[0].flat_buttons]
    assert labels[1] == text_of(CaringMsg.CARING_PLAN_BUTTON)
    await chat.press(text_of(CaringMsg.CARING_PLAN_BUTTON))
    assert "Not sleeping" in chat.last[-1].text  # the plan, shown


async def test_a_typed_yes_right_after_the_offer_answers_the_offer_not_the_plan(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await chat.send("Germany")
    await chat.send("/plan")
    await chat.send("no sleep")
    await chat.send(CRISIS)
    assert text_of(CaringMsg.CARING_OFFER) in [reply.text for reply in chat.last]
    [scheduled] = await chat.send("yes")
    assert scheduled.text == text_of(CaringMsg.CARING_SCHEDULED, time="08:30")
    check = await get_check(world.services.db, await user_id_of(world, chat))
    assert check is not None and check.next_due_at is not None
    # The plan's question stays open, and "yes" was not written into it.
    await chat.send("A long walk")
    uid = await user_id_of(world, chat)
    parts = await read_plan(world.services.db, world.services.cipher, uid)
    assert {part.part: part.text for part in parts} == {"signs": "no sleep", "alone": "A long walk"}


async def test_a_typed_no_outside_a_flow_declines_and_only_right_after_the_offer(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await chat.send("Germany")
    await chat.send(CRISIS)
    [declined] = await chat.send("No")
    assert declined.text == text_of(CaringMsg.CARING_DECLINED)
    [later] = await chat.send("no")  # the offer is no longer the last thing shown
    assert later.text == text_of(GeneralMsg.UNEXPECTED_TEXT)
