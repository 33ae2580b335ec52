"""The four-weekly note to look over one's plan: only when asked for, at the check-in time,
never in quiet hours, never on top of an open question; missed and refused as a routine
message is."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.content_pack.ids import CheckinMsg, PlanMsg
from bot.core.platform import RecipientUnreachable
from bot.core.replies import Reply
from bot.scheduling.checkin_due import DEFER_WHEN_BUSY
from bot.storage.safety_plans import review_due_at
from bot.storage.users import QuietHours, find_user, set_paused_until, set_quiet_hours
from tests.helpers.conversation import Conversation
from tests.helpers.world import World

BERLIN = ZoneInfo("Europe/Berlin")
FOUR_WEEKS = timedelta(days=28)


async def write_a_plan(chat: Conversation, text_of: Callable[..., str], opt_in: bool) -> None:
    """One part written, the rest skipped, and the note asked for (or not)."""
    await chat.send("/plan")
    await chat.send("Short nights, checking old photos")
    for _ in range(7):  # at most every part: never a loop that could spin for ever
        if text_of(PlanMsg.PLAN_REASONS_EMPTY) in chat.text:
            break
        await chat.press(text_of(PlanMsg.PLAN_SKIP))
    assert text_of(PlanMsg.PLAN_REASONS_EMPTY) in chat.text
    await chat.press(text_of(PlanMsg.PLAN_NEXT))
    await chat.press(text_of(PlanMsg.PLAN_REVIEW_YES if opt_in else PlanMsg.PLAN_REVIEW_NO))


def notes(world: World, text_of: Callable[..., str]) -> list[Reply]:
    return [
        reply for _, reply in world.adapter.sent if reply.text == text_of(PlanMsg.PLAN_REVIEW_NOTE)
    ]


async def due_of(world: World, user: str) -> datetime:
    found = await find_user(world.services.db, "test", user)
    assert found is not None
    due = await review_due_at(world.services.db, found.id)
    assert due is not None
    return due


async def test_the_note_comes_after_four_weeks_at_check_in_time_and_leaves_the_check_in_open(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await write_a_plan(chat, text_of, opt_in=True)
    due = await due_of(world, "ana")
    assert due.astimezone(BERLIN).time() == time(8, 30)
    assert due.astimezone(BERLIN).date() - world.clock.now().astimezone(BERLIN).date() == FOUR_WEEKS

    world.clock.set(due - timedelta(hours=1))
    world.adapter.take()
    sent_at = await world.run_until(due + timedelta(hours=1), step=timedelta(minutes=5))
    # The check-in at its time; the note right after, never on top of its question.
    assert sent_at == [due, due + DEFER_WHEN_BUSY]
    [(_, checkin), (_, note)] = world.adapter.take()
    assert text_of(CheckinMsg.ASK_MOOD) in checkin.text
    first_line = note.text.splitlines()[0]
    assert first_line == "A quick note from Steady."  # neutral on a lock screen
    assert "plan" not in first_line.casefold() and "safety" not in first_line.casefold()
    assert [b.label for b in note.flat_buttons] == [
        text_of(PlanMsg.PLAN_REVIEW_GO),
        text_of(PlanMsg.PLAN_REVIEW_LATER),
        text_of(PlanMsg.PLAN_REVIEW_STOP),
    ]
    chat.history = [checkin, note]
    await chat.press(text_of(PlanMsg.PLAN_REVIEW_LATER))
    assert chat.text == text_of(PlanMsg.PLAN_REVIEW_LATER_REPLY)
    await chat.press(text_of(CheckinMsg.MOOD_4))  # the check-in was never closed by the note
    assert text_of(CheckinMsg.ASK_URGE) in chat.text
    # And the next one four weeks on, at the check-in time again.
    following = await due_of(world, "ana")
    assert following.astimezone(BERLIN).time() == time(8, 30)
    assert following.astimezone(BERLIN).date() - due.astimezone(BERLIN).date() == FOUR_WEEKS


async def test_review_opens_the_plan_and_stop_turns_the_notes_off(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = world.chat("ben")  # never set a check-in time: late morning, in UTC
    await write_a_plan(chat, text_of, opt_in=True)
    due = await due_of(world, "ben")
    assert due.time() == time(10, 0)
    world.clock.set(due)
    await world.tick()
    chat.history = [reply for _, reply in world.adapter.take()]
    await chat.press(text_of(PlanMsg.PLAN_REVIEW_GO))
    assert chat.last[-1].text.startswith(text_of(PlanMsg.PLAN_HEADING))
    assert "Short nights, checking old photos" in chat.last[-1].text
    await chat.press(text_of(PlanMsg.PLAN_REVIEW_STOP))
    assert chat.text == text_of(PlanMsg.PLAN_NOTES_STOPPED)
    found = await find_user(world.services.db, "test", "ben")
    assert found is not None and await review_due_at(world.services.db, found.id) is None
    world.clock.set(due + timedelta(days=28))
    await world.tick()
    assert notes(world, text_of) == []


async def test_the_note_waits_for_the_end_of_quiet_hours(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await write_a_plan(chat, text_of, opt_in=True)
    due = await due_of(world, "ana")
    found = await find_user(world.services.db, "test", "ana")
    assert found is not None
    async with world.services.db.transaction() as tx:  # quiet hours chosen since
        await set_quiet_hours(tx, found.id, QuietHours(time(22, 0), time(9, 0)))
    world.clock.set(due - timedelta(hours=1))
    world.adapter.take()
    sent_at = await world.run_until(due + timedelta(hours=2), step=timedelta(minutes=5))
    quiet_end = due.astimezone(BERLIN).replace(hour=9, minute=0).astimezone(UTC)
    # Nothing in quiet hours: the check-in and the note both wait for 09:00.
    assert min(sent_at) >= quiet_end
    [note] = notes(world, text_of)
    assert not note.silent


async def test_no_note_for_someone_who_did_not_ask_for_it(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "Europe/Berlin", "08:30")
    await write_a_plan(chat, text_of, opt_in=False)
    start = world.clock.now()
    for weeks in (4, 8):
        world.clock.set(start + timedelta(weeks=weeks) - timedelta(hours=2))
        await world.run_until(start + timedelta(weeks=weeks, days=1), step=timedelta(minutes=30))
    assert notes(world, text_of) == []
    assert await world.services.db.fetch_all("SELECT * FROM plan_reviews") == []


async def test_a_note_missed_while_down_comes_at_the_next_check_in_time_once(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = world.chat("ben")
    await write_a_plan(chat, text_of, opt_in=True)
    due = await due_of(world, "ben")
    world.clock.set(due + timedelta(hours=5))  # down through it, past the grace window
    report = await world.tick()
    assert report.missed == 1 and notes(world, text_of) == []
    assert await due_of(world, "ben") == due + timedelta(days=1)
    world.clock.set(due + timedelta(days=1))
    await world.tick()
    await world.tick()
    assert len(notes(world, text_of)) == 1


async def test_a_refused_note_marks_the_user_unreachable_and_is_not_repeated(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = world.chat("ben")
    await write_a_plan(chat, text_of, opt_in=True)
    due = await due_of(world, "ben")
    world.adapter.failures.append(RecipientUnreachable())
    world.clock.set(due)
    await world.tick()
    assert notes(world, text_of) == []
    found = await find_user(world.services.db, "test", "ben")
    assert found is not None and found.unreachable_since is not None
    assert await due_of(world, "ben") == due + timedelta(days=28)
    world.clock.set(due + timedelta(days=28))
    report = await world.tick()  # still unreachable: moved on again, not sent
    assert report.unreachable == 1 and notes(world, text_of) == []


async def test_a_pause_holds_the_note_until_the_first_check_in_time_after_it(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = world.chat("ben")  # no check-in time: 10:00 UTC
    await write_a_plan(chat, text_of, opt_in=True)
    due = await due_of(world, "ben")
    found = await find_user(world.services.db, "test", "ben")
    assert found is not None
    async with world.services.db.transaction() as tx:  # paused for three days since
        await set_paused_until(tx, found.id, due + timedelta(days=3) - timedelta(hours=1))
    world.clock.set(due)
    await world.tick()
    assert notes(world, text_of) == []
    assert await due_of(world, "ben") == due + timedelta(days=3)
    world.clock.set(due + timedelta(days=3))
    await world.tick()
    assert len(notes(world, text_of)) == 1
