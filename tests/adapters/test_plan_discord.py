"""/plan on Discord: written, shown (also from "My plan" under /sos and a crisis reply, and
in pieces Discord accepts), changed, deleted, exported and forgotten."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from bot.adapters.discord.render import escape
from bot.content_pack.ids import DataMsg, PlanMsg, SafetyMsg
from bot.flows.context import Services
from bot.flows.plan_parts import PART_LIMIT
from bot.storage.db import Params, Row
from tests.fakes.discord_api import StoredMessage
from tests.helpers.discord_world import ANA, DiscordWorld
from tests.helpers.faults import every_read_through_fetch_all

CRISIS = "i want to die"
SIGNS = "Not eating, checking their page at night"
DISCORD_LIMIT = 2000
SEND = "POST /channels/{channel_id}/messages"


def labels(message: StoredMessage) -> list[str]:
    return [str(button.get("label")) for button in message.buttons]


def last_text(world: DiscordWorld) -> str:
    return world.last_dm(ANA).content


async def write_plan(world: DiscordWorld, text_of: Callable[..., str], signs: str) -> None:
    """The first part written, every other skipped, no four-weekly note."""
    await world.runs(ANA, "plan")
    assert last_text(world) == escape(
        f"{text_of(PlanMsg.PLAN_STEP_OF, n=1)} {text_of(PlanMsg.PLAN_ASK_SIGNS)}"
    )
    await world.says(ANA, signs)
    while last_text(world) != escape(
        f"{text_of(PlanMsg.PLAN_STEP_OF, n=7)} {text_of(PlanMsg.PLAN_REASONS_EMPTY)}"
    ):
        await world.taps(ANA, text_of(PlanMsg.PLAN_SKIP))
    await world.taps(ANA, text_of(PlanMsg.PLAN_NEXT))
    await world.taps(ANA, text_of(PlanMsg.PLAN_REVIEW_NO))
    assert last_text(world) == escape(text_of(PlanMsg.PLAN_SAVED))


def crisis_replies(world: DiscordWorld, text_of: Callable[..., str]) -> list[StoredMessage]:
    intro = escape(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    return [m for m in world.dc.dm_of(ANA) if m.content.startswith(intro)]


async def test_a_plan_written_shown_changed_and_deleted_on_discord(
    discord_world: DiscordWorld, services: Services, text_of: Callable[..., str]
) -> None:
    world = discord_world
    await write_plan(world, text_of, SIGNS)
    await world.taps(ANA, text_of(PlanMsg.PLAN_SEE))
    view = last_text(world)
    assert view.startswith(escape(text_of(PlanMsg.PLAN_HEADING)))
    assert escape(SIGNS) in view
    await world.taps(ANA, text_of(PlanMsg.PLAN_DONE))

    await world.runs(ANA, "sos")
    assert labels(world.last_dm(ANA))[0] == text_of(PlanMsg.PLAN_BUTTON)
    await world.taps(ANA, text_of(PlanMsg.PLAN_BUTTON))
    assert escape(SIGNS) in last_text(world)
    assert last_text(world).endswith(escape(text_of(PlanMsg.PLAN_CHANGE_HINT)))

    await world.says(ANA, CRISIS)
    assert labels(crisis_replies(world, text_of)[-1])[0] == text_of(PlanMsg.PLAN_BUTTON)
    await world.taps(ANA, text_of(PlanMsg.PLAN_BUTTON))
    assert escape(SIGNS) in last_text(world)

    await world.runs(ANA, "plan")
    await world.taps(ANA, text_of(PlanMsg.PLAN_CHANGE))
    await world.taps(ANA, f"1 · {text_of(PlanMsg.PLAN_TITLE_SIGNS)}")
    await world.taps(ANA, text_of(PlanMsg.PLAN_REWRITE))
    await world.says(ANA, "Sleeping all day")
    assert "Sleeping all day" in last_text(world) and escape(SIGNS) not in last_text(world)

    await world.taps(ANA, text_of(PlanMsg.PLAN_DELETE))
    await world.taps(ANA, text_of(PlanMsg.PLAN_DELETE_YES))
    assert last_text(world) == escape(text_of(PlanMsg.PLAN_DELETED))
    assert await services.db.fetch_all("SELECT * FROM safety_plan_parts") == []
    await world.runs(ANA, "sos")
    assert text_of(PlanMsg.PLAN_BUTTON) not in labels(world.last_dm(ANA))
    assert world.dc.unanswered_interactions() == []


async def test_a_long_plan_arrives_in_pieces_discord_accepts(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    world = discord_world
    await world.runs(ANA, "plan")
    long_part = ("a hard evening " * 120)[: PART_LIMIT.characters].strip()
    for _ in range(6):
        await world.says(ANA, long_part)
        if last_text(world).startswith("5 of 7"):
            await world.taps(ANA, text_of(PlanMsg.PLAN_SKIP))
    await world.taps(ANA, text_of(PlanMsg.PLAN_NEXT))
    await world.taps(ANA, text_of(PlanMsg.PLAN_REVIEW_NO))
    before = len(world.dc.dm_of(ANA))
    await world.taps(ANA, text_of(PlanMsg.PLAN_SEE))
    pieces = world.dc.dm_of(ANA)[before:]
    assert len(pieces) > 3 and all(len(piece.content) <= DISCORD_LIMIT for piece in pieces)
    assert "\n\n".join(piece.content for piece in pieces).count(long_part) == 6
    assert labels(pieces[-1])[0] == text_of(PlanMsg.PLAN_CHANGE)


async def test_mydata_shows_the_plan_and_forget_leaves_no_row_on_discord(
    discord_world: DiscordWorld, services: Services, text_of: Callable[..., str]
) -> None:
    world = discord_world
    await write_plan(world, text_of, SIGNS)
    before = len(world.dc.dm_of(ANA))
    await world.runs(ANA, "mydata")
    exported = "\n".join(m.content for m in world.dc.dm_of(ANA)[before:])
    assert escape('"safety_plan"') in exported and escape(SIGNS) in exported
    await world.runs(ANA, "forget")
    await world.taps(ANA, text_of(DataMsg.FORGET_YES))
    for table in ("safety_plan_parts", "plan_reviews", "users"):
        assert await services.db.fetch_all(f"SELECT * FROM {table}") == []


async def test_the_four_weekly_note_in_discord_dms_and_stop_turns_it_off(
    discord_world: DiscordWorld, services: Services, text_of: Callable[..., str]
) -> None:
    world = discord_world
    await write_plan(world, text_of, SIGNS)
    await world.runs(ANA, "plan")
    await world.taps(ANA, text_of(PlanMsg.PLAN_NOTES_ON))
    [review] = await services.db.fetch_all("SELECT next_due_at FROM plan_reviews")
    world.clock.set(datetime.fromtimestamp(review["next_due_at"], UTC))
    await world.dispatcher.tick()
    await world.outbox.drain()
    note = world.last_dm(ANA)
    assert note.content == escape(text_of(PlanMsg.PLAN_REVIEW_NOTE))
    await world.taps(ANA, text_of(PlanMsg.PLAN_REVIEW_STOP))
    assert escape(text_of(PlanMsg.PLAN_NOTES_STOPPED)) in [
        *world.dm_texts(ANA)[-1:],
        *world.ephemeral_texts(ANA)[-1:],
    ]
    assert await services.db.fetch_all("SELECT * FROM plan_reviews") == []
    assert world.dc.unanswered_interactions() == []


async def test_a_stalled_user_lookup_sends_the_crisis_reply_at_once_without_my_plan_on_discord(
    discord_world: DiscordWorld,
    services: Services,
    monkeypatch: pytest.MonkeyPatch,
    text_of: Callable[..., str],
) -> None:
    world = discord_world
    await write_plan(world, text_of, SIGNS)
    release = asyncio.Event()
    real = services.db.fetch_all

    async def hanging(sql: str, params: Params = ()) -> list[Row]:
        await release.wait()
        return await real(sql, params)

    monkeypatch.setattr(services.db, "fetch_all", hanging)  # every read stalls
    every_read_through_fetch_all(services.db, monkeypatch)
    before = len(world.dc.calls)
    world.dc.user_sends_dm(ANA, CRISIS)
    await world.dc.wait_for(SEND, timeout=1.0, since=before)
    crisis = crisis_replies(world, text_of)[-1]
    assert text_of(PlanMsg.PLAN_BUTTON) not in labels(crisis)  # not known in time: left out
    release.set()
    await world.settled()
    await world.says(ANA, CRISIS)  # the disk is back, and so is the button
    assert labels(crisis_replies(world, text_of)[-1])[0] == text_of(PlanMsg.PLAN_BUTTON)
