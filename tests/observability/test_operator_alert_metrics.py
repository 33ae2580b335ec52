"""The two gauges the operator's alerts (deploy/prometheus) read besides the others: is
the database answering this scrape, and does any worker hold each leader role."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.config import Settings
from bot.coordination.advisory_leadership import AdvisoryLeadership
from bot.coordination.leadership import Role
from bot.observability.metrics import Metrics
from tests.helpers.postgres_server import scratch_database, server_url
from tests.helpers.waiting import until
from tests.helpers.world import World
from tests.observability.served import Scraper, serving
from tests.observability.test_health_and_metrics import HangingReads


@pytest.fixture
async def scraper(settings: Settings, world: World) -> AsyncIterator[Scraper]:
    async with serving(settings, world.services, {world.adapter.platform: world.adapter}) as s:
        yield s


async def test_database_reachable_is_0_while_a_scrape_gets_no_answer_then_1_again(
    scraper: Scraper, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert await scraper.value("steady_database_reachable") == 1
    reads = HangingReads(world.services.db, monkeypatch)
    try:
        assert await scraper.value("steady_database_reachable") == 0
    finally:
        reads.release.set()
    assert await scraper.value("steady_database_reachable") == 1


def _held(metrics: Metrics, role: Role) -> float | None:
    return metrics.registry.get_sample_value("steady_leader_role_held", {"role": role.value})


async def _nothing() -> None:
    return None


@pytest.mark.postgres_only
async def test_leader_role_held_is_1_on_the_holder_and_0_on_the_worker_waiting() -> None:
    async with scratch_database(server_url()) as url:
        first_metrics, second_metrics = Metrics(), Metrics()
        first = AdvisoryLeadership(url, first_metrics, retry_seconds=0.05, check_seconds=0.1)
        second = AdvisoryLeadership(url, second_metrics, retry_seconds=0.05, check_seconds=0.1)
        role = Role.TELEGRAM_POLLING
        first_task = asyncio.create_task(first.serve(role, _nothing, _nothing))
        await until(lambda: first.holds(role))
        second_task = asyncio.create_task(second.serve(role, _nothing, _nothing))
        await until(lambda: second.attempts >= 1)
        assert (_held(first_metrics, role), _held(second_metrics, role)) == (1, 0)
        first_task.cancel()
        await asyncio.gather(first_task, return_exceptions=True)
        assert _held(first_metrics, role) == 0
        await until(lambda: second.holds(role))
        assert _held(second_metrics, role) == 1
        second_task.cancel()
        await asyncio.gather(second_task, return_exceptions=True)
        assert _held(second_metrics, role) == 0
