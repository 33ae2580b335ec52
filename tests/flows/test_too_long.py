"""A text over its limit is kept until the user chooses: the first part, or a shorter one."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from bot.content_pack.ids import (
    CheckinMsg,
    DatesMsg,
    GeneralMsg,
    Msg,
    PauseMsg,
    PlanMsg,
    ReasonsMsg,
)
from bot.flows.context import Services
from bot.flows.limits import TextLimit
from bot.storage.flow_positions import get_position
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation

LONG = ("word " * 1200).strip()  # 5,999 characters: over every limit


async def held_in_position(services: Services) -> str | None:
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    position = await get_position(services.db, user.id)
    held = None if position is None else position.data.get("long")
    return held if isinstance(held, str) else None


START: dict[TextLimit, list[str | Msg]] = {
    TextLimit.NOTE: ["/checkin", "3", "none"],
    TextLimit.DRAFT: ["/pause", PauseMsg.PAUSE_WRITE],
    TextLimit.REASON: ["/reasons", ReasonsMsg.REASONS_ADD],
    TextLimit.PLAN_PART: ["/plan"],
    TextLimit.DATE_LABEL: [
        "/dates",
        DatesMsg.DATES_ADD,
        DatesMsg.DATES_KIND_OTHER,
        "14 February",
        DatesMsg.DATES_YEARLY,
    ],
}
REFUSAL = {
    TextLimit.NOTE: CheckinMsg.NOTE_TOO_LONG,
    TextLimit.DRAFT: PauseMsg.DRAFT_TOO_LONG,
    TextLimit.REASON: PauseMsg.REASON_TOO_LONG,
    TextLimit.PLAN_PART: PlanMsg.PLAN_TOO_LONG,
    TextLimit.DATE_LABEL: DatesMsg.DATES_LABEL_TOO_LONG,
}


async def begin(chat: Conversation, limit: TextLimit, text_of: Callable[..., str]) -> None:
    """Typed words are sent; a message id is its button, pressed."""
    for step in START[limit]:
        await (chat.press(text_of(step)) if isinstance(step, Msg) else chat.send(step))


async def kept_texts(chat: Conversation) -> list[str]:
    await chat.send("/mydata")
    export = json.loads(chat.last[-1].text)
    notes = [answer["note"] for answer in export["checkins"] if answer["note"]]
    drafts = [draft["text"] for draft in export["kept_drafts"]]
    plan = [part["text"] for part in export["safety_plan"]]
    reasons = [reason["text"] for reason in export["reasons"]]
    dates = [date["label"] for date in export["hard_dates"]]
    return [*notes, *drafts, *reasons, *plan, *dates]


@pytest.mark.parametrize("limit", list(TextLimit))
async def test_keeping_the_first_part(
    chat: Conversation, services: Services, text_of: Callable[..., str], limit: TextLimit
) -> None:
    await begin(chat, limit, text_of)
    [offer] = await chat.send(LONG)
    assert offer.text == text_of(REFUSAL[limit], limit=limit.characters)
    assert str(limit.characters) in offer.text
    assert [b.label for b in offer.flat_buttons] == [
        text_of(GeneralMsg.LONG_KEEP_FIRST),
        text_of(GeneralMsg.LONG_WRITE_SHORTER),
    ]
    held = await held_in_position(services)
    assert held is not None and "word" not in held  # sealed, never in clear
    await chat.send("/mydata")  # shown like everything else kept; the step stays
    assert json.loads(chat.last[-1].text)["current_flow"]["text_waiting"] == LONG
    await chat.press(text_of(GeneralMsg.LONG_KEEP_FIRST))
    if limit is TextLimit.DRAFT:
        assert chat.text == text_of(PauseMsg.WRITE_WRITTEN)
        await chat.press(text_of(PauseMsg.WRITE_KEEP))
    assert await held_in_position(services) is None  # gone once chosen
    [kept] = await kept_texts(chat)
    assert LONG.startswith(kept) and len(kept) <= limit.characters
    assert len(kept) > limit.characters - 10 and kept.endswith("word")  # cut between words


@pytest.mark.parametrize("limit", list(TextLimit))
async def test_writing_it_shorter(
    chat: Conversation, services: Services, text_of: Callable[..., str], limit: TextLimit
) -> None:
    await begin(chat, limit, text_of)
    await chat.send(LONG)
    await chat.press(text_of(GeneralMsg.LONG_WRITE_SHORTER))
    assert chat.text == text_of(GeneralMsg.LONG_REWRITE, limit=limit.characters)
    assert await held_in_position(services) is None  # the long one is let go
    await chat.send("a shorter one")
    if limit is TextLimit.DRAFT:
        await chat.press(text_of(PauseMsg.WRITE_KEEP))
    assert await kept_texts(chat) == ["a shorter one"]


async def test_a_shorter_text_typed_instead_of_choosing_replaces_the_long_one(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await begin(chat, TextLimit.NOTE, text_of)
    await chat.send(LONG)
    await chat.send("just this")
    assert await held_in_position(services) is None
    assert await kept_texts(chat) == ["just this"]
