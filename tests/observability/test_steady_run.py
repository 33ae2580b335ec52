"""`steady run` with STEADY_HTTP_PORT: the real process serves /healthz and /metrics for
as long as it runs, names the roles it holds, and counts a crisis reply on Telegram."""

from __future__ import annotations

import asyncio
import signal
import socket
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.fakes.telegram_api import FakeTelegram
from tests.helpers.processes import start_steady_run, steady_environment
from tests.helpers.waiting import until

CRISIS = "honestly i just want to die"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def first_answer(client: httpx.AsyncClient, path: str) -> httpx.Response:
    """The first answer once the process listens: until then each try is refused, and
    the next one starts."""
    attempt: asyncio.Future[httpx.Response] | None = None

    def answered() -> bool:
        nonlocal attempt
        if attempt is not None and attempt.done() and attempt.exception() is None:
            return True
        if attempt is None or attempt.done():
            attempt = asyncio.ensure_future(client.get(path))
        return False

    await until(answered, what=f"an answer on {path}")
    assert attempt is not None
    return attempt.result()


def crisis_replies(exposition: str) -> float:
    for family in text_string_to_metric_families(exposition):
        for sample in family.samples:
            if sample.name == "steady_crisis_replies_total":
                return sample.value
    return 0.0


async def test_steady_run_serves_health_and_metrics_while_it_runs(tmp_path: Path) -> None:
    port = free_port()
    async with FakeTelegram() as tg:
        environment = steady_environment(
            tmp_path / "data",
            TELEGRAM_BOT_TOKEN=tg.token,
            TELEGRAM_API_BASE_URL=f"{tg.url}/bot",
            STEADY_HTTP_PORT=str(port),
        )
        process = await start_steady_run(environment, tmp_path)
        try:
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}", timeout=30, trust_env=False
            ) as client:
                health = await first_answer(client, "/healthz")
                assert health.status_code == 200, health.text
                body = health.json()
                assert body["roles"] == ["telegram polling", "scheduler"]
                assert body["database_reachable"] is True
                await tg.wait_for("setMyCommands", timeout=30)
                tg.user_sends_text(42, 42, CRISIS)
                await tg.wait_for("sendMessage", timeout=30)
                metrics = await client.get("/metrics")
                assert metrics.status_code == 200
                assert crisis_replies(metrics.text) == 1
            process.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(process.wait(), timeout=10) == 0
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        _, stderr = await process.communicate()
        assert b"Traceback" not in stderr
    # Stopped with the app: nothing listens any more.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))


async def test_a_port_already_taken_stops_steady_run_with_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        async with FakeTelegram() as tg:
            environment = steady_environment(
                tmp_path / "data",
                TELEGRAM_BOT_TOKEN=tg.token,
                TELEGRAM_API_BASE_URL=f"{tg.url}/bot",
                STEADY_HTTP_PORT=str(port),
            )
            process = await start_steady_run(environment, tmp_path)
            try:
                assert await asyncio.wait_for(process.wait(), timeout=30) == 2
            finally:
                if process.returncode is None:
                    process.kill()
                    await process.wait()
            _, stderr = await process.communicate()
    assert f"cannot serve health and metrics on 127.0.0.1:{port}".encode() in stderr
    assert b"STEADY_HTTP_PORT" in stderr
    assert b"Traceback" not in stderr
