"""Several workers on one PostgreSQL database, each ticking: every due check-in is claimed
by one of them and sent once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.scheduling import checkin_due
from tests.helpers.world import World, build_world

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
USERS = 24


@pytest.mark.postgres_only
async def test_two_workers_ticking_at_once_send_each_check_in_once(
    world: World,
    settings: Settings,
    clock: ManualClock,
    content: ContentPack,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Small chunks, so the two workers' claims interleave, transaction by transaction.
    monkeypatch.setattr(checkin_due, "CLAIM_CHUNK", 3)
    for n in range(USERS):
        chat = await world.onboard(f"user{n}", "UTC", "10:00")
        await chat.send("/cancel")  # out of onboarding, so the check-in is not put off
    world.adapter.take()
    async with open_services(settings, clock, content) as other_services:
        other = await build_world(other_services, clock)
        try:
            clock.set(START + timedelta(hours=1))
            first, second = await asyncio.gather(world.dispatcher.tick(), other.dispatcher.tick())
            await asyncio.gather(world.outbox.drain(), other.outbox.drain())
            sent = [address.user_id for address, _ in world.checkins_sent() + other.checkins_sent()]
            assert sorted(sent) == sorted(f"user{n}" for n in range(USERS))  # each once
            assert first.claimed + second.claimed == USERS
            # Nothing is left for either to claim again.
            again = await asyncio.gather(world.dispatcher.tick(), other.dispatcher.tick())
            assert [report.claimed for report in again] == [0, 0]
        finally:
            await other.outbox.stop()
