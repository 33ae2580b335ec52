"""Group reminders on Discord: admins manage them with /reminder, they post at local time,
and a channel that stops accepting them pauses them and tells their admin privately."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.adapters.discord.render import escape
from bot.content_pack.ids import CheckinMsg, GeneralMsg, ReminderMsg
from tests.helpers.discord_world import (
    ANA,
    BEN,
    MOD,
    DiscordWorld,
)

SEND = "POST /channels/{channel_id}/messages"
# The clock fixture starts on Monday 2 March 2026, 10:00 in Berlin.
TUESDAY_0900_BERLIN = datetime(2026, 3, 3, 8, 0, tzinfo=UTC)


def add(time: str, zone: str, text: str) -> list[dict[str, Any]]:
    options = [
        {"name": "time", "type": 3, "value": time},
        {"name": "timezone", "type": 3, "value": zone},
        {"name": "text", "type": 3, "value": text},
    ]
    return [{"name": "add", "type": 1, "options": options}]


async def post_day(world: DiscordWorld, when: datetime) -> None:
    world.clock.set(when)
    await world.dispatcher.tick()
    await world.outbox.drain()


async def test_an_admin_adds_a_reminder_and_others_cannot(discord_world: DiscordWorld) -> None:
    room = discord_world.room.id
    await discord_world.runs(MOD, "reminder", add("09:00", "Europe/Berlin", "Breathe."), room)
    [added] = discord_world.ephemeral_texts(MOD)
    assert added.startswith("Reminder 1 is set")
    # Discord hides the command from members without Manage Channels; where a server lets
    # everyone use it anyway, the core still refuses (admin=False).
    await discord_world.runs(
        BEN, "reminder", add("10:00", "Europe/Berlin", "Hi."), room, permission_override=True
    )
    assert discord_world.ephemeral_texts(BEN) == [
        escape(discord_world.adapter.content.text("en", ReminderMsg.REMINDER_ADMINS_ONLY))
    ]
    await discord_world.runs(MOD, "reminder", [{"name": "list", "type": 1}], room)
    listing = discord_world.ephemeral_texts(MOD)[-1]
    assert "1." in listing and "2." not in listing
    assert discord_world.dc.messages_in(room) == []  # managing reminders posts nothing public


async def test_it_posts_at_local_time_and_its_button_checks_in_privately(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    room = discord_world.room.id
    await discord_world.runs(
        MOD, "reminder", add("09:00", "Europe/Berlin", "@everyone you are not alone."), room
    )
    await post_day(discord_world, TUESDAY_0900_BERLIN - timedelta(minutes=1))
    assert discord_world.dc.messages_in(room) == []
    await post_day(discord_world, TUESDAY_0900_BERLIN)
    [post] = discord_world.dc.messages_in(room)
    assert post.content == "@\u200beveryone you are not alone."
    assert not post.mention_everyone  # the admin's words cannot ping the channel
    button = post.button(text_of(ReminderMsg.REMINDER_CHECKIN_BUTTON))
    await discord_world.presses(ANA, post, button["custom_id"])
    assert discord_world.ephemeral_texts(ANA) == [text_of(GeneralMsg.DISCORD_SENT_TO_DMS)]
    assert text_of(CheckinMsg.ASK_MOOD) in discord_world.last_dm(ANA).content
    await post_day(discord_world, TUESDAY_0900_BERLIN + timedelta(hours=1))
    assert len(discord_world.dc.messages_in(room)) == 1  # once a day, not again


async def test_losing_permission_pauses_it_and_tells_the_admin_once(
    discord_world: DiscordWorld,
) -> None:
    room = discord_world.room.id
    await discord_world.runs(MOD, "reminder", add("09:00", "Europe/Berlin", "Breathe."), room)
    discord_world.dc.remove_permission(room)  # Send Messages taken away
    await post_day(discord_world, TUESDAY_0900_BERLIN)
    assert [c.code for c in discord_world.dc.calls_to(SEND) if not c.ok] == [50013]
    [note] = discord_world.dc.dm_texts(MOD)
    assert note.startswith("A note about a group reminder you set up")
    await post_day(discord_world, TUESDAY_0900_BERLIN + timedelta(days=1))
    assert discord_world.dc.dm_texts(MOD) == [note]  # paused: not tried, not told again
    assert [c.code for c in discord_world.dc.calls_to(SEND) if not c.ok] == [50013]
    await discord_world.runs(MOD, "reminder", [{"name": "list", "type": 1}], room)
    paused = discord_world.adapter.content.text("en", ReminderMsg.REMINDER_STATE_NO_PERMISSION)
    assert escape(paused) in discord_world.ephemeral_texts(MOD)[-1]


async def test_a_forged_press_on_a_channel_post_keeps_both_the_notice_and_the_post(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    room = discord_world.room.id
    await discord_world.runs(MOD, "reminder", add("09:00", "Europe/Berlin", "Breathe."), room)
    await post_day(discord_world, TUESDAY_0900_BERLIN)
    [post] = discord_world.dc.messages_in(room)
    await discord_world.presses(ANA, post, "ci:mood:00000000:3", forged=True)
    assert [m.content for m in discord_world.dc.ephemeral_responses_to(ANA)] == [
        escape(text_of(GeneralMsg.BUTTON_EXPIRED))
    ]
    assert discord_world.dc.messages_in(room) == [post]  # the post itself is still there
