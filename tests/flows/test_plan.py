"""/plan: a safety plan the user writes for themselves, every path through it, on the core."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.content_pack.ids import (
    CheckinMsg,
    DataMsg,
    GeneralMsg,
    Msg,
    PauseMsg,
    PlanMsg,
    ReasonsMsg,
    SafetyMsg,
)
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.flows.plan_parts import SECTIONS
from bot.flows.plan_review_note import NOTE_REVIEW
from bot.safety.screen import SOS_PLAN
from bot.storage.safety_plans import read_plan, review_due_at
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation

CRISIS = "i want to die"
ANSWERS = {
    PlanMsg.PLAN_ASK_SIGNS: "Not sleeping, replaying old messages",
    PlanMsg.PLAN_ASK_ALONE: "A cold shower, a long walk",
    PlanMsg.PLAN_ASK_DISTRACT: "Mia, the library on Park Road",
    PlanMsg.PLAN_ASK_PEOPLE: "My sister Lea 0151 2345678",
    PlanMsg.PLAN_ASK_PROS: "Dr Weber, Tuesday group",
    PlanMsg.PLAN_ASK_SAFER: "Give the car keys to Lea",
}


async def onboard_in_berlin(chat: Conversation) -> None:
    """A user in Berlin: their helplines are Germany's, their check-in time 08:30."""
    await chat.send("/start")
    await chat.send("Europe/Berlin")
    await chat.send("08:30")


async def user_row_id(services: Services, user: str = "u1") -> int:
    found = await find_user(services.db, "console", user)
    assert found is not None
    return found.id


async def stored_parts(services: Services) -> dict[str, bytes]:
    rows = await services.db.fetch_all("SELECT part, body FROM safety_plan_parts")
    return {row["part"]: row["body"] for row in rows}


async def has_plan(services: Services) -> bool:
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    return user.has_plan


def plan_lines(router: Router, country: str = "DE") -> list[str]:
    lines = router.safety.plan_lines("en", country)
    assert len(lines) > 1  # the emergency number and at least one helpline
    return lines


async def write_whole_plan(
    chat: Conversation, text_of: Callable[..., str], opt_in: bool = False
) -> None:
    await chat.send("/plan")
    for ask in (PlanMsg.PLAN_ASK_SIGNS, PlanMsg.PLAN_ASK_ALONE, PlanMsg.PLAN_ASK_DISTRACT):
        assert chat.text.endswith(text_of(ask))
        await chat.send(ANSWERS[ask])
    assert chat.text.endswith(text_of(PlanMsg.PLAN_ASK_PEOPLE))
    await chat.send(ANSWERS[PlanMsg.PLAN_ASK_PEOPLE])
    await chat.press(text_of(PlanMsg.PLAN_LINES_KEEP))
    assert chat.text.endswith(text_of(PlanMsg.PLAN_ASK_PROS))
    await chat.send(ANSWERS[PlanMsg.PLAN_ASK_PROS])
    assert chat.text == numbered(text_of, 6, PlanMsg.PLAN_ASK_SAFER)
    await chat.send(ANSWERS[PlanMsg.PLAN_ASK_SAFER])
    await chat.press(text_of(PlanMsg.PLAN_NEXT))
    assert chat.text == text_of(PlanMsg.PLAN_ASK_REVIEW)
    await chat.press(text_of(PlanMsg.PLAN_REVIEW_YES if opt_in else PlanMsg.PLAN_REVIEW_NO))


def numbered(text_of: Callable[..., str], n: int, message: Msg, **values: str) -> str:
    """A question as asked while writing the plan: its place in the plan, then the words."""
    return f"{text_of(PlanMsg.PLAN_STEP_OF, n=n)} {text_of(message, **values)}"


def section_of(text: str, number: int, text_of: Callable[..., str]) -> str:
    """The lines under one numbered part of a plan as shown."""
    title = f"{number}. {text_of(SECTIONS[number - 1].title)}\n"
    start = text.index(title) + len(title)
    end = text.find("\n\n", start)
    return text[start : None if end < 0 else end]


