"""Two `steady run` workers on one PostgreSQL database and one bot: one polls Telegram,
both serve, and when the poller is killed (SIGKILL) the other takes polling over within
30 seconds, as /healthz shows."""

from __future__ import annotations

import asyncio
import base64
import os
import signal
from pathlib import Path

import httpx
import pytest

from tests.fakes.telegram_api import FakeTelegram
from tests.helpers.processes import start_steady_run, steady_environment
from tests.helpers.waiting import until, until_answered
from tests.observability.test_steady_run import first_answer, free_port

TAKE_OVER_SECONDS = 30


async def roles_of(client: httpx.AsyncClient) -> list[str]:
    health = await first_answer(client, "/healthz")
    roles: list[str] = health.json()["roles"]
    return roles


@pytest.mark.postgres_only
async def test_one_of_two_workers_polls_and_the_other_takes_over_when_it_is_killed(
    tmp_path: Path, database_url: str | None
) -> None:
    assert database_url is not None
    # The workers share the key as they share the database (see README).
    key = base64.urlsafe_b64encode(os.urandom(32)).decode()
    ports = [free_port(), free_port()]
    async with FakeTelegram() as tg:
        workers = []
        for number, port in enumerate(ports):
            environment = steady_environment(
                tmp_path / f"worker{number}",
                TELEGRAM_BOT_TOKEN=tg.token,
                TELEGRAM_API_BASE_URL=f"{tg.url}/bot",
                STEADY_DATABASE_URL=database_url,
                STEADY_ENCRYPTION_KEY=key,
                STEADY_HTTP_PORT=str(port),
            )
            workers.append(await start_steady_run(environment, tmp_path))
        clients = [
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30, trust_env=False)
            for port in ports
        ]
        try:
            polling: list[int] = []

            async def someone_polls() -> bool:
                polling[:] = [
                    number
                    for number, client in enumerate(clients)
                    if workers[number].returncode is None
                    and "telegram polling" in await roles_of(client)
                ]
                return bool(polling)

            async def wait_for_one_poller() -> list[int]:
                await until_answered(
                    someone_polls, timeout=TAKE_OVER_SECONDS, what="a worker polling Telegram"
                )
                return list(polling)

            polling = await wait_for_one_poller()
            assert len(polling) == 1
            tg.user_sends_text(71, 71, "/about")
            await until(lambda: len(tg.sent_texts(71)) >= 1, what="an answer to /about")

            leader = polling[0]
            workers[leader].send_signal(signal.SIGKILL)
            await workers[leader].wait()
            other = 1 - leader
            assert await wait_for_one_poller() == [other]
            before = len(tg.sent_texts(71))
            tg.user_sends_text(71, 71, "/help")
            await until(lambda: len(tg.sent_texts(71)) > before, what="the new poller's answer")
        finally:
            for client in clients:
                await client.aclose()
            for process in workers:
                if process.returncode is None:
                    process.send_signal(signal.SIGTERM)
            for process in workers:
                try:
                    await asyncio.wait_for(process.wait(), 20)
                except TimeoutError:
                    process.kill()
                    await process.wait()
