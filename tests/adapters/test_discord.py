"""Steady on Discord: the real discord.py against a strict fake Discord (API and gateway)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta

from bot.adapters.discord.render import escape
from bot.content_pack.ids import CheckinMsg, GeneralMsg, OnboardingMsg, PauseMsg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.events import CommandIssued
from bot.storage.checkins import list_checkins
from bot.storage.users import QuietHours, find_user, set_quiet_hours
from tests.fakes.discord_api import SUPPRESS_NOTIFICATIONS
from tests.helpers.discord_world import (
    ANA,
    BEN,
    MOD,
    DiscordWorld,
)

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # the clock fixture's start: 10:00 in Berlin
SEND = "POST /channels/{channel_id}/messages"


async def onboard(world: DiscordWorld, user: int = ANA) -> None:
    await world.runs(user, "start")
    await world.says(user, "Europe/Berlin")
    await world.says(user, "08:30")
    await world.taps(user, "Germany")


async def test_every_command_is_registered_with_its_description(
    discord_world: DiscordWorld, content: ContentPack
) -> None:
    registered = {c["name"]: c for c in discord_world.dc.commands}
    descriptions = content.command_descriptions("en", discreet=True)  # one menu for all
    assert set(registered) == {command.value for command in descriptions}
    assert all(registered[c.value]["description"] == d for c, d in descriptions.items())
    reminder = registered["reminder"]
    assert reminder["contexts"] == [0]  # guild only
    assert reminder["default_member_permissions"] == str(1 << 4)  # Manage Channels
    assert [o["name"] for o in reminder["options"]] == ["add", "list", "pause", "resume", "delete"]
    assert discord_world.dc.identifies[0]["intents"] == (1 << 0) | (1 << 12)  # no privileged


async def test_start_onboards_in_dms(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    await onboard(discord_world)
    texts = discord_world.dm_texts(ANA)
    assert texts[0].startswith("Hi, I")
    assert text_of(OnboardingMsg.COUNTRY_SAVED, country="Germany") in texts[-1]
    assert discord_world.dc.unanswered_interactions() == []
    user = await find_user(discord_world.services.db, "discord", str(ANA))
    assert user is not None and (user.timezone, user.country) == ("Europe/Berlin", "DE")


async def test_a_personal_command_in_a_guild_opens_it_in_dms(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    await discord_world.runs(ANA, "checkin", channel_id=discord_world.room.id)
    assert discord_world.ephemeral_texts(ANA) == [text_of(GeneralMsg.DISCORD_SENT_TO_DMS)]
    checkin = discord_world.last_dm(ANA)
    assert text_of(CheckinMsg.ASK_MOOD) in checkin.content
    assert checkin.button(text_of(CheckinMsg.MOOD_1))  # the mood buttons came with it
    assert discord_world.dc.messages_in(discord_world.room.id) == []  # nothing public
    assert discord_world.dc.unanswered_interactions() == []
    # Personal things always use the private address, whatever channel they began in.
    [event] = discord_world.router.events
    assert event.address.is_group is False and event.address.chat_id == str(ANA)


async def test_a_checkin_button_still_works_after_a_restart(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    await discord_world.runs(ANA, "checkin", channel_id=discord_world.room.id)
    await discord_world.restart()  # a new process: a new client, the same database
    await discord_world.taps(ANA, text_of(CheckinMsg.MOOD_4))
    assert text_of(CheckinMsg.ASK_URGE) in discord_world.last_dm(ANA).content
    await discord_world.taps(ANA, text_of(CheckinMsg.URGE_NONE))
    await discord_world.taps(ANA, text_of(CheckinMsg.SKIP_NOTE))
    user = await find_user(discord_world.services.db, "discord", str(ANA))
    assert user is not None
    [answer] = await list_checkins(discord_world.services.db, user.id)
    assert (answer.mood, answer.urge) == (4, "none")
    assert discord_world.dc.unanswered_interactions() == []


async def test_forged_and_stale_buttons_get_an_ephemeral_notice_and_change_nothing(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    await discord_world.runs(ANA, "checkin")
    checkin = discord_world.last_dm(ANA)
    sent_before = len(discord_world.dc.dm_of(ANA))
    forged = await discord_world.presses(ANA, checkin, "ci:mood:00000000:3", forged=True)
    [notice] = discord_world.dc.ephemeral_responses_to(ANA)
    assert (
        notice.content == text_of(GeneralMsg.BUTTON_EXPIRED) and notice.interaction_id == forged.id
    )
    # Answered as the press's own response when the router is quick (it is, here).
    callback = discord_world.dc.calls_to("POST /interactions/{interaction_id}/{token}/callback")
    assert callback[-1].body["type"] in (4, 6)
    assert len(discord_world.dc.dm_of(ANA)) == sent_before  # a notice, not a message
    await discord_world.taps(ANA, text_of(CheckinMsg.MOOD_2))
    stale_id = checkin.button(text_of(CheckinMsg.MOOD_5))["custom_id"]
    await discord_world.presses(ANA, checkin, stale_id)  # the old message, pressed again
    assert discord_world.ephemeral_texts(ANA)[-1] == text_of(GeneralMsg.BUTTON_EXPIRED)
    user = await find_user(discord_world.services.db, "discord", str(ANA))
    assert user is not None
    assert await list_checkins(discord_world.services.db, user.id) == []
    assert discord_world.dc.unanswered_interactions() == []


async def test_closed_dms_show_the_replies_here_and_say_how_to_open_them_once(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    room = discord_world.room.id
    discord_world.dc.close_dms(ANA)
    await discord_world.runs(ANA, "checkin", channel_id=room)
    shown = discord_world.dc.ephemeral_responses_to(ANA)
    assert text_of(CheckinMsg.ASK_MOOD) in shown[0].content and shown[0].button(
        text_of(CheckinMsg.MOOD_1)
    )
    assert shown[1].content == escape(text_of(GeneralMsg.DISCORD_DMS_CLOSED))
    assert [c.code for c in discord_world.dc.calls_to(SEND)] == [50007]
    user = await find_user(discord_world.services.db, "discord", str(ANA))
    assert user is not None and user.unreachable_since is not None
    # Their next command tells them again, once: using it counts as being reachable.
    before = len(discord_world.ephemeral_texts(ANA))
    await discord_world.runs(ANA, "about", channel_id=room)
    told = discord_world.ephemeral_texts(ANA)[before:]
    assert told[0] == text_of(GeneralMsg.ABOUT)
    assert escape(text_of(GeneralMsg.DISCORD_DMS_CLOSED)) in told
    await discord_world.runs(ANA, "help", channel_id=room)
    assert (
        escape(text_of(GeneralMsg.DISCORD_DMS_CLOSED)) not in discord_world.ephemeral_texts(ANA)[-1]
    )
    # The check-in goes on in the ephemeral message itself.
    await discord_world.taps(ANA, text_of(CheckinMsg.MOOD_3))
    assert text_of(CheckinMsg.ASK_URGE) in discord_world.ephemeral_texts(ANA)[-1]
    user = await find_user(discord_world.services.db, "discord", str(ANA))
    assert user is not None and user.unreachable_since is None


async def test_crisis_text_in_a_dm_gets_the_crisis_reply_first(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    await onboard(discord_world)
    await discord_world.runs(ANA, "checkin")
    sent = len(discord_world.dc.dm_of(ANA))
    await discord_world.says(ANA, "i want to kill myself")
    reply = discord_world.dc.dm_texts(ANA)[sent]
    assert reply.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert "112 in Germany" in reply


async def test_sos_in_a_guild_answers_in_place_privately(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    await discord_world.runs(BEN, "sos", channel_id=discord_world.room.id)
    [answer] = discord_world.dc.ephemeral_responses_to(BEN)
    assert escape(text_of(SafetyMsg.SAFETY_WIDE_NUMBERS)) in answer.content
    assert discord_world.dc.messages_in(discord_world.room.id) == []
    assert discord_world.dc.dm_of(BEN) == []


async def test_long_replies_are_split_and_nothing_pings(discord_world: DiscordWorld) -> None:
    note = "@everyone look, <@310000000000000002> **bold** " + "a long day, " * 70
    for _ in range(4):  # four long notes make /mydata longer than one message
        await discord_world.runs(ANA, "checkin")
        await discord_world.says(ANA, "3")
        await discord_world.says(ANA, "some")
        await discord_world.says(ANA, note.strip())
    await discord_world.runs(ANA, "mydata")
    export = [m for m in discord_world.dc.dm_of(ANA) if "a long day" in m.content]
    assert len(export) >= 2  # split, and every piece accepted
    assert all(len(m.content) <= 2000 for m in export)
    assert "@\u200beveryone" in export[0].content and "\\*\\*bold\\*\\*" in export[0].content
    sends = [c for c in discord_world.dc.calls if c.route.startswith("POST") and c.body]
    bodies = [c.body.get("data", c.body) for c in sends if isinstance(c.body, dict)]
    with_content = [b for b in bodies if b.get("content")]
    assert with_content and all(b["allowed_mentions"] == {"parse": []} for b in with_content)
    assert not any(m.mention_everyone or m.mentions for m in discord_world.dc.messages.values())
    assert all(c.ok for c in sends)


async def test_scheduled_checkin_and_a_quiet_hours_followup_in_dms(
    discord_world: DiscordWorld, content: ContentPack, text_of: Callable[..., str]
) -> None:
    world = discord_world
    await onboard(world)
    world.clock.set(START + timedelta(days=1) - timedelta(hours=1, minutes=30))  # 08:30 CET
    await world.dispatcher.tick()
    await world.outbox.drain()
    checkin = world.last_dm(ANA)
    assert checkin.content.splitlines()[0] in {o.text for o in content.openings("en")}
    assert not checkin.silent
    # Quiet hours from now: a follow-up the user asked for still comes, without a sound.
    user = await find_user(world.services.db, "discord", str(ANA))
    assert user is not None
    async with world.services.db.transaction() as tx:
        await set_quiet_hours(tx, user.id, QuietHours(time(8, 0), time(12, 0)))
    await world.runs(ANA, "pause")
    await world.taps(ANA, text_of(PauseMsg.PAUSE_WAIT))
    await world.taps(ANA, text_of(PauseMsg.WAIT_10))
    world.clock.set(world.clock.now() + timedelta(minutes=11))
    await world.dispatcher.tick()
    await world.outbox.drain()
    followup = world.last_dm(ANA)
    assert followup.content == text_of(PauseMsg.FOLLOWUP)
    assert followup.flags & SUPPRESS_NOTIFICATIONS


async def test_a_rate_limited_send_is_retried(discord_world: DiscordWorld) -> None:
    dc = discord_world.dc
    dc.inject_rate_limit(SEND, 0.05)  # short: discord.py waits it out itself
    await discord_world.says(ANA, "/about")
    assert [c.status for c in dc.calls_to(SEND)] == [429, 200]
    dc.inject_rate_limit(SEND, 45.0)  # longer than discord.py will wait: our retry takes over
    await discord_world.says(ANA, "/about")
    assert [c.status for c in dc.calls_to(SEND)][2:] == [429, 200]
    assert dc.dm_texts(ANA)[-1].startswith("Steady is a companion")


async def test_reminder_reaches_the_core_as_one_command_with_args_and_admin(
    discord_world: DiscordWorld,
) -> None:
    room = discord_world.room.id
    add = {
        "name": "add",
        "type": 1,
        "options": [
            {"name": "time", "type": 3, "value": "09:00"},
            {"name": "timezone", "type": 3, "value": "Europe/Berlin"},
            {"name": "days", "type": 3, "value": "mon, wed"},
            {"name": "text", "type": 3, "value": "You are  not alone."},
        ],
    }
    await discord_world.runs(MOD, "reminder", [add], channel_id=room)
    await discord_world.runs(MOD, "reminder", [{"name": "pause", "type": 1, "options": [
        {"name": "number", "type": 4, "value": 1}]}], channel_id=room)  # fmt: skip
    await discord_world.runs(
        BEN, "reminder", [{"name": "list", "type": 1}], channel_id=room, permission_override=True
    )
    events = [e for e in discord_world.router.events if isinstance(e, CommandIssued)]
    assert [(e.name, e.args, e.admin) for e in events] == [
        ("reminder", "add 09:00 Europe/Berlin mon,wed text You are not alone.", True),
        ("reminder", "pause 1", True),
        ("reminder", "list", False),
    ]
    assert all(e.address.is_group and e.address.chat_id == str(room) for e in events)