async def test_writing_every_part_keeps_it_sealed_and_shows_it_readably(
    chat: Conversation,
    router: Router,
    services: Services,
    clock: ManualClock,
    text_of: Callable[..., str],
) -> None:
    await onboard_in_berlin(chat)
    await chat.send("/reasons")
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))
    await chat.send("I want quiet mornings again")
    await chat.press(text_of(ReasonsMsg.REASONS_DONE))
    await chat.send("/plan")
    assert chat.last[0].text == text_of(PlanMsg.PLAN_INTRO)
    for ask in (PlanMsg.PLAN_ASK_SIGNS, PlanMsg.PLAN_ASK_ALONE, PlanMsg.PLAN_ASK_DISTRACT):
        assert chat.text.endswith(text_of(ask))
        assert [b.label for b in chat.last[-1].flat_buttons] == [text_of(PlanMsg.PLAN_SKIP)]
        await chat.send(ANSWERS[ask])
    await chat.send(ANSWERS[PlanMsg.PLAN_ASK_PEOPLE])
    lines = plan_lines(router)  # Germany's, from the time zone
    offer = numbered(
        text_of, 5, PlanMsg.PLAN_LINES_OFFER, country="Germany", lines="\n".join(lines)
    )
    assert chat.text == offer
    await chat.press(text_of(PlanMsg.PLAN_LINES_KEEP))
    await chat.send(ANSWERS[PlanMsg.PLAN_ASK_PROS])
    await chat.send(ANSWERS[PlanMsg.PLAN_ASK_SAFER])
    shown = numbered(
        text_of, 7, PlanMsg.PLAN_REASONS_SHOW, reasons="1. I want quiet mornings again"
    )
    assert chat.text == shown
    await chat.press(text_of(PlanMsg.PLAN_NEXT))
    await chat.press(text_of(PlanMsg.PLAN_REVIEW_YES))
    assert chat.text == f"{text_of(PlanMsg.PLAN_NOTES_TURNED_ON)}\n\n{text_of(PlanMsg.PLAN_SAVED)}"

    # Sealed at rest, and the user row knows there is a plan.
    stored = await stored_parts(services)
    assert set(stored) == {"signs", "alone", "distract", "people", "lines", "pros", "safer"}
    assert all(b"Lea" not in body and b"Weber" not in body for body in stored.values())
    assert await has_plan(services)
    # The first note: four weeks on, at the check-in time (08:30 in Berlin).
    due = await review_due_at(services.db, await user_row_id(services))
    assert due is not None
    local = due.astimezone(ZoneInfo("Europe/Berlin"))
    assert (local.hour, local.minute) == (8, 30)
    assert local.date() - clock.now().astimezone(ZoneInfo("Europe/Berlin")).date() == timedelta(28)

    await chat.press(text_of(PlanMsg.PLAN_SEE))
    view = chat.last[-1]
    assert view.protect  # the user's own words
    assert view.text.startswith(text_of(PlanMsg.PLAN_HEADING))
    assert "{" not in view.text and "signs" not in view.text  # readable, not data
    assert section_of(view.text, 1, text_of) == ANSWERS[PlanMsg.PLAN_ASK_SIGNS]
    assert section_of(view.text, 4, text_of) == ANSWERS[PlanMsg.PLAN_ASK_PEOPLE]
    help_lines = section_of(view.text, 5, text_of).splitlines()
    assert help_lines == [*lines, ANSWERS[PlanMsg.PLAN_ASK_PROS]]
    assert section_of(view.text, 6, text_of) == ANSWERS[PlanMsg.PLAN_ASK_SAFER]
    assert section_of(view.text, 7, text_of) == "• I want quiet mornings again"
    labels = [b.label for b in view.flat_buttons]
    assert (
        text_of(PlanMsg.PLAN_NOTES_OFF) in labels and text_of(PlanMsg.PLAN_NOTES_ON) not in labels
    )
    await chat.press(text_of(PlanMsg.PLAN_DONE))
    assert chat.text == text_of(PlanMsg.PLAN_CLOSED)
    await chat.send("/plan")  # a plan already: shown, not asked again
    assert chat.text == view.text


