"""Button data is whatever a client chooses to send: forged, oversized, replayed, or
taken from someone else's conversation. None of it may change anything."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from bot.content_pack.ids import AnswersMsg, DataMsg, GeneralMsg, PauseMsg, ReasonsMsg
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services, button_data
from bot.storage.flow_positions import FlowPosition, get_position
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation


async def position_of(services: Services, user_id: str) -> FlowPosition | None:
    user = await find_user(services.db, "console", user_id)
    assert user is not None
    return await get_position(services.db, user.id)


async def export(chat: Conversation) -> dict[str, object]:
    await chat.send("/mydata")
    found: dict[str, object] = json.loads(chat.last[-1].text)
    return found


@pytest.mark.parametrize(
    "data",
    [
        "ci:mood:00000000:4",  # the right shape, a guessed token
        "x" * 5_000,  # far over Telegram's 64 bytes
        "ci:mood:" + "f" * 80 + ":4",  # an oversized token
        ":::",
        "",
        "fg:confirm:' OR 1=1 --:yes",  # SQL in the token
        "sos:show:extra",  # almost a static button
    ],
)
async def test_forged_button_data_changes_nothing_and_says_so(
    chat: Conversation, services: Services, text_of: Callable[..., str], data: str
) -> None:
    await chat.send("/checkin")
    before = await position_of(services, "u1")
    [notice] = await chat.press_data(data)
    assert notice.text == text_of(GeneralMsg.BUTTON_EXPIRED)
    assert notice.ephemeral
    assert await position_of(services, "u1") == before


async def test_a_replayed_keep_button_keeps_the_draft_once(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WRITE))
    await chat.send("the message I will not send")
    keep = chat.button(text_of(PauseMsg.WRITE_KEEP)).data
    await chat.press_data(keep)
    [notice] = await chat.press_data(keep)
    assert notice.text == text_of(GeneralMsg.BUTTON_EXPIRED)
    drafts = (await export(chat))["kept_drafts"]
    assert isinstance(drafts, list) and len(drafts) == 1


async def test_a_replayed_forget_button_after_starting_over_does_not_forget_again(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/forget")  # nothing stored yet: nothing to confirm
    await chat.send("/checkin")
    await chat.send("/forget")
    yes = chat.button(text_of(DataMsg.FORGET_YES)).data
    await chat.press(text_of(DataMsg.FORGET_NO))
    await chat.send("/reasons")
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))
    await chat.send("still here")
    [notice] = await chat.press_data(yes)
    assert notice.text == text_of(GeneralMsg.BUTTON_EXPIRED)
    assert await find_user(services.db, "console", "u1") is not None


async def test_someone_elses_button_is_not_theirs_to_press(
    router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    ana = Conversation(router, Address("console", "c1", "ana"))
    eve = Conversation(router, Address("console", "c2", "eve"))
    await ana.send("/forget")
    await ana.send("/checkin")
    await ana.send("/forget")
    ana_yes = ana.button(text_of(DataMsg.FORGET_YES)).data
    before = await position_of(services, "ana")
    [notice] = await eve.press_data(ana_yes)
    assert notice.text == text_of(GeneralMsg.BUTTON_NOT_YOURS)
    assert await position_of(services, "ana") == before
    assert await find_user(services.db, "console", "eve") is None  # a press creates nobody


async def test_a_forged_value_on_a_live_step_is_refused(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    position = await position_of(services, "u1")
    assert position is not None
    for value in ("9", "0", "-1", "4.0", "\u0664", "4; DROP TABLE users"):  # \u0664: Arabic 4
        [reply] = await chat.press_data(button_data(position, value))
        assert reply.text == text_of(AnswersMsg.USE_BUTTONS_BELOW)
    assert await position_of(services, "u1") == position


async def test_removing_someone_elses_reason_by_its_id_does_nothing(
    router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    eve = Conversation(router, Address("console", "c2", "eve"))
    await eve.send("/reasons")
    await eve.press(text_of(ReasonsMsg.REASONS_ADD))
    await eve.send("eve's own reason")
    ana = Conversation(router, Address("console", "c1", "ana"))
    await ana.send("/reasons")
    await ana.press(text_of(ReasonsMsg.REASONS_ADD))
    await ana.send("ana's reason")
    await ana.press(text_of(ReasonsMsg.REASONS_REMOVE))
    position = await position_of(services, "ana")
    assert position is not None
    eve_user = await find_user(services.db, "console", "eve")
    assert eve_user is not None
    row = await services.db.fetch_one("SELECT id FROM reasons WHERE user_id = ?", (eve_user.id,))
    assert row is not None
    [reply] = await ana.press_data(button_data(position, str(row["id"])))
    assert reply.text == text_of(AnswersMsg.USE_BUTTONS_BELOW)
    reasons = (await export(eve))["reasons"]
    assert isinstance(reasons, list) and [r["text"] for r in reasons] == ["eve's own reason"]
