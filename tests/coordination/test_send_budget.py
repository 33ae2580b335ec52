"""The send budget every worker on PostgreSQL shares: a platform's limits hold for all of
them together, lane by lane, each send counted until its call returned."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.coordination.send_budget import Lane, Limit, SharedBudget, Ticket
from bot.storage.send_budget import PENDING_MS
from tests.helpers.postgres_server import scratch_database, server_url

GROUP = Limit(20, 60.0)
OVERALL = Limit(30, 1.0)


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


async def sent(budget: SharedBudget, scope: str, limit: Limit, lane: Lane) -> None:
    """One send: counted, its call returning at once, dated then."""
    budget.settle(await budget.take(scope, limit, lane))
    await budget.settled()


@pytest.mark.postgres_only
async def test_two_workers_keep_one_groups_limit_together(
    two_pools: tuple[asyncpg.Pool, asyncpg.Pool],
) -> None:
    time = VirtualTime()
    workers = [SharedBudget(pool, time.sleep, time.now) for pool in two_pools]
    sent_at: list[int] = []
    for number in range(45):  # the workers take turns, as two processes' sends would
        await sent(workers[number % 2], "telegram group -100", GROUP, Lane.URGENT)
        sent_at.append(time.now())

    window = 60_000
    for index, moment in enumerate(sent_at):
        inside = [m for m in sent_at[: index + 1] if m > moment - window]
        assert len(inside) <= GROUP.sends, f"send {index} made {len(inside)} in a minute"
    # Not held back more than the limit needs: the 21st waits a minute, the 41st two.
    assert sent_at[20] - sent_at[0] == window
    assert sent_at[40] - sent_at[0] == 2 * window


@pytest.mark.postgres_only
async def test_the_lanes_hold_across_two_workers(
    two_pools: tuple[asyncpg.Pool, asyncpg.Pool],
) -> None:
    """One worker's check-ins fill bulk's share of the second; the other worker's
    check-in waits, its replies take the rest but the last, and a crisis reply that."""
    time = VirtualTime()
    first, second = (SharedBudget(pool, time.sleep, time.now) for pool in two_pools)
    start = time.now()
    for _ in range(27):
        await sent(first, "telegram", OVERALL, Lane.BULK)
    assert time.now() == start
    await sent(second, "telegram", OVERALL, Lane.INTERACTIVE)
    await sent(second, "telegram", OVERALL, Lane.INTERACTIVE)
    await sent(first, "telegram", OVERALL, Lane.URGENT)
    assert time.now() == start  # none of them waited for bulk
    await sent(second, "telegram", OVERALL, Lane.BULK)
    assert time.now() == start + 1_000  # bulk waited for the second to pass
    await sent(first, "telegram", OVERALL, Lane.URGENT)
    assert time.now() == start + 1_000


@pytest.mark.postgres_only
async def test_bulk_never_takes_the_replies_share_across_two_workers(
    two_pools: tuple[asyncpg.Pool, asyncpg.Pool],
) -> None:
    time = VirtualTime()
    first, second = (SharedBudget(pool, time.sleep, time.now) for pool in two_pools)
    start = time.now()
    for number in range(27):  # both workers' check-ins, in turns
        await sent((first, second)[number % 2], "telegram", OVERALL, Lane.BULK)
    assert time.now() == start
    await sent(first, "telegram", OVERALL, Lane.BULK)  # 3 are free, but not bulk's
    assert time.now() == start + 1_000


@pytest.mark.postgres_only
async def test_a_send_counts_until_its_call_returns_then_from_then(
    two_pools: tuple[asyncpg.Pool, asyncpg.Pool],
) -> None:
    """The platform counts a message on arrival, somewhere in its call: a send of one
    worker still under way holds its place for the other, and is dated on return."""
    time = VirtualTime()
    first, second = (SharedBudget(pool, time.sleep, time.now) for pool in two_pools)
    tight = Limit(2, 1.0)
    under_way: list[Ticket | None] = [await first.take("telegram", tight, Lane.URGENT)]
    under_way.append(await first.take("telegram", tight, Lane.URGENT))
    start = time.now()
    time.ms += 5_000  # the calls are slow ...
    for ticket in under_way:  # ... and return now
        first.settle(ticket)
    await first.settled()
    await sent(second, "telegram", tight, Lane.URGENT)
    assert time.now() == start + 5_000 + 1_000  # a whole second after they returned
    assert PENDING_MS > 5_000  # (not because they had aged out meanwhile)


@pytest.mark.postgres_only
async def test_scopes_do_not_share_a_budget(two_pools: tuple[asyncpg.Pool, asyncpg.Pool]) -> None:
    time = VirtualTime()
    budget = SharedBudget(two_pools[0], time.sleep, time.now)
    start = time.now()
    for chat in range(30):  # thirty groups, one message each: nobody waits
        await sent(budget, f"telegram group {chat}", GROUP, Lane.BULK)
    assert time.now() == start
