"""Time zones that do not exist, paths dressed as zones, and a time the clocks skip."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from bot.content_pack.ids import OnboardingMsg, SettingsMsg
from bot.core.clock import ManualClock
from bot.flows.context import Services
from bot.flows.onboarding import OnboardingStep
from bot.storage.checkin_slots import list_slots
from bot.storage.flow_positions import get_position
from bot.storage.users import User, find_user
from tests.helpers.conversation import Conversation
from tests.helpers.world import World

NOT_ZONES = [
    "Mars/Phobos",
    "UTC+25",
    "",
    "   ",
    "../etc/passwd",
    "Europe",  # a folder of the zone database, not a zone
    "/etc/localtime",
    "posix/Europe/Berlin",
    "zone.tab",  # a file of the zone database that is not a zone
    "Factory",
    "Europe/Berlin\x00",
    "Europe/Berlin/../../../etc/shadow",
    "Etc/GMT+25",
    "UTC-12",  # only uninhabited islands keep this offset: no place to offer
    "E" * 10_000,
]


async def me(services: Services) -> User:
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    return user


@pytest.mark.parametrize("text", NOT_ZONES)
async def test_onboarding_refuses_a_bad_zone_kindly_and_saves_nothing(
    chat: Conversation, services: Services, text_of: Callable[..., str], text: str
) -> None:
    await chat.send("/start")
    [reply] = await chat.send(text)
    assert reply.text == text_of(OnboardingMsg.BAD_TIMEZONE)
    user = await me(services)
    assert user.timezone is None
    position = await get_position(services.db, user.id)
    assert position is not None and position.step == OnboardingStep.TIMEZONE  # still asking


@pytest.mark.parametrize("text", ["Mars/Phobos", "UTC+25", "", "../etc/passwd", "Europe"])
async def test_settings_refuse_a_bad_zone_and_keep_the_schedule(
    chat: Conversation, services: Services, text_of: Callable[..., str], text: str
) -> None:
    await chat.send("/start")
    await chat.send("Europe/Berlin")
    await chat.send("08:30")
    before = await list_slots(services.db, (await me(services)).id)
    await chat.send("/settings")
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_TIMEZONE))
    [reply] = await chat.send(text)
    assert reply.text == text_of(OnboardingMsg.BAD_TIMEZONE)
    user = await me(services)
    assert user.timezone == "Europe/Berlin"
    assert await list_slots(services.db, user.id) == before


async def test_0230_on_the_spring_forward_day_fires_once_at_0330(
    world: World, clock: ManualClock
) -> None:
    # Berlin skips 02:00-03:00 on Sunday 2026-03-29.
    clock.set(datetime(2026, 3, 28, 12, 0, tzinfo=UTC))
    await world.onboard("ana", "Europe/Berlin", "02:30")
    world.adapter.take()
    delivered = await world.run_until(
        datetime(2026, 3, 30, 12, 0, tzinfo=UTC), step=timedelta(minutes=10)
    )
    assert delivered == [
        datetime(2026, 3, 29, 1, 30, tzinfo=UTC),  # 03:30 CEST: the skipped hour, made up once
        datetime(2026, 3, 30, 0, 30, tzinfo=UTC),  # 02:30 CEST the day after
    ]


@pytest.mark.parametrize("hours", range(-11, 15))  # nobody lives at UTC-12: refused, above
async def test_every_offset_offers_city_zones_and_stores_none_of_them_unasked(
    chat: Conversation, services: Services, text_of: Callable[..., str], hours: int
) -> None:
    await chat.send("/start")
    [pick] = await chat.send(f"UTC{hours:+d}")
    assert pick.text == text_of(OnboardingMsg.TIMEZONE_PICK_FIXED), hours
    zones = [b.data.split(":", 3)[3] for b in pick.flat_buttons][:-1]  # the last: none of these
    assert zones and all("/" in zone and not zone.startswith("Etc/") for zone in zones), zones
    assert (await me(services)).timezone is None


@pytest.mark.parametrize("typed", ["EST", "CET", "PST", "GMT+2", "Etc/GMT+2", "UTC-5", "MST"])
async def test_settings_never_store_an_offset_or_abbreviation(
    chat: Conversation, services: Services, text_of: Callable[..., str], typed: str
) -> None:
    await chat.send("/start")
    await chat.send("Europe/Berlin")
    await chat.send("08:30")
    await chat.send("/settings")
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_TIMEZONE))
    [pick] = await chat.send(typed)
    assert pick.text == text_of(OnboardingMsg.TIMEZONE_PICK_FIXED)
    await chat.send("yes")  # no button here says yes: nothing is taken for one
    await chat.send("/cancel")
    assert (await me(services)).timezone == "Europe/Berlin"
