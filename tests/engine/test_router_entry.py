"""The router's way in: a deep link runs its command, an edit is screened but answers
nothing else, and a stalled user lookup never holds a crisis reply back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest

from bot.content_pack.commands import Command
from bot.content_pack.ids import AnswersMsg, GeneralMsg, OnboardingMsg, SafetyMsg
from bot.core.events import Address, CommandIssued, TextMessage
from bot.engine import router as router_module
from bot.engine.router import Router
from bot.flows.checkin import CheckInStep
from bot.flows.context import Services
from bot.storage.db import Database, Params, Row
from bot.storage.flow_positions import get_position
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation
from tests.helpers.faults import every_read_through_fetch_all

CRISIS = "i want to die"


class HangingReads:
    """Every read on the database waits until `release` is set, as on a stalled disk."""

    def __init__(self, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
        self.release = asyncio.Event()
        self.reached = asyncio.Event()  # a read has started waiting
        real = db.fetch_all

        async def hanging(sql: str, params: Params = ()) -> list[Row]:
            self.reached.set()
            await self.release.wait()
            return await real(sql, params)

        monkeypatch.setattr(db, "fetch_all", hanging)
        every_read_through_fetch_all(db, monkeypatch)


@pytest.fixture
async def onboarded(chat: Conversation) -> AsyncIterator[Conversation]:
    """A user in Berlin (so their helplines are Germany's), at the first check-in question."""
    await chat.send("/start")
    await chat.send("Europe/Berlin")
    await chat.send("08:30")
    yield chat


def unknown_country_reply(router: Router, text: str) -> str:
    found = router.safety.screen(text, "en", None, is_group=False)
    assert found is not None
    return found.replies[0].text


async def test_start_sos_answers_with_the_sos_reply_at_once(
    chat: Conversation, router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    replies = await chat.send("/start sos")
    assert [reply.text for reply in replies] == [
        reply.text for reply in router.safety.sos_replies("en", None, is_group=False)
    ]
    assert text_of(GeneralMsg.UNKNOWN_COMMAND) not in chat.text
    # Nothing was set up on the way: the same person can still begin from the welcome.
    replies = await chat.send("/start")
    assert [reply.text for reply in replies] == [
        text_of(OnboardingMsg.WELCOME),
        text_of(OnboardingMsg.ASK_TIMEZONE),
    ]


@pytest.mark.parametrize("command", [c for c in Command if c is not Command.START])
async def test_every_deep_link_runs_its_command(
    router: Router, services: Services, command: Command
) -> None:
    linked = Conversation(router, chat_address("linked"))
    typed = Conversation(router, chat_address("typed"))
    via_link = await linked.send(f"/start {command.value}")
    direct = await typed.send(f"/{command.value}")
    if command is Command.AFFIRM:  # a random thought each time: both are thoughts
        pool = {item.text for item in services.content.affirmations("en")}
        assert {via_link[0].text, direct[0].text} <= pool
    else:
        assert [r.text for r in via_link] == [r.text for r in direct]


def chat_address(user: str) -> Address:
    return Address("console", user, user)


async def test_an_ordinary_edit_answers_nothing_and_leaves_the_step_as_it_was(
    onboarded: Conversation, router: Router, services: Services
) -> None:
    await onboarded.send("/checkin")
    address = onboarded.address
    replies = await router.handle(TextMessage(address, "4", edited=True))
    assert replies == []
    user = await find_user(services.db, address.platform, address.user_id)
    assert user is not None
    position = await get_position(services.db, user.id)
    # "4" was not taken as the mood
    assert position is not None and position.step == CheckInStep.MOOD


async def test_a_crisis_in_an_edit_gets_the_crisis_reply(
    onboarded: Conversation, router: Router, text_of: Callable[..., str]
) -> None:
    reply, *_ = await router.handle(TextMessage(onboarded.address, CRISIS, edited=True))
    assert reply.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))


async def test_a_hanging_read_does_not_hold_the_crisis_reply_back(
    onboarded: Conversation,
    router: Router,
    services: Services,
    monkeypatch: pytest.MonkeyPatch,
    text_of: Callable[..., str],
) -> None:
    known, *_ = await onboarded.send(CRISIS)  # then the open question, shown again
    assert known.text != unknown_country_reply(router, CRISIS)  # Berlin's helplines
    reads = HangingReads(services.db, monkeypatch)
    reply, *_ = await asyncio.wait_for(onboarded.send(CRISIS), 1.0)
    assert reply.text == unknown_country_reply(router, CRISIS)
    assert reads.reached.is_set()  # the lookup really was stuck, not skipped
    # /sos and words after a command too: neither waits on the read.
    [sos] = await asyncio.wait_for(onboarded.send("/sos"), 1.0)
    assert sos.text == router.safety.sos_replies("en", None, is_group=False)[0].text
    [after_command] = await asyncio.wait_for(onboarded.send(f"/pause {CRISIS}"), 1.0)
    assert after_command.text == unknown_country_reply(router, CRISIS)
    # The rest needs the database: it hears kindly that something went wrong, no hang.
    monkeypatch.setattr(router_module, "USER_LOOKUP_GIVE_UP_SECONDS", 0.2)
    [rest] = await asyncio.wait_for(onboarded.send("4"), 2.0)
    assert rest.text == text_of(GeneralMsg.SOMETHING_WENT_WRONG)
    reads.release.set()
    again, *_ = await onboarded.send(CRISIS)
    assert again.text == known.text  # the disk is back: their own country's helplines


async def test_a_read_back_before_giving_up_carries_on_as_usual(
    onboarded: Conversation,
    router: Router,
    services: Services,
    monkeypatch: pytest.MonkeyPatch,
    text_of: Callable[..., str],
) -> None:
    await onboarded.send("/checkin")
    reads = HangingReads(services.db, monkeypatch)
    answering = asyncio.ensure_future(onboarded.send("how are you"))
    await reads.reached.wait()
    reads.release.set()
    replies = await answering
    assert replies[0].text == text_of(
        AnswersMsg.USE_BUTTONS_BELOW
    )  # the step's own answer, not an error


async def test_screen_alone_is_bounded_too(
    onboarded: Conversation, router: Router, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    HangingReads(services.db, monkeypatch)
    event = CommandIssued(onboarded.address, "wipe", CRISIS)
    replies = await asyncio.wait_for(router.screen(event), 1.0)
    assert replies is not None
    assert replies[0].text == unknown_country_reply(router, CRISIS)
