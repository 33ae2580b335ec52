"""/plan on Telegram: written, shown (also from "My plan" under /sos and a crisis reply, and
in pieces Telegram accepts), changed, deleted, exported and forgotten; and a crisis reply
that still goes out at once when the user's row cannot be read."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta

from bot.content_pack.ids import CheckinMsg, DataMsg, GeneralMsg, PlanMsg, SafetyMsg
from bot.flows.context import Services
from bot.flows.plan_parts import PART_LIMIT, SECTIONS
from bot.storage.db import Row
from tests.fakes.telegram_api import StoredMessage
from tests.helpers.telegram_world import TelegramWorld

ANA, BEN = 1301, 1302
CRISIS = "i want to die"
SIGNS = "Not eating, scrolling their page at 3 am"
TELEGRAM_LIMIT = 4096


def labels(message: StoredMessage) -> list[str]:
    rows = (message.reply_markup or {}).get("inline_keyboard", [])
    return [button["text"] for row in rows for button in row]


async def write_plan(world: TelegramWorld, text_of: Callable[..., str], signs: str) -> None:
    """The first part written, every other skipped, no four-weekly note."""
    await world.says(ANA, "/plan")
    assert (
        world.last_text(ANA)
        == f"{text_of(PlanMsg.PLAN_STEP_OF, n=1)} {text_of(PlanMsg.PLAN_ASK_SIGNS)}"
    )
    await world.says(ANA, signs)
    while (
        world.last_text(ANA)
        != f"{text_of(PlanMsg.PLAN_STEP_OF, n=7)} {text_of(PlanMsg.PLAN_REASONS_EMPTY)}"
    ):
        await world.taps(ANA, text_of(PlanMsg.PLAN_SKIP))
    await world.taps(ANA, text_of(PlanMsg.PLAN_NEXT))
    await world.taps(ANA, text_of(PlanMsg.PLAN_REVIEW_NO))
    assert world.last_text(ANA) == text_of(PlanMsg.PLAN_SAVED)


def crisis_replies(world: TelegramWorld, text_of: Callable[..., str]) -> list[StoredMessage]:
    intro = text_of(SafetyMsg.SAFETY_CRISIS_INTRO)
    return [m for m in world.bot_messages(ANA) if (m.text or "").startswith(intro)]


async def rows_of(services: Services, table: str) -> list[Row]:
    return await services.db.fetch_all(f"SELECT * FROM {table}")


async def test_a_plan_written_shown_changed_and_deleted_on_telegram(
    telegram: TelegramWorld, services: Services, text_of: Callable[..., str]
) -> None:
    await write_plan(telegram, text_of, SIGNS)
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_SEE))
    view = telegram.last_text(ANA)
    assert view.startswith(text_of(PlanMsg.PLAN_HEADING))
    assert f"1. {text_of(SECTIONS[0].title)}\n{SIGNS}" in view
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_DONE))

    # "My plan" comes first under /sos, and shows the plan to read.
    await telegram.says(ANA, "/sos")
    assert labels(telegram.bot_messages(ANA)[-1])[0] == text_of(PlanMsg.PLAN_BUTTON)
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_BUTTON))
    shown = telegram.last_text(ANA)
    assert SIGNS in shown and shown.endswith(text_of(PlanMsg.PLAN_CHANGE_HINT))

    # And under a crisis reply, in the middle of a check-in that stays open.
    await telegram.says(ANA, "/checkin")
    await telegram.says(ANA, CRISIS)
    crisis = crisis_replies(telegram, text_of)[-1]
    assert labels(crisis)[0] == text_of(PlanMsg.PLAN_BUTTON)
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_BUTTON))
    texts = [m.text or "" for m in telegram.bot_messages(ANA)[-2:]]
    assert SIGNS in texts[0]
    assert texts[1].startswith(text_of(GeneralMsg.QUESTION_AGAIN))
    await telegram.taps(ANA, text_of(CheckinMsg.MOOD_3))
    assert text_of(CheckinMsg.ASK_URGE) in telegram.last_text(ANA)
    await telegram.says(ANA, "/cancel")

    # Changed: the first part written again.
    await telegram.says(ANA, "/plan")
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_CHANGE))
    await telegram.taps(ANA, f"1 · {text_of(PlanMsg.PLAN_TITLE_SIGNS)}")
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_REWRITE))
    await telegram.says(ANA, "Sleeping all day")
    changed = telegram.last_text(ANA)
    assert "Sleeping all day" in changed and SIGNS not in changed

    # Deleted, after a deliberate tap.
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_DELETE))
    assert telegram.last_text(ANA) == text_of(PlanMsg.PLAN_DELETE_CONFIRM)
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_DELETE_YES))
    assert telegram.last_text(ANA) == text_of(PlanMsg.PLAN_DELETED)
    assert await rows_of(services, "safety_plan_parts") == []
    await telegram.says(ANA, "/sos")
    assert text_of(PlanMsg.PLAN_BUTTON) not in labels(telegram.bot_messages(ANA)[-1])


async def test_a_long_plan_arrives_in_pieces_telegram_accepts(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await telegram.says(ANA, "/plan")
    long_part = ("a hard evening " * 120)[: PART_LIMIT.characters].strip()
    for _ in range(6):  # every text part at its limit
        await telegram.says(ANA, long_part)
        if telegram.last_text(ANA).startswith("5 of 7"):
            await telegram.taps(ANA, text_of(PlanMsg.PLAN_SKIP))
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_NEXT))
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_REVIEW_NO))
    before = len(telegram.bot_messages(ANA))
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_SEE))
    pieces = telegram.bot_messages(ANA)[before:]
    assert len(pieces) > 1
    assert all(len(piece.text or "") <= TELEGRAM_LIMIT for piece in pieces)
    whole = "\n\n".join(piece.text or "" for piece in pieces)
    assert whole.count(long_part) == 6
    assert labels(pieces[-1])[0] == text_of(PlanMsg.PLAN_CHANGE)  # the buttons under the end


async def test_mydata_shows_the_plan_and_forget_leaves_no_row_on_telegram(
    telegram: TelegramWorld, services: Services, text_of: Callable[..., str]
) -> None:
    await write_plan(telegram, text_of, SIGNS)
    await telegram.says(ANA, "/mydata")
    export = json.loads(telegram.last_text(ANA))
    assert [(p["part"], p["text"]) for p in export["safety_plan"]] == [("signs", SIGNS)]
    await telegram.says(ANA, "/forget")
    await telegram.taps(ANA, text_of(DataMsg.FORGET_YES))
    assert await rows_of(services, "safety_plan_parts") == []
    assert await rows_of(services, "users") == []


async def test_a_stalled_user_lookup_sends_the_crisis_reply_at_once_without_my_plan(
    telegram: TelegramWorld,
    stalled_reads: Callable[[], asyncio.Event],
    text_of: Callable[..., str],
) -> None:
    await write_plan(telegram, text_of, SIGNS)
    before = len(telegram.tg.calls)
    release = stalled_reads()
    pushed = asyncio.get_running_loop().time()
    telegram.tg.user_sends_text(ANA, ANA, CRISIS)
    await telegram.tg.wait_for("sendMessage", timeout=1.0, since=before)
    assert asyncio.get_running_loop().time() - pushed < 1.0
    crisis = telegram.bot_messages(ANA)[-1]
    assert (crisis.text or "").startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert text_of(PlanMsg.PLAN_BUTTON) not in labels(crisis)  # unknown in time: left out
    release.set()
    await telegram.settled()
    await telegram.says(ANA, CRISIS)  # the disk is back: the button is back
    assert labels(crisis_replies(telegram, text_of)[-1])[0] == text_of(PlanMsg.PLAN_BUTTON)


async def test_the_four_weekly_note_on_telegram_only_for_who_asked_and_review_opens_the_plan(
    telegram: TelegramWorld, services: Services, text_of: Callable[..., str]
) -> None:
    await write_plan(telegram, text_of, SIGNS)  # said no
    await telegram.says(ANA, "/plan")
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_NOTES_ON))
    [review] = await rows_of(services, "plan_reviews")
    due = datetime.fromtimestamp(review["next_due_at"], UTC)
    assert due.time() == time(10, 0)  # no check-in time set: late morning, in UTC
    telegram.clock.set(due - timedelta(minutes=1))
    await telegram.dispatcher.tick()
    await telegram.outbox.drain()
    assert telegram.last_text(ANA) != text_of(PlanMsg.PLAN_REVIEW_NOTE)  # not yet
    telegram.clock.set(due)
    await telegram.dispatcher.tick()
    await telegram.outbox.drain()
    note = telegram.bot_messages(ANA)[-1]
    assert note.text == text_of(PlanMsg.PLAN_REVIEW_NOTE)
    assert labels(note) == [
        text_of(PlanMsg.PLAN_REVIEW_GO),
        text_of(PlanMsg.PLAN_REVIEW_LATER),
        text_of(PlanMsg.PLAN_REVIEW_STOP),
    ]
    await telegram.taps(ANA, text_of(PlanMsg.PLAN_REVIEW_GO))
    assert SIGNS in telegram.last_text(ANA)
    # Someone who never asked for it hears nothing.
    await telegram.says(BEN, "/plan")
    await telegram.says(BEN, "Loud rooms")
    telegram.clock.set(due + timedelta(days=56))
    await telegram.dispatcher.tick()
    await telegram.outbox.drain()
    assert text_of(PlanMsg.PLAN_REVIEW_NOTE) not in telegram.tg.sent_texts(BEN)
