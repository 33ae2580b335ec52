"""/reasons, /nocontact, /contacted, and the country question."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from bot.content_pack.ids import (
    CheckinMsg,
    ContactedMsg,
    HistoryMsg,
    NoContactMsg,
    OnboardingMsg,
    PauseMsg,
    ReasonsMsg,
)
from bot.core.clock import ManualClock
from bot.flows.context import Services
from bot.storage.user_texts import TextKind, list_texts
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation


async def test_reasons_add_list_remove_encrypted(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/reasons")
    assert chat.text == text_of(ReasonsMsg.REASONS_EMPTY)
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))
    assert chat.text == text_of(ReasonsMsg.REASONS_ASK)
    await chat.send("I stopped seeing my friends")
    assert chat.last[0].protect
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))
    await chat.send("x" * 501)
    assert chat.text == text_of(PauseMsg.REASON_TOO_LONG, limit=500)
    await chat.send("  My sleep came back when I left  ")
    assert chat.text.endswith("1. I stopped seeing my friends\n2. My sleep came back when I left")
    await chat.press(text_of(ReasonsMsg.REASONS_REMOVE))
    await chat.press("1")
    assert chat.text.startswith(text_of(ReasonsMsg.REASONS_REMOVED))
    assert chat.text.endswith("1. My sleep came back when I left")
    await chat.press(text_of(ReasonsMsg.REASONS_DONE))
    assert chat.text == text_of(ReasonsMsg.REASONS_CLOSED)
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    kept = await list_texts(services.db, services.cipher, TextKind.REASON, user.id)
    assert [r.text for r in kept] == ["My sleep came back when I left"]
    raw = await services.db.fetch_one("SELECT body FROM reasons")
    assert raw is not None and b"sleep" not in bytes(raw["body"])


async def test_no_contact_counts_and_a_restart_keeps_the_longest(
    chat: Conversation, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await chat.send("/nocontact")
    assert chat.text == text_of(NoContactMsg.NC_OFF)
    await chat.press(text_of(NoContactMsg.NC_START))
    assert chat.text == text_of(NoContactMsg.NC_STARTED)
    clock.advance(timedelta(days=12, hours=3))
    await chat.send("/nocontact")
    assert chat.text == "12 days without contact. Your longest stretch so far: 12 days."
    await chat.press(text_of(NoContactMsg.NC_RESET))
    assert chat.text == text_of(NoContactMsg.NC_RESTARTED, longest=12)
    assert "your longest stretch, 12 days, stays yours" in chat.text
    clock.advance(timedelta(days=5))
    await chat.send("/nocontact")
    assert chat.text == "5 days without contact. Your longest stretch so far: 12 days."
    clock.advance(timedelta(days=10))
    await chat.send("/nocontact")
    assert chat.text == "15 days without contact. Your longest stretch so far: 15 days."
    await chat.press(text_of(NoContactMsg.NC_STOP))
    assert chat.text == text_of(NoContactMsg.NC_STOPPED)
    await chat.send("/nocontact")
    assert chat.text == text_of(NoContactMsg.NC_OFF)


async def test_contacted_walks_through_a_pause_before_replying(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("he texted me again last night")
    assert chat.text == text_of(ContactedMsg.CT_OFFER)
    await chat.press(text_of(PauseMsg.PAUSE_OFFER_YES))
    assert chat.text == f"{text_of(ContactedMsg.CT_INTRO)}\n\n{text_of(ContactedMsg.CT_Q_KIND)}"
    await chat.press(text_of(ContactedMsg.CT_PRACTICAL))
    assert chat.text == text_of(ContactedMsg.CT_Q_TIMING)
    await chat.press(text_of(ContactedMsg.CT_CAN_WAIT))
    assert chat.text == text_of(ContactedMsg.CT_Q_PROTECT)
    await chat.press(text_of(ContactedMsg.CT_BOUNDARIES))
    assert chat.text == "\n\n".join(
        text_of(m)
        for m in (
            ContactedMsg.CT_SUMMARY,
            ContactedMsg.CT_ADVICE_PRACTICAL,
            ContactedMsg.CT_ADVICE_WAIT,
            ContactedMsg.CT_ADVICE_BOUNDARIES,
        )
    )
    await chat.send("/contacted")
    await chat.press(text_of(ContactedMsg.CT_EMOTIONAL))
    await chat.press(text_of(ContactedMsg.CT_SOON))
    await chat.press(text_of(ContactedMsg.CT_SAFETY))
    assert "/sos" in chat.text


async def test_onboarding_suggests_the_country_of_the_time_zone(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    await chat.send("Europe/Dublin")
    await chat.send("07:00")
    done, question = chat.last
    assert done.text.startswith("Thank you. Your check-in time is 07:00 (7:00 am), Europe/Dublin")
    assert question.text == text_of(OnboardingMsg.ASK_COUNTRY_SUGGESTED, country="Ireland")
    await chat.press(text_of(OnboardingMsg.COUNTRY_OTHER))
    assert chat.text == text_of(OnboardingMsg.ASK_COUNTRY)
    await chat.send("Narnia")
    assert chat.text == text_of(OnboardingMsg.BAD_COUNTRY)
    await chat.send("uk")
    assert chat.text == text_of(OnboardingMsg.COUNTRY_SAVED, country="the United Kingdom")
    user = await find_user(services.db, "console", "u1")
    assert user is not None and user.country == "GB"
    await chat.send("/settings")
    assert "Country: United Kingdom" in chat.text
    await chat.press("Country")
    await chat.press("United Kingdom")
    assert chat.last[0].text == text_of(OnboardingMsg.COUNTRY_SAVED, country="the United Kingdom")


async def test_checkin_urge_button_and_strong_answer_lead_to_a_pause(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    await chat.press(text_of(CheckinMsg.CHECKIN_URGE_NOW))
    assert chat.text == text_of(PauseMsg.PAUSE_MENU)
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("strong")
    await chat.press(text_of(CheckinMsg.SKIP_NOTE))
    assert chat.last[-1].text == text_of(PauseMsg.PAUSE_OFFER)
    await chat.press(text_of(PauseMsg.PAUSE_OFFER_YES))
    assert chat.text == text_of(PauseMsg.PAUSE_MENU)


async def test_history_shows_pauses(chat: Conversation, text_of: Callable[..., str]) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_MORE))
    await chat.press(text_of(PauseMsg.PAUSE_DONE))
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_MORE))
    await chat.press(text_of(PauseMsg.PAUSE_REACHED_OUT))
    await chat.send("/history")
    paused = text_of(HistoryMsg.HISTORY_PAUSES, paused=2)
    pauses = f"{paused} {text_of(HistoryMsg.HISTORY_PASSED, passed=1)}"
    assert pauses == "2 pauses taken in the last 30 days. 1 urge passed."
    assert chat.text.endswith(pauses)
