"""Two workers, one bot: exactly one polls Telegram, and the other takes over."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from bot.adapters.discord.adapter import DiscordAdapter
from bot.adapters.telegram.adapter import TelegramAdapter, TelegramConfig
from bot.coordination.advisory_leadership import AdvisoryLeadership
from bot.coordination.leadership import OnlyWorker, Role
from bot.engine.router import Router
from bot.flows.context import Services
from bot.platform_roles import campaign, led_parts
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers.discord_world import DiscordWorld, discord_config
from tests.helpers.postgres_server import scratch_database, server_url
from tests.helpers.telegram_world import no_wait
from tests.helpers.waiting import until

ANA = 6161


@pytest.fixture
async def leader_database() -> AsyncIterator[str]:
    async with scratch_database(server_url()) as url:
        yield url


def telegram_worker(tg: FakeTelegram, services: Services, seed: int) -> TelegramAdapter:
    config = TelegramConfig(token=tg.token, base_url=f"{tg.url}/bot", poll_timeout=1)
    router = Router(services, rng=random.Random(seed))
    return TelegramAdapter(config, router, services.db, services.content, sleep=no_wait)


async def stopped(tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


@pytest.mark.postgres_only
async def test_one_of_two_workers_polls_and_the_other_takes_over(
    services: Services, leader_database: str
) -> None:
    async with FakeTelegram() as tg:
        workers = [telegram_worker(tg, services, seed) for seed in (1, 2)]
        leaderships = [
            AdvisoryLeadership(leader_database, retry_seconds=0.05, check_seconds=0.1)
            for _ in workers
        ]
        campaigns: list[list[asyncio.Task[None]]] = []
        try:
            for adapter, leadership in zip(workers, leaderships, strict=True):
                followers, parts = led_parts({adapter.platform: adapter}, webhook=False)
                for follower in followers:
                    await follower.start()
                campaigns.append(campaign(leadership, parts))
            await until(lambda: any(lead.holds(Role.TELEGRAM_POLLING) for lead in leaderships))
            await until(lambda: all(lead.attempts >= 1 for lead in leaderships))
            holders = [lead.holds(Role.TELEGRAM_POLLING) for lead in leaderships]
            assert holders.count(True) == 1
            leader = holders.index(True)

            tg.user_sends_text(ANA, ANA, "/start")
            await until(lambda: len(tg.sent_texts(ANA)) >= 1, what="the poller to answer")

            await stopped(campaigns[leader])  # the leader goes away
            other = 1 - leader
            await until(lambda: leaderships[other].holds(Role.TELEGRAM_POLLING))
            before = len(tg.sent_texts(ANA))
            tg.user_sends_text(ANA, ANA, "/help")
            await until(lambda: len(tg.sent_texts(ANA)) > before, what="the new poller")
        finally:
            for tasks in campaigns:
                await stopped(tasks)
            for adapter in workers:
                await adapter.stop()


async def test_the_only_worker_connects_discords_gateway_and_lets_go_on_stop(
    discord_world: DiscordWorld,
) -> None:
    # A second adapter on the same fake, as this worker's own: started as a follower,
    # then given the gateway by the only worker's leadership.
    dc = discord_world.dc
    services = discord_world.services
    adapter = DiscordAdapter(
        discord_config(dc), Router(services, rng=random.Random(6)), services.db,
        services.content, sleep=no_wait,
    )  # fmt: skip
    connections = len(dc.identifies)
    followers, parts = led_parts({adapter.platform: adapter}, webhook=False)
    for follower in followers:
        await follower.start()
    assert len(dc.identifies) == connections
    leadership = OnlyWorker()
    tasks = campaign(leadership, parts)
    try:
        await until(lambda: len(dc.identifies) == connections + 1, what="a gateway connection")
        assert leadership.holds(Role.DISCORD_GATEWAY)
    finally:
        await stopped(tasks)
        await adapter.stop()
    assert not leadership.holds(Role.DISCORD_GATEWAY)
