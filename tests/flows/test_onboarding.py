from __future__ import annotations

import random
from collections.abc import Callable

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import AnswersMsg, OnboardingMsg
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage.checkin_slots import list_slots
from bot.storage.flow_positions import get_position
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation


async def test_onboarding_stores_timezone_and_time(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    assert "not: a therapist, a crisis line, or an emergency service" in chat.text
    assert "anyone who can open this device" in chat.text
    assert chat.last[-1].text == text_of(OnboardingMsg.ASK_TIMEZONE)

    await chat.send("europe/berlin")  # any case is understood
    assert chat.text == text_of(
        OnboardingMsg.TIMEZONE_CONFIRM, place="Berlin, Germany (Europe/Berlin)", time="10:00"
    )
    await chat.press(text_of(OnboardingMsg.TIMEZONE_YES))
    assert chat.text == text_of(OnboardingMsg.ASK_TIME)

    await chat.send("8:30")
    done, country = chat.last
    assert done.text == text_of(
        OnboardingMsg.ONBOARDING_DONE, time="08:30 (8:30 am)", timezone="Europe/Berlin"
    )
    assert country.text == text_of(OnboardingMsg.ASK_COUNTRY_SUGGESTED, country="Germany")
    await chat.press("Germany")

    user = await find_user(services.db, "console", "u1")
    assert user is not None
    assert user.timezone == "Europe/Berlin"
    assert [slot.local_time for slot in await list_slots(services.db, user.id)] == ["08:30"]
    assert user.onboarded_at is not None
    assert await get_position(services.db, user.id) is None


async def test_unknown_timezone_is_refused_with_help(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    for bad in ("Mars/Phobos", "UTC+25", "Qwzx Plmkt", "../../etc/passwd", "posix/Europe/Berlin"):
        await chat.send(bad)
        assert chat.text == text_of(OnboardingMsg.BAD_TIMEZONE), bad
    user = await find_user(services.db, "console", "u1")
    assert user is not None and user.timezone is None
    await chat.send("Asia/Kolkata")
    assert chat.text == text_of(
        OnboardingMsg.TIMEZONE_CONFIRM, place="Kolkata, India (Asia/Kolkata)", time="14:30"
    )


async def test_impossible_time_is_refused_with_help(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    await chat.send("America/New_York")
    await chat.press(text_of(OnboardingMsg.TIMEZONE_YES))
    for bad in ("25:99", "24:00", "2561", "-1:30"):
        await chat.send(bad)
        assert chat.text == text_of(OnboardingMsg.BAD_TIME), bad
    await chat.send("12:60")  # the minutes are the problem, and the reply says so
    assert chat.text == text_of(AnswersMsg.TIME_BAD_MINUTES)
    await chat.send("21.05")
    assert chat.last[0].text == text_of(
        OnboardingMsg.ONBOARDING_DONE, time="21:05 (9:05 pm)", timezone="America/New_York"
    )


async def test_onboarding_resumes_after_restart(
    settings: Settings, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    async with open_services(settings, clock) as first:
        chat = Conversation(Router(first), chat_address())
        await chat.send("/start")
        await chat.send("Australia/Lord_Howe")
        await chat.press(text_of(OnboardingMsg.TIMEZONE_YES))
        assert chat.text == text_of(OnboardingMsg.ASK_TIME)

    async with open_services(settings, clock) as second:
        chat = Conversation(Router(second, rng=random.Random(1)), chat_address())
        await chat.send("07:15")
        assert chat.last[0].text == text_of(
            OnboardingMsg.ONBOARDING_DONE, time="07:15 (7:15 am)", timezone="Australia/Lord_Howe"
        )


async def test_start_again_after_onboarding_welcomes_back(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    await chat.send("UTC")
    await chat.send("10:00")
    await chat.send("/start")
    assert chat.text == text_of(OnboardingMsg.WELCOME_BACK)


def chat_address() -> Address:
    return Address("console", "c9", "u9")
