from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.coordination.send_budget import Limit, SharedBudget
from tests.helpers.postgres_server import scratch_database, server_url

GROUP = Limit(20, 60.0)


class VirtualTime:
    """Milliseconds that move only when someone waits: a minute passes at once."""

    def __init__(self) -> None:
        self.ms = 1_800_000_000_000

    def now(self) -> int:
        return self.ms

    async def sleep(self, seconds: float) -> None:
        self.ms += round(seconds * 1000)


@pytest.fixture
async def two_pools() -> AsyncIterator[tuple[asyncpg.Pool, asyncpg.Pool]]:
    async with scratch_database(server_url()) as url:
        setup = await asyncpg.connect(url)
        try:
            await setup.execute(
                "CREATE TABLE send_budget (id BIGSERIAL PRIMARY KEY, scope TEXT NOT NULL,"
                " sent_at BIGINT NOT NULL);"
                "CREATE INDEX send_budget_scope ON send_budget (scope, sent_at)"
            )
        finally:
            await setup.close()
        first = await asyncpg.create_pool(url, min_size=1, max_size=2)
        second = await asyncpg.create_pool(url, min_size=1, max_size=2)
        try:
            yield first, second
        finally:
            await first.close()
            await second.close()


@pytest.mark.postgres_only
async def test_two_workers_keep_one_groups_limit_together(
    two_pools: tuple[asyncpg.Pool, asyncpg.Pool],
) -> None:
    time = VirtualTime()
    workers = [SharedBudget(pool, time.sleep, time.now) for pool in two_pools]
    sent_at: list[int] = []
    for number in range(45):  # the workers take turns, as two processes' sends would
        await workers[number % 2].take("telegram group -100", GROUP)
        sent_at.append(time.now())

    window = 60_000
    for index, moment in enumerate(sent_at):
        inside = [m for m in sent_at[: index + 1] if m > moment - window]
        assert len(inside) <= GROUP.sends, f"send {index} made {len(inside)} in a minute"
    # Not held back more than the limit needs: the 21st waits a minute, the 41st two.
    assert sent_at[20] - sent_at[0] == window
    assert sent_at[40] - sent_at[0] == 2 * window


@pytest.mark.postgres_only
async def test_scopes_do_not_share_a_budget(two_pools: tuple[asyncpg.Pool, asyncpg.Pool]) -> None:
    time = VirtualTime()
    budget = SharedBudget(two_pools[0], time.sleep, time.now)
    start = time.now()
    for chat in range(30):  # thirty groups, one message each: nobody waits
        await budget.take(f"telegram group {chat}", GROUP)
    assert time.now() == start
