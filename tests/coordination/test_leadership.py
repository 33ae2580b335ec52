from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import asyncpg
import pytest

from bot.coordination.advisory_leadership import AdvisoryLeadership
from bot.coordination.leadership import ROLE_KEYS, OnlyWorker, Role
from bot.observability.metrics import Metrics
from tests.helpers.postgres_server import scratch_database, server_url
from tests.helpers.waiting import until

# Short, so a take-over is quick in a test; the defaults are seconds.
RETRY = 0.05
CHECK = 0.1


@dataclass
class Watched:
    """What a worker's role did: each gain and loss, in order."""

    events: list[str] = field(default_factory=list)

    async def gained(self) -> None:
        self.events.append("gained")

    async def lost(self) -> None:
        self.events.append("lost")


@pytest.fixture
async def url() -> AsyncIterator[str]:
    # A database of the test's own: advisory locks belong to one database, so tests
    # running at the same time (and other tests' locks) never meet.
    async with scratch_database(server_url()) as address:
        yield address


def worker(url: str, metrics: Metrics | None = None) -> AdvisoryLeadership:
    return AdvisoryLeadership(url, metrics, retry_seconds=RETRY, check_seconds=CHECK)


async def stopped(task: asyncio.Task[None]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_the_only_worker_holds_every_role_until_it_stops() -> None:
    leadership = OnlyWorker()
    watched = Watched()
    task = asyncio.create_task(
        leadership.serve(Role.TELEGRAM_POLLING, watched.gained, watched.lost)
    )
    await until(lambda: watched.events == ["gained"])
    assert leadership.holds(Role.TELEGRAM_POLLING)
    assert not leadership.holds(Role.DISCORD_GATEWAY)
    await stopped(task)
    assert watched.events == ["gained", "lost"]
    assert not leadership.holds(Role.TELEGRAM_POLLING)


@pytest.mark.postgres_only
async def test_one_of_two_workers_holds_a_role_and_the_other_takes_over(url: str) -> None:
    first, second = worker(url), worker(url)
    first_role, second_role = Watched(), Watched()
    first_task = asyncio.create_task(
        first.serve(Role.TELEGRAM_POLLING, first_role.gained, first_role.lost)
    )
    await until(lambda: first_role.events == ["gained"])
    second_task = asyncio.create_task(
        second.serve(Role.TELEGRAM_POLLING, second_role.gained, second_role.lost)
    )
    # The second has tried (its first attempt comes at once) and failed.
    await until(lambda: second.attempts >= 1)
    assert second_role.events == []
    assert first.holds(Role.TELEGRAM_POLLING) and not second.holds(Role.TELEGRAM_POLLING)

    await stopped(first_task)
    await until(lambda: second_role.events == ["gained"])
    assert second.holds(Role.TELEGRAM_POLLING) and not first.holds(Role.TELEGRAM_POLLING)
    assert first_role.events == ["gained", "lost"]
    await stopped(second_task)


@pytest.mark.postgres_only
async def test_roles_are_held_apart(url: str) -> None:
    first, second = worker(url), worker(url)
    polling, gateway = Watched(), Watched()
    tasks = [
        asyncio.create_task(first.serve(Role.TELEGRAM_POLLING, polling.gained, polling.lost)),
        asyncio.create_task(second.serve(Role.DISCORD_GATEWAY, gateway.gained, gateway.lost)),
    ]
    await until(lambda: polling.events == ["gained"] and gateway.events == ["gained"])
    for task in tasks:
        await stopped(task)


@pytest.mark.postgres_only
async def test_a_holder_cut_off_from_the_database_gives_the_role_up(url: str) -> None:
    metrics = Metrics()
    first, second = worker(url, metrics), worker(url)
    first_role, second_role = Watched(), Watched()
    first_task = asyncio.create_task(
        first.serve(Role.DISCORD_GATEWAY, first_role.gained, first_role.lost)
    )
    await until(lambda: first_role.events == ["gained"])
    second_task = asyncio.create_task(
        second.serve(Role.DISCORD_GATEWAY, second_role.gained, second_role.lost)
    )
    # The server drops the holder's connection (a network cut, a database restart).
    admin = await asyncpg.connect(url)
    try:
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks"
            " WHERE locktype = 'advisory' AND objid::bigint = $1",
            ROLE_KEYS[Role.DISCORD_GATEWAY] & 0xFFFF_FFFF,
        )
    finally:
        await admin.close()
    await until(lambda: first_role.events[:2] == ["gained", "lost"])
    await until(lambda: first.holds(Role.DISCORD_GATEWAY) or second.holds(Role.DISCORD_GATEWAY))
    assert not (first.holds(Role.DISCORD_GATEWAY) and second.holds(Role.DISCORD_GATEWAY))
    assert metrics.leader_changes._value.get() >= 2  # gained, then lost
    for task in (first_task, second_task):
        await stopped(task)


_HOLDER = textwrap.dedent(
    """
    import asyncio, sys
    from bot.coordination.advisory_leadership import AdvisoryLeadership
    from bot.coordination.leadership import Role

    async def main():
        leadership = AdvisoryLeadership(sys.argv[1], retry_seconds=0.05, check_seconds=0.1)
        async def gained():
            print("held", flush=True)
        async def lost():
            pass
        await leadership.serve(Role.TELEGRAM_POLLING, gained, lost)

    asyncio.run(main())
    """
)


@pytest.mark.postgres_only
async def test_a_killed_leaders_role_is_taken_over_within_30_seconds(url: str) -> None:
    holder = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _HOLDER, url, stdout=asyncio.subprocess.PIPE
    )
    assert holder.stdout is not None
    try:
        line = await asyncio.wait_for(holder.stdout.readline(), 30)
        assert line.strip() == b"held"
        waiting, watched = worker(url), Watched()
        task = asyncio.create_task(
            waiting.serve(Role.TELEGRAM_POLLING, watched.gained, watched.lost)
        )
        await until(lambda: waiting.attempts >= 1)
        assert watched.events == []
        os.kill(holder.pid, signal.SIGKILL)  # no goodbye: the socket just closes
        loop = asyncio.get_running_loop()
        killed_at = loop.time()
        await until(lambda: watched.events == ["gained"], timeout=30)
        assert loop.time() - killed_at < 30
        await stopped(task)
    finally:
        if holder.returncode is None:
            holder.kill()
        await holder.wait()