async def test_skipping_every_part_saves_nothing_and_asks_nothing_more(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboard_in_berlin(chat)
    await chat.send("/plan")
    for _ in range(7):  # six questions and the helplines offered
        await chat.press(text_of(PlanMsg.PLAN_SKIP))
    assert chat.text == numbered(text_of, 7, PlanMsg.PLAN_REASONS_EMPTY)
    await chat.press(text_of(PlanMsg.PLAN_NEXT))
    assert chat.text == text_of(PlanMsg.PLAN_SAVED_NOTHING)  # no four-weekly question
    labels = [b.label for b in chat.last[-1].flat_buttons]
    assert labels == [text_of(PlanMsg.PLAN_OPEN_REASONS), text_of(PlanMsg.PLAN_DONE)]
    assert await stored_parts(services) == {}
    assert not await has_plan(services)
    await chat.press(text_of(PlanMsg.PLAN_OPEN_REASONS))  # the reasons list, as /reasons opens it
    assert chat.text == text_of(ReasonsMsg.REASONS_EMPTY)
    await chat.send("/plan")
    assert chat.last[0].text == text_of(PlanMsg.PLAN_INTRO)


async def test_skip_can_be_typed_and_an_empty_answer_is_asked_again(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/plan")
    await chat.send("skip")
    assert chat.text == numbered(text_of, 2, PlanMsg.PLAN_ASK_ALONE)
    await chat.send("   ")
    assert chat.text == numbered(text_of, 2, PlanMsg.PLAN_ASK_ALONE)
    assert await stored_parts(services) == {}


async def test_without_a_country_no_helplines_are_offered(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/plan")
    for _ in range(4):
        await chat.press(text_of(PlanMsg.PLAN_SKIP))
    asked = numbered(text_of, 5, PlanMsg.PLAN_ASK_PROS)
    assert chat.text == f"{text_of(PlanMsg.PLAN_LINES_NONE)}\n\n{asked}"


async def test_one_part_written_again(chat: Conversation, text_of: Callable[..., str]) -> None:
    await onboard_in_berlin(chat)
    await write_whole_plan(chat, text_of)
    await chat.send("/plan")
    await chat.press(text_of(PlanMsg.PLAN_CHANGE))
    assert chat.text == text_of(PlanMsg.PLAN_PICK)
    await chat.press(f"1 · {text_of(PlanMsg.PLAN_TITLE_SIGNS)}")
    assert chat.text == text_of(PlanMsg.PLAN_PART_MENU, title=text_of(PlanMsg.PLAN_TITLE_SIGNS))
    await chat.press(text_of(PlanMsg.PLAN_REWRITE))
    assert chat.text == text_of(PlanMsg.PLAN_ASK_SIGNS)
    await chat.send("Checking their profile at night")
    view = chat.last[-1].text
    assert view.startswith(text_of(PlanMsg.PLAN_PART_SAVED))
    assert section_of(view, 1, text_of) == "Checking their profile at night"
    assert section_of(view, 2, text_of) == ANSWERS[PlanMsg.PLAN_ASK_ALONE]  # the rest as it was
    # Back from the text step leaves the part as it is.
    await chat.press(text_of(PlanMsg.PLAN_CHANGE))
    await chat.press(f"2 · {text_of(PlanMsg.PLAN_TITLE_ALONE)}")
    await chat.press(text_of(PlanMsg.PLAN_REWRITE))
    await chat.press(text_of(PlanMsg.PLAN_BACK))
    assert section_of(chat.last[-1].text, 2, text_of) == ANSWERS[PlanMsg.PLAN_ASK_ALONE]


async def test_one_part_cleared(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboard_in_berlin(chat)
    await write_whole_plan(chat, text_of)
    await chat.send("/plan")
    await chat.press(text_of(PlanMsg.PLAN_CHANGE))
    await chat.press(f"6 · {text_of(PlanMsg.PLAN_TITLE_SAFER)}")
    await chat.press(text_of(PlanMsg.PLAN_CLEAR))
    view = chat.last[-1].text
    assert view.startswith(text_of(PlanMsg.PLAN_PART_CLEARED))
    assert section_of(view, 6, text_of) == text_of(PlanMsg.PLAN_PART_EMPTY)
    assert "safer" not in await stored_parts(services)
    # An empty part offers nothing to clear.
    await chat.press(text_of(PlanMsg.PLAN_CHANGE))
    await chat.press(f"6 · {text_of(PlanMsg.PLAN_TITLE_SAFER)}")
    labels = [b.label for b in chat.last[-1].flat_buttons]
    assert labels == [text_of(PlanMsg.PLAN_REWRITE), text_of(PlanMsg.PLAN_BACK)]


async def test_the_reasons_part_opens_the_reasons_list(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await onboard_in_berlin(chat)
    await write_whole_plan(chat, text_of)
    await chat.send("/plan")
    await chat.press(text_of(PlanMsg.PLAN_CHANGE))
    await chat.press(f"7 · {text_of(PlanMsg.PLAN_TITLE_REASONS)}")
    await chat.press(text_of(PlanMsg.PLAN_OPEN_REASONS))
    assert chat.text == text_of(ReasonsMsg.REASONS_EMPTY)
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))
    await chat.send("My own life back")
    await chat.send("/plan")
    assert section_of(chat.last[-1].text, 7, text_of) == "• My own life back"


async def test_the_helplines_offered_are_kept_removed_and_offered_again(
    chat: Conversation, router: Router, text_of: Callable[..., str]
) -> None:
    await onboard_in_berlin(chat)
    await write_whole_plan(chat, text_of)
    lines = plan_lines(router)
    await chat.send("/plan")
    await chat.press(text_of(PlanMsg.PLAN_CHANGE))
    await chat.press(f"5 · {text_of(PlanMsg.PLAN_TITLE_HELP)}")
    labels = [b.label for b in chat.last[-1].flat_buttons]
    assert labels == [
        text_of(PlanMsg.PLAN_REWRITE_OWN),
        text_of(PlanMsg.PLAN_REMOVE_LINE),
        text_of(PlanMsg.PLAN_OFFER_AGAIN),
        text_of(PlanMsg.PLAN_CLEAR),
        text_of(PlanMsg.PLAN_BACK),
    ]
    await chat.press(text_of(PlanMsg.PLAN_REMOVE_LINE))
    numbered = "\n".join(f"{n}. {line}" for n, line in enumerate(lines, start=1))
    assert chat.text == f"{text_of(PlanMsg.PLAN_PICK_LINE)}\n\n{numbered}"
    await chat.press("2")
    view = chat.last[-1].text
    assert view.startswith(text_of(PlanMsg.PLAN_LINE_REMOVED))
    kept = [line for n, line in enumerate(lines, start=1) if n != 2]
    assert section_of(view, 5, text_of).splitlines() == [*kept, ANSWERS[PlanMsg.PLAN_ASK_PROS]]
    # Their own words written again, the kept helplines untouched.
    await chat.press(text_of(PlanMsg.PLAN_CHANGE))
    await chat.press(f"5 · {text_of(PlanMsg.PLAN_TITLE_HELP)}")
    await chat.press(text_of(PlanMsg.PLAN_REWRITE_OWN))
    assert chat.text == text_of(PlanMsg.PLAN_ASK_PROS)
    await chat.send("Counsellor at the clinic, Mondays")
    help_part = section_of(chat.last[-1].text, 5, text_of).splitlines()
    assert help_part == [*kept, "Counsellor at the clinic, Mondays"]
    # All offered again, and kept.
    await chat.press(text_of(PlanMsg.PLAN_CHANGE))
    await chat.press(f"5 · {text_of(PlanMsg.PLAN_TITLE_HELP)}")
    await chat.press(text_of(PlanMsg.PLAN_OFFER_AGAIN))
    assert chat.text == text_of(PlanMsg.PLAN_LINES_OFFER, country="Germany", lines="\n".join(lines))
    await chat.press(text_of(PlanMsg.PLAN_LINES_KEEP))
    help_part = section_of(chat.last[-1].text, 5, text_of).splitlines()
    assert help_part == [*lines, "Counsellor at the clinic, Mondays"]
    # Cleared: both the helplines and their own words.
    await chat.press(text_of(PlanMsg.PLAN_CHANGE))
    await chat.press(f"5 · {text_of(PlanMsg.PLAN_TITLE_HELP)}")
    await chat.press(text_of(PlanMsg.PLAN_CLEAR))
    assert section_of(chat.last[-1].text, 5, text_of) == text_of(PlanMsg.PLAN_PART_EMPTY)


async def test_deleting_the_plan_asks_first_and_then_deletes_everything(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboard_in_berlin(chat)
    await write_whole_plan(chat, text_of, opt_in=True)
    await chat.send("/plan")
    await chat.press(text_of(PlanMsg.PLAN_DELETE))
    assert chat.text == text_of(PlanMsg.PLAN_DELETE_CONFIRM)
    await chat.send("yes")  # deleting waits for the tap itself
    assert await stored_parts(services) != {}
    await chat.press(text_of(PlanMsg.PLAN_DELETE_NO))
    assert chat.last[-1].text.startswith(text_of(PlanMsg.PLAN_KEPT))
    await chat.press(text_of(PlanMsg.PLAN_DELETE))
    await chat.press(text_of(PlanMsg.PLAN_DELETE_YES))
    assert chat.text == text_of(PlanMsg.PLAN_DELETED)
    assert await stored_parts(services) == {}
    assert not await has_plan(services)
    assert await review_due_at(services.db, await user_row_id(services)) is None
    await chat.send("/sos")
    assert text_of(PlanMsg.PLAN_BUTTON) not in [b.label for b in chat.last[0].flat_buttons]


async def test_the_four_weekly_note_is_turned_on_and_off_from_the_plan(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboard_in_berlin(chat)
    await write_whole_plan(chat, text_of)  # said no
    user_id = await user_row_id(services)
    assert await review_due_at(services.db, user_id) is None
    await chat.send("/plan")
    await chat.press(text_of(PlanMsg.PLAN_NOTES_ON))
    assert chat.last[-1].text.startswith(text_of(PlanMsg.PLAN_NOTES_TURNED_ON))
    assert await review_due_at(services.db, user_id) is not None
    await chat.press(text_of(PlanMsg.PLAN_NOTES_OFF))
    assert chat.last[-1].text.startswith(text_of(PlanMsg.PLAN_NOTES_TURNED_OFF))
    assert await review_due_at(services.db, user_id) is None


async def test_my_plan_comes_first_in_sos_and_crisis_replies_and_keeps_the_question_open(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await onboard_in_berlin(chat)
    await chat.send("/sos")
    assert text_of(PlanMsg.PLAN_BUTTON) not in [b.label for b in chat.last[0].flat_buttons]
    await write_whole_plan(chat, text_of)
    await chat.send("/sos")
    first = chat.last[0].buttons[0]
    assert [(b.label, b.data) for b in first] == [(text_of(PlanMsg.PLAN_BUTTON), SOS_PLAN)]
    await chat.send("/checkin")
    question = chat.last[-1].text
    await chat.send(CRISIS)
    assert chat.last[0].text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert chat.last[0].buttons[0][0].label == text_of(PlanMsg.PLAN_BUTTON)
    await chat.press(text_of(PlanMsg.PLAN_BUTTON))
    plan, again = chat.last
    assert plan.text.endswith(text_of(PlanMsg.PLAN_CHANGE_HINT))
    assert section_of(plan.text, 1, text_of) == ANSWERS[PlanMsg.PLAN_ASK_SIGNS]
    assert plan.protect and not plan.buttons  # to read; nothing in it moves the check-in on
    assert again.text == f"{text_of(GeneralMsg.QUESTION_AGAIN)}\n\n{question}"
    await chat.press(text_of(CheckinMsg.MOOD_3))  # the check-in goes on where it was
    assert text_of(CheckinMsg.ASK_URGE) in chat.text


async def test_my_plan_pressed_after_the_plan_was_deleted_says_so(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/plan")
    await chat.send("Short nights")
    await chat.send("/sos")
    await chat.send("/plan")
    await chat.press(text_of(PlanMsg.PLAN_DELETE))
    await chat.press(text_of(PlanMsg.PLAN_DELETE_YES))
    await chat.press_data(SOS_PLAN)
    assert chat.text == text_of(PlanMsg.PLAN_NONE)


async def test_mydata_shows_the_plan_and_forget_leaves_no_row(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboard_in_berlin(chat)
    await write_whole_plan(chat, text_of, opt_in=True)
    await chat.send("/mydata")
    export = json.loads(chat.last[-1].text)
    written = {item["part"]: item["text"] for item in export["safety_plan"]}
    assert written["signs"] == ANSWERS[PlanMsg.PLAN_ASK_SIGNS]
    assert written["pros"] == ANSWERS[PlanMsg.PLAN_ASK_PROS]
    assert export["plan_review"]["next_note_at"] is not None
    assert export["profile"]["has_safety_plan"] is True
    await chat.send("/forget")
    await chat.press(text_of(DataMsg.FORGET_YES))
    for table in ("safety_plan_parts", "plan_reviews"):
        assert await services.db.fetch_all(f"SELECT * FROM {table}") == []


async def test_the_plan_is_never_shown_in_a_group(
    chat: Conversation, router: Router, text_of: Callable[..., str]
) -> None:
    await chat.send("/plan")
    await chat.send("Short nights")
    group = Conversation(router, Address("console", "g1", "u1", is_group=True))
    for press in (SOS_PLAN, NOTE_REVIEW):  # forged into the group: neither shows a word of it
        await group.press_data(press)
        assert "Short nights" not in group.text
    assert group.text == text_of(GeneralMsg.BUTTON_EXPIRED)
    await group.send("/plan")
    assert group.text == text_of(GeneralMsg.GROUP_GO_PRIVATE)


async def test_a_note_pressed_after_forget_changes_nothing(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/plan")
    await chat.send("Short nights")
    await chat.send("/forget")
    await chat.press(text_of(DataMsg.FORGET_YES))
    await chat.press_data(NOTE_REVIEW)
    assert chat.text == text_of(GeneralMsg.BUTTON_EXPIRED)
    assert await services.db.fetch_all("SELECT id FROM users") == []


async def test_a_reason_written_at_the_last_part_joins_the_reasons_list(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/plan")
    for _ in range(6):  # parts 1 to 6, each skipped: a bounded loop, never a spin
        await chat.press(text_of(PlanMsg.PLAN_SKIP))
    assert chat.text == numbered(text_of, 7, PlanMsg.PLAN_REASONS_EMPTY)
    await chat.send("Peace at home")
    added = numbered(text_of, 7, PlanMsg.PLAN_REASONS_SHOW, reasons="1. Peace at home")
    assert chat.text == f"{text_of(ReasonsMsg.REASONS_ADDED)}\n\n{added}"
    long_reason = "a calm life of my own " * 40  # over a reason's limit
    [offer] = await chat.send(long_reason)
    assert offer.text == text_of(PauseMsg.REASON_TOO_LONG, limit=500)
    await chat.press(text_of(GeneralMsg.LONG_KEEP_FIRST))
    assert "2. a calm life of my own" in chat.text
    await chat.press(text_of(PlanMsg.PLAN_NEXT))
    assert chat.text == text_of(PlanMsg.PLAN_SAVED_REASONS_ONLY)  # and nothing to review
    await chat.send("/reasons")
    assert "1. Peace at home" in chat.text and "2. a calm life of my own" in chat.text


async def plan_parts(services: Services) -> dict[str, str]:
    """The plan as stored, opened: part → the user's words."""
    uid = await user_row_id(services)
    return {part.part: part.text for part in await read_plan(services.db, services.cipher, uid)}


async def test_crisis_words_in_a_plan_answer_get_the_crisis_reply_first_and_can_be_saved(
    chat: Conversation,
    services: Services,
    text_of: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    await chat.send("/plan")
    words = "When I start thinking I want to die and stop eating"
    replies = await chat.send(words)
    assert replies[0].text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))  # at once, first
    held = replies[-1]
    asked = numbered(text_of, 1, PlanMsg.PLAN_ASK_SIGNS)
    assert held.text == f"{text_of(PlanMsg.PLAN_CRISIS_HELD)}\n\n{asked}"
    assert text_of(GeneralMsg.ANSWER_NOT_SAVED) not in [reply.text for reply in replies]
    labels = [b.label for b in held.flat_buttons]
    assert labels == [text_of(PlanMsg.PLAN_KEEP_WRITTEN), text_of(PlanMsg.PLAN_SKIP)]
    assert await plan_parts(services) == {}  # nothing saved until they say so
    await chat.press(text_of(PlanMsg.PLAN_KEEP_WRITTEN))
    assert chat.text == numbered(text_of, 2, PlanMsg.PLAN_ASK_ALONE)
    assert await plan_parts(services) == {"signs": words}
    assert "stop eating" not in caplog.text


async def test_crisis_words_held_then_a_new_answer_typed_saves_the_new_one(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/plan")
    await chat.send(CRISIS)
    await chat.send("Not sleeping")
    assert chat.text == numbered(text_of, 2, PlanMsg.PLAN_ASK_ALONE)
    assert await plan_parts(services) == {"signs": "Not sleeping"}


async def test_text_typed_at_the_helplines_offer_is_kept_with_the_lines(
    chat: Conversation, router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    await onboard_in_berlin(chat)
    await chat.send("/plan")
    for _ in range(4):
        await chat.press(text_of(PlanMsg.PLAN_SKIP))
    replies = await chat.send("my therapist Dr Weber 030 1234")
    assert replies[0].text == text_of(PlanMsg.PLAN_LINES_OWN_KEPT)
    assert chat.text.endswith(numbered(text_of, 6, PlanMsg.PLAN_ASK_SAFER))
    parts = await plan_parts(services)
    assert parts == {
        "lines": "\n".join(plan_lines(router)),
        "pros": "my therapist Dr Weber 030 1234",
    }


async def test_a_plan_answer_written_slowly_is_still_taken_hours_later(
    chat: Conversation, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await chat.send("/plan")
    clock.advance(timedelta(hours=3))  # far past the general step expiry
    await chat.send("Not sleeping, replaying old messages")
    assert chat.text == numbered(text_of, 2, PlanMsg.PLAN_ASK_ALONE)
    assert await plan_parts(services) == {"signs": "Not sleeping, replaying old messages"}
    clock.advance(timedelta(hours=25))  # a day later: closed, as any question is
    await chat.send("A cold shower")
    assert chat.last[0].text == text_of(GeneralMsg.STEP_CLOSED)
    assert await plan_parts(services) == {"signs": "Not sleeping, replaying old messages"}


async def test_a_plan_left_unfinished_is_continued_where_it_was_left(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboard_in_berlin(chat)
    await chat.send("/plan")
    await chat.send(ANSWERS[PlanMsg.PLAN_ASK_SIGNS])
    await chat.send(ANSWERS[PlanMsg.PLAN_ASK_ALONE])
    await chat.send("/cancel")
    await chat.send("/plan")
    await chat.press(text_of(PlanMsg.PLAN_CONTINUE))
    assert chat.text == numbered(text_of, 3, PlanMsg.PLAN_ASK_DISTRACT)
    await chat.send(ANSWERS[PlanMsg.PLAN_ASK_DISTRACT])
    await chat.send(ANSWERS[PlanMsg.PLAN_ASK_PEOPLE])
    await chat.press(text_of(PlanMsg.PLAN_LINES_KEEP))
    await chat.press(text_of(PlanMsg.PLAN_SKIP))
    await chat.send(ANSWERS[PlanMsg.PLAN_ASK_SAFER])
    await chat.press(text_of(PlanMsg.PLAN_NEXT))
    assert chat.text == text_of(PlanMsg.PLAN_ASK_REVIEW)  # never asked before
    await chat.press(text_of(PlanMsg.PLAN_REVIEW_YES))
    assert chat.text == f"{text_of(PlanMsg.PLAN_NOTES_TURNED_ON)}\n\n{text_of(PlanMsg.PLAN_SAVED)}"
    await chat.send("/plan")
    assert text_of(PlanMsg.PLAN_CONTINUE) not in [b.label for b in chat.last[-1].flat_buttons]
    # A part left empty later: continuing goes only there, and the note is on already.
    await chat.press(text_of(PlanMsg.PLAN_CHANGE))
    await chat.press(f"3 · {text_of(PlanMsg.PLAN_TITLE_DISTRACT)}")
    await chat.press(text_of(PlanMsg.PLAN_CLEAR))
    await chat.press(text_of(PlanMsg.PLAN_CONTINUE))
    assert chat.text == numbered(text_of, 3, PlanMsg.PLAN_ASK_DISTRACT)
    await chat.send("The park")
    assert chat.text == numbered(text_of, 7, PlanMsg.PLAN_REASONS_EMPTY)
    await chat.press(text_of(PlanMsg.PLAN_NEXT))
    assert chat.text == text_of(PlanMsg.PLAN_SAVED)


async def test_a_part_changed_is_asked_without_its_place_in_the_plan(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await onboard_in_berlin(chat)
    await write_whole_plan(chat, text_of)
    await chat.send("/plan")
    await chat.press(text_of(PlanMsg.PLAN_CHANGE))
    await chat.press(f"2 · {text_of(PlanMsg.PLAN_TITLE_ALONE)}")
    await chat.press(text_of(PlanMsg.PLAN_REWRITE))
    assert chat.text == text_of(PlanMsg.PLAN_ASK_ALONE)
    assert "of 7" not in chat.text
