"""Every branch of the pause-before-acting flow, as a user walks it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from bot.content_pack.ids import AnswersMsg, GeneralMsg, Msg, PauseMsg
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.flows.context import Services
from bot.storage.flow_positions import get_position
from bot.storage.urges import pause_counts, pending_followup
from bot.storage.user_texts import TextKind, list_texts
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation

LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


async def user_id(services: Services) -> int:
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    return user.id


async def test_free_text_urge_asks_first_and_starts_nothing(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("i really want to text him right now")
    assert chat.text == text_of(PauseMsg.PAUSE_OFFER)
    await chat.press(text_of(PauseMsg.PAUSE_OFFER_NO))
    assert chat.text == text_of(PauseMsg.PAUSE_NOT_NOW)
    counts = await pause_counts(services.db, await user_id(services), since=LONG_AGO)
    assert counts.paused == 0

    await chat.send("maybe they've changed, I should give it one more chance")
    await chat.press(text_of(PauseMsg.PAUSE_OFFER_YES))
    assert chat.text == text_of(PauseMsg.PAUSE_MENU)
    counts = await pause_counts(services.db, await user_id(services), since=LONG_AGO)
    assert counts.paused == 1


async def test_breathing_has_live_frames_and_a_static_version(
    chat: Conversation, content: ContentPack, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_BREATHE))
    box = next(e for e in content.exercises("en") if e.id == "breathe-box")
    await chat.press(box.title)
    [reply] = chat.last
    assert box.intro in reply.text and box.closing in reply.text
    assert "Repeat it 4 times" in reply.text
    assert len(reply.frames) == box.rounds * len(box.pace) == 16
    assert reply.frames[0].text == "Breathe in · 4\nRound 1 of 4"
    assert reply.frames[1].text == "Hold · 4\nRound 1 of 4"
    assert all(frame.seconds >= 1 for frame in reply.frames)  # at most one edit a second
    await chat.press(text_of(PauseMsg.PAUSE_ANOTHER))
    assert chat.text == text_of(PauseMsg.PAUSE_PICK)
    await chat.press(text_of(PauseMsg.PAUSE_BACK))
    assert chat.text == text_of(PauseMsg.PAUSE_MENU)


async def test_five_senses_step_by_step(
    chat: Conversation, content: ContentPack, text_of: Callable[..., str]
) -> None:
    senses = content.exercise("en", "ground-five-senses")
    assert senses is not None and len(senses.steps) == 5
    await chat.send("/urge")
    await chat.press(text_of(PauseMsg.PAUSE_MORE))
    await chat.press(text_of(PauseMsg.PAUSE_GROUND))
    titles = [b.label for b in chat.last[0].flat_buttons]
    assert len([e for e in content.exercises("en") if e.kind == "grounding"]) >= 8
    assert senses.title in titles
    await chat.press(senses.title)
    assert chat.text.startswith(senses.intro)
    assert chat.text.endswith(f"1 of 5: {senses.steps[0]}")
    for number in range(2, 6):
        await chat.press(text_of(PauseMsg.PAUSE_NEXT))
        assert chat.text == f"{number} of 5: {senses.steps[number - 1]}"
    await chat.press(text_of(PauseMsg.PAUSE_NEXT))
    assert chat.text == f"{senses.closing}\n\n{text_of(PauseMsg.PAUSE_AFTER_EXERCISE)}"
    await chat.press(text_of(PauseMsg.PAUSE_ANOTHER))
    assert senses.title in [b.label for b in chat.last[0].flat_buttons]


async def test_remember_without_reasons_then_with_one(
    chat: Conversation, services: Services, content: ContentPack, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_MORE))
    await chat.press(text_of(PauseMsg.PAUSE_REMEMBER))
    assert chat.text == text_of(PauseMsg.REMEMBER_EMPTY)
    await chat.send("I was always walking on eggshells")
    mine, question = chat.last
    assert mine.protect and "• I was always walking on eggshells" in mine.text
    questions = {r.text for r in content.reflections("en")}
    assert question.text.split("\n\n", 1)[1] in questions
    await chat.press(text_of(PauseMsg.PAUSE_ANOTHER))
    assert chat.text.split("\n\n", 1)[1] in questions
    stored = await list_texts(
        services.db, services.cipher, TextKind.REASON, await user_id(services)
    )
    assert [r.text for r in stored] == ["I was always walking on eggshells"]
    raw = await services.db.fetch_one("SELECT body FROM reasons")
    assert raw is not None and b"eggshells" not in bytes(raw["body"])
    await chat.press(text_of(PauseMsg.PAUSE_BACK))
    assert chat.text == text_of(PauseMsg.PAUSE_MENU)


@pytest.mark.parametrize("keep", [True, False])
async def test_write_it_dont_send_it(
    chat: Conversation, services: Services, keep: bool, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WRITE))
    assert chat.text == text_of(PauseMsg.WRITE_PROMPT)
    await chat.send("I miss you. Can we talk tonight? zebra-draft-91")
    assert chat.text == text_of(PauseMsg.WRITE_WRITTEN)
    # while waiting for the choice, the draft is held only sealed
    position = await services.db.fetch_one("SELECT data FROM flow_positions")
    assert position is not None and "zebra-draft-91" not in position["data"]
    await chat.press(text_of(PauseMsg.WRITE_KEEP if keep else PauseMsg.WRITE_LET_GO))
    said = text_of(PauseMsg.WRITE_KEPT if keep else PauseMsg.WRITE_LET_GONE)
    assert chat.text == f"{said}\n\n{text_of(PauseMsg.PAUSE_MENU)}"
    drafts = await list_texts(services.db, services.cipher, TextKind.DRAFT, await user_id(services))
    assert [d.text for d in drafts] == (
        ["I miss you. Can we talk tonight? zebra-draft-91"] if keep else []
    )
    position = await services.db.fetch_one("SELECT data FROM flow_positions")
    assert position is not None and "draft" not in position["data"]


async def test_reached_out_gets_a_kind_answer_and_a_question(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_MORE))
    await chat.press(text_of(PauseMsg.PAUSE_REACHED_OUT))
    assert chat.text == text_of(PauseMsg.REACHED_OUT_REPLY)
    assert "?" in chat.text
    for shaming in ("should have", "shouldn't", "mistake", "failed", "why did you"):
        assert shaming not in chat.text.lower()
    await chat.press(text_of(PauseMsg.PAUSE_NEED_REST))
    assert chat.text == text_of(PauseMsg.PAUSE_REST_REPLY)
    counts = await pause_counts(services.db, await user_id(services), since=LONG_AGO)
    assert (counts.paused, counts.passed, counts.reached_out) == (1, 0, 1)


async def test_im_okay_counts_as_passed(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_MORE))
    await chat.press(text_of(PauseMsg.PAUSE_DONE))
    assert chat.text == text_of(PauseMsg.PAUSE_DONE_REPLY)
    counts = await pause_counts(services.db, await user_id(services), since=LONG_AGO)
    assert (counts.paused, counts.passed) == (1, 1)
    assert await get_position(services.db, await user_id(services)) is None


async def test_wait_schedules_a_followup(
    chat: Conversation, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WAIT))
    await chat.send("25")
    assert chat.text == text_of(AnswersMsg.USE_BUTTONS_BELOW)
    await chat.press(text_of(PauseMsg.WAIT_20))
    assert chat.text == text_of(PauseMsg.WAIT_STARTED, time="09:20")
    due = await pending_followup(services.db, await user_id(services))
    assert due == clock.now() + timedelta(minutes=20)


@pytest.mark.parametrize(
    "path",
    [
        ["/pause"],
        ["/pause", PauseMsg.PAUSE_BREATHE],
        ["/pause", PauseMsg.PAUSE_MORE, PauseMsg.PAUSE_GROUND],
        ["/pause", PauseMsg.PAUSE_MORE, PauseMsg.PAUSE_GROUND, "Five senses"],
        ["/pause", PauseMsg.PAUSE_MORE, PauseMsg.PAUSE_REMEMBER],
        ["/pause", PauseMsg.PAUSE_WRITE],
        ["/pause", PauseMsg.PAUSE_WRITE, "text: call me"],
        ["/pause", PauseMsg.PAUSE_WAIT],
        ["/pause", PauseMsg.PAUSE_MORE, PauseMsg.PAUSE_REACHED_OUT],
        ["i want to call her so bad"],
    ],
)
async def test_cancel_leaves_the_pause_at_every_step(
    chat: Conversation, services: Services, path: list[object], text_of: Callable[..., str]
) -> None:
    for step in path:
        if isinstance(step, Msg):
            await chat.press(text_of(step))
        elif isinstance(step, str) and step.startswith("text: "):
            await chat.send(step.removeprefix("text: "))
        elif isinstance(step, str) and (step.startswith("/") or " " in step):
            await chat.send(step)
        else:
            await chat.press(str(step))
    stale = chat.history[-1].flat_buttons
    await chat.send("/cancel")
    assert chat.text == text_of(GeneralMsg.CANCEL_DONE)
    assert await get_position(services.db, await user_id(services)) is None
    if stale:
        await chat.press_data(stale[0].data)
        assert chat.text == text_of(GeneralMsg.BUTTON_EXPIRED)
    drafts = await services.db.fetch_one("SELECT COUNT(*) AS n FROM drafts")
    assert drafts is not None and drafts["n"] == 0
