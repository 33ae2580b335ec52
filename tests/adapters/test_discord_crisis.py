"""Crisis help on Discord that never fails: a DM the user changes is screened, a stalled
database does not hold the crisis reply back, and a server never sees who is in crisis."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from bot.adapters.discord.render import escape
from bot.content_pack.ids import SafetyMsg
from bot.core.events import Event, TextMessage
from bot.flows.context import Services
from bot.flows.onboarding import OnboardingStep
from bot.storage.db import Params, Row
from bot.storage.flow_positions import get_position
from bot.storage.users import find_user
from tests.helpers.discord_world import (
    ANA,
    BEN,
    MOD,
    DiscordWorld,
)
from tests.helpers.faults import every_read_through_fetch_all
from tests.helpers.waiting import until

CRISIS = "i want to die"
SEND = "POST /channels/{channel_id}/messages"
FOLLOWUP = "POST /webhooks/{application_id}/{token}"


def an_edit(text: str) -> Callable[[Event], bool]:
    return lambda event: isinstance(event, TextMessage) and event.edited and event.text == text


def typed_by(world: DiscordWorld, user: int) -> Any:
    [typed] = [m for m in world.dc.messages.values() if m.author_id == user]
    return typed


async def test_a_crisis_written_into_an_edited_dm_gets_the_crisis_reply(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    await discord_world.says(ANA, "hello")
    sent = len(discord_world.dc.dm_of(ANA))
    discord_world.dc.user_edits_dm(ANA, typed_by(discord_world, ANA), CRISIS)
    await discord_world.settled()
    [reply] = discord_world.dc.dm_texts(ANA)[sent:]
    assert reply.startswith(escape(text_of(SafetyMsg.SAFETY_CRISIS_INTRO)))


async def test_an_ordinary_edit_shows_nothing_and_answers_no_question(
    discord_world: DiscordWorld, services: Services
) -> None:
    await discord_world.runs(ANA, "start")
    await discord_world.says(ANA, "not sure yet")  # not a time zone: asked again
    sent = len(discord_world.dc.dm_of(ANA))
    discord_world.dc.user_edits_dm(ANA, typed_by(discord_world, ANA), "Europe/Berlin")
    assert await discord_world.router.answer_to(an_edit("Europe/Berlin")) == []
    assert len(discord_world.dc.dm_of(ANA)) == sent  # nothing visible
    user = await find_user(services.db, "discord", str(ANA))
    assert user is not None and user.timezone is None
    position = await get_position(services.db, user.id)
    assert position is not None and position.step == OnboardingStep.TIMEZONE  # still asking


async def test_a_link_preview_is_not_an_edit_and_gets_no_second_reply(
    discord_world: DiscordWorld,
) -> None:
    await discord_world.says(ANA, f"{CRISIS} https://example.org")
    assert len(discord_world.dc.dm_of(ANA)) == 1  # the crisis reply, once
    typed = typed_by(discord_world, ANA)
    discord_world.dc.link_preview_added(typed)
    discord_world.dc.user_edits_dm(ANA, typed, "all fine now")  # gateway events keep order
    assert await discord_world.router.answer_to(an_edit("all fine now")) == []
    edits = [e for e in discord_world.router.events if isinstance(e, TextMessage) and e.edited]
    assert [e.text for e in edits] == ["all fine now"]  # the preview was not taken as one
    assert len(discord_world.dc.dm_of(ANA)) == 1


# Servers: nothing points at anyone ------------------------------------------------------


async def test_a_crisis_in_a_server_is_answered_in_dms_and_nothing_shows_there(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    room = discord_world.room.id
    add = [
        {"name": "time", "type": 3, "value": "09:00"},
        {"name": "timezone", "type": 3, "value": "UTC"},
        {"name": "text", "type": 3, "value": CRISIS},
    ]
    await discord_world.runs(MOD, "reminder", [{"name": "add", "type": 1, "options": add}], room)
    assert discord_world.dc.dm_texts(MOD)[0].startswith(
        escape(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    )
    await discord_world.runs(BEN, "sos", channel_id=room)
    assert discord_world.dc.ephemeral_responses_to(BEN)
    assert discord_world.dc.messages_in(room) == []  # what everyone in the channel sees
    for user in (MOD, BEN):
        for shown in discord_world.dc.ephemeral_responses_to(user):
            assert shown.visible_to == user and not shown.mentions


# A stalled database ---------------------------------------------------------------------


@pytest.fixture
def hanging_reads(services: Services, monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Every read waits until the returned event is set, as on a stalled disk."""
    release = asyncio.Event()
    real = services.db.fetch_all

    async def hanging(sql: str, params: Params = ()) -> list[Row]:
        await release.wait()
        return await real(sql, params)

    monkeypatch.setattr(services.db, "fetch_all", hanging)
    every_read_through_fetch_all(services.db, monkeypatch)
    return release


async def test_a_hanging_database_read_does_not_delay_help_on_discord(
    discord_world: DiscordWorld, hanging_reads: asyncio.Event, text_of: Callable[..., str]
) -> None:
    dc = discord_world.dc
    before = len(dc.calls)
    dc.user_sends_dm(ANA, CRISIS)
    await dc.wait_for(SEND, timeout=1.0, since=before)
    [reply] = dc.dm_texts(ANA)
    assert reply.startswith(escape(text_of(SafetyMsg.SAFETY_CRISIS_INTRO)))
    # /sos in a server: the router and the adapter's own note about DMs both wait at most
    # a moment for the user's row.
    before = len(dc.calls)
    dc.user_runs_command(BEN, "sos", channel_id=discord_world.room.id)
    await dc.wait_for(FOLLOWUP, timeout=1.0, since=before)
    [answer] = [m.content for m in dc.ephemeral_responses_to(BEN) if not m.loading]
    found = discord_world.router.safety.sos_replies("en", None, is_group=False)[0]
    assert answer.startswith(escape(found.text.split("\n")[0]))
    hanging_reads.set()


# A reply that cannot be delivered ---------------------------------------------------------


async def test_an_sos_reply_discord_refuses_is_an_error_and_counted(
    discord_world: DiscordWorld, caplog: pytest.LogCaptureFixture
) -> None:
    def undelivered() -> list[str]:
        lines = discord_world.router.services.metrics.exposition().decode().splitlines()
        return [line for line in lines if line.startswith("steady_urgent_replies_undelivered_t")]

    dc = discord_world.dc
    dc.inject_error(FOLLOWUP, 404, 10015, "Unknown Webhook", times=None)
    before = len(dc.calls)
    dc.user_runs_command(BEN, "sos", channel_id=discord_world.room.id)
    await dc.wait_for(FOLLOWUP, timeout=5.0, since=before)
    await until(lambda: bool(undelivered()))
    assert undelivered() == ['steady_urgent_replies_undelivered_total{platform="discord"} 1.0']
    errors = [r for r in caplog.records if r.getMessage() == "safety.reply_undelivered"]
    assert [r.levelname for r in errors] == ["ERROR"]
