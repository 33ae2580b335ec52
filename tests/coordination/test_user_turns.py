from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.coordination.user_turns import DatabaseTurns, InProcessTurns, UserTurns, lock_key
from tests.helpers.postgres_server import scratch_database, server_url
from tests.helpers.waiting import until

ANA = ("telegram", "100")
BEN = ("telegram", "200")
# Ana's second update waits for her first; Ben's waits for neither.
IN_TURN = ["first begins", "ben", "first ends", "second begins"]


@pytest.fixture
async def two_workers() -> AsyncIterator[tuple[DatabaseTurns, DatabaseTurns]]:
    """Two workers' turns on one database, each through a pool of its own."""
    async with scratch_database(server_url()) as url:
        first = await asyncpg.create_pool(url, min_size=1, max_size=4)
        second = await asyncpg.create_pool(url, min_size=1, max_size=4)
        try:
            yield DatabaseTurns(first), DatabaseTurns(second)
        finally:
            await first.close()
            await second.close()


async def handled_in_turn(first: UserTurns, second: UserTurns) -> list[str]:
    """Ana's update held by `first`; her next one arrives at `second` meanwhile."""
    order: list[str] = []
    inside = asyncio.Event()
    finish = asyncio.Event()

    async def first_update() -> None:
        async with first.hold(ANA):
            order.append("first begins")
            inside.set()
            await finish.wait()
            order.append("first ends")

    async def second_update() -> None:
        await inside.wait()
        async with second.hold(ANA):
            order.append("second begins")

    tasks = [asyncio.create_task(first_update()), asyncio.create_task(second_update())]
    await inside.wait()
    # Ben's update is not held up by Ana's, on either worker.
    async with second.hold(BEN):
        order.append("ben")
    finish.set()
    await asyncio.gather(*tasks)
    return order


async def test_in_one_process_a_users_updates_take_turns() -> None:
    turns = InProcessTurns()
    assert await handled_in_turn(turns, turns) == IN_TURN


@pytest.mark.postgres_only
async def test_across_workers_a_users_updates_take_turns(
    two_workers: tuple[DatabaseTurns, DatabaseTurns],
) -> None:
    first, second = two_workers
    assert await handled_in_turn(first, second) == IN_TURN


@pytest.mark.postgres_only
async def test_a_failed_update_lets_the_user_go(
    two_workers: tuple[DatabaseTurns, DatabaseTurns],
) -> None:
    first, second = two_workers
    with pytest.raises(RuntimeError):
        async with first.hold(ANA):
            raise RuntimeError("the handler failed")
    entered = asyncio.Event()

    async def next_update() -> None:
        async with second.hold(ANA):
            entered.set()

    task = asyncio.create_task(next_update())
    await until(entered.is_set, what="the next update of the same user to begin")
    await task


def test_lock_keys_are_stable_and_apart() -> None:
    # The same in every worker and every version: a fixed hash, not Python's own.
    assert lock_key(ANA) == lock_key(("telegram", "100"))
    assert lock_key(ANA) != lock_key(BEN)
    assert lock_key(("telegram", "1")) != lock_key(("discord", "1"))
    assert -(2**63) <= lock_key(ANA) < 2**63
