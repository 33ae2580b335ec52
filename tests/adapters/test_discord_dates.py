"""/dates on Discord: a hard date added in DMs, and its morning check-in."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from bot.content_pack.ids import CheckinMsg, DatesMsg
from bot.storage import hard_dates
from bot.storage.users import find_user
from tests.helpers.discord_world import ANA, DiscordWorld


async def test_a_date_added_in_dms_brings_its_morning_checkin(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    world = discord_world
    await world.runs(ANA, "start")
    await world.says(ANA, "Europe/Berlin")
    await world.says(ANA, "20:00")
    await world.runs(ANA, "dates")
    await world.taps(ANA, text_of(DatesMsg.DATES_ADD))
    await world.taps(ANA, text_of(DatesMsg.DATES_KIND_CHILDREN))
    await world.says(ANA, "3/4")  # read two ways: asked
    assert text_of(DatesMsg.DATES_WHICH) in world.last_dm(ANA).content
    await world.taps(ANA, "April 3")
    await world.taps(ANA, text_of(DatesMsg.DATES_YEARLY))
    await world.says(ANA, "School handover")
    assert text_of(DatesMsg.DATES_ADDED, date="April 3") in world.last_dm(ANA).content
    assert world.dc.unanswered_interactions() == []
    user = await find_user(world.services.db, "discord", str(ANA))
    assert user is not None
    [saved] = await hard_dates.list_dates(world.services.db, world.services.cipher, user.id)
    assert (saved.month, saved.day, saved.year, saved.label) == (4, 3, None, "School handover")

    world.clock.set(datetime(2026, 4, 3, 7, 0, tzinfo=UTC))  # 09:00 in Berlin, summer time
    await world.dispatcher.tick()
    await world.outbox.drain()
    morning = world.last_dm(ANA)
    assert morning.content.splitlines()[0] == text_of(DatesMsg.DATES_OPENING)
    assert text_of(DatesMsg.DATES_DAY_DISCREET) in morning.content  # discreet: no kind named
    assert not morning.silent
    await world.taps(ANA, text_of(CheckinMsg.MOOD_4))
    assert text_of(CheckinMsg.ASK_URGE) in world.last_dm(ANA).content
