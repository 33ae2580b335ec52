"""A scheduled check-in that arrives while another question is open closes it, and says so."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from bot.content_pack.ids import CheckinMsg, GeneralMsg, ReasonsMsg
from bot.storage.user_texts import TextKind, list_texts
from bot.storage.users import find_user
from tests.helpers.world import World

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def test_a_checkin_replacing_an_open_question_says_it_closed_it(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "UTC", "09:20")
    world.clock.set(START + timedelta(minutes=5))
    await chat.send("/reasons")
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))  # then left open for a while
    await world.run_until(START + timedelta(minutes=20), step=timedelta(minutes=5))
    [(_, checkin)] = world.checkins_sent()
    _opening, closed, question = checkin.text.split("\n\n")
    assert closed == text_of(GeneralMsg.QUESTION_CLOSED_BY_CHECKIN)
    assert question == text_of(CheckinMsg.ASK_MOOD)
    await chat.send("my own space again")  # meant for the old question: not saved as a reason
    user = await find_user(world.services.db, "test", "ana")
    assert user is not None
    assert (
        await list_texts(world.services.db, world.services.cipher, TextKind.REASON, user.id) == []
    )


async def test_a_checkin_replacing_only_an_unanswered_checkin_says_nothing_of_it(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "UTC", "09:20")
    await chat.send("/checkin")
    await world.run_until(START + timedelta(minutes=20), step=timedelta(minutes=5))
    [(_, checkin)] = world.checkins_sent()
    assert text_of(GeneralMsg.QUESTION_CLOSED_BY_CHECKIN) not in checkin.text
