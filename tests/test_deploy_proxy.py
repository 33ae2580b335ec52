"""deploy/nginx/steady.conf for real: nginx, with a throwaway certificate, in front of
`steady run` on a webhook; a Telegram update delivered through it over TLS on the public
path is answered, and one with a wrong secret is refused."""

from __future__ import annotations

import asyncio
import shutil
import signal
import socket
import ssl
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest

from tests.fakes.telegram_api import FakeTelegram
from tests.helpers.processes import start_steady_run, steady_environment
from tests.helpers.waiting import until

SITE = Path(__file__).resolve().parent.parent / "deploy" / "nginx" / "steady.conf"
SECRET = "a-long-random-secret_42"
ANA = 4242

pytestmark = pytest.mark.skipif(
    shutil.which("nginx") is None or shutil.which("openssl") is None,
    reason="needs nginx and openssl (deploy/check.sh installs them in CI)",
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _throwaway_certificate(folder: Path) -> None:
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=bot.example.org",
         "-addext", "subjectAltName=DNS:bot.example.org,IP:127.0.0.1",
         "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip


def _site_for_the_test(folder: Path, public_port: int, steady_port: int, bot_id: str) -> str:
    """The shipped site, changed only where a test must: its certificate, its log, the
    ports (no root here, no port 80 or 443) and the bot id an operator fills in."""
    site = SITE.read_text()
    for shipped, here in (
        ("/etc/letsencrypt/live/bot.example.org/fullchain.pem", str(folder / "cert.pem")),
        ("/etc/letsencrypt/live/bot.example.org/privkey.pem", str(folder / "key.pem")),
        ("/var/log/nginx/", f"{folder}/"),
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{public_port} ssl http2;"),
        ("listen 80;", f"listen 127.0.0.1:{_free_port()};"),
        ("http://127.0.0.1:8443/123456789;", f"http://127.0.0.1:{steady_port}/{bot_id};"),
    ):
        assert shipped in site, shipped  # the test follows the shipped file, or fails
        site = site.replace(shipped, here)
    return "\n".join(line for line in site.splitlines() if "listen [::]" not in line)


@asynccontextmanager
async def _nginx(folder: Path, site: str, port: int) -> AsyncIterator[None]:
    (folder / "site.conf").write_text(site)
    (folder / "nginx.conf").write_text(
        f"pid {folder}/nginx.pid;\nerror_log {folder}/error.log;\nevents {{}}\n"
        f"http {{\n    include {folder}/site.conf;\n}}\n"
    )
    process = await asyncio.create_subprocess_exec(
        "nginx", "-g", "daemon off;", "-c", str(folder / "nginx.conf"), "-p", str(folder),
        "-e", str(folder / "error.log"),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        await until(lambda: _accepts(port) or process.returncode is not None, what="nginx")
        assert process.returncode is None, (folder / "error.log").read_text()
        yield
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGQUIT)
            await process.wait()


def _accepts(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


async def test_an_update_through_nginx_is_answered_and_a_wrong_secret_refused(
    tmp_path: Path,
) -> None:
    _throwaway_certificate(tmp_path)
    public_port, steady_port = _free_port(), _free_port()
    trusted = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
    async with FakeTelegram() as tg:
        bot_id = tg.token.split(":", 1)[0]
        environment = steady_environment(
            tmp_path / "data",
            TELEGRAM_BOT_TOKEN=tg.token,
            TELEGRAM_API_BASE_URL=f"{tg.url}/bot",
            TELEGRAM_WEBHOOK_URL="https://bot.example.org/telegram/webhook",
            TELEGRAM_WEBHOOK_SECRET=SECRET,
            TELEGRAM_WEBHOOK_LISTEN="127.0.0.1",
            TELEGRAM_WEBHOOK_PORT=str(steady_port),
        )
        site = _site_for_the_test(tmp_path, public_port, steady_port, bot_id)
        process = await start_steady_run(environment, tmp_path)
        try:
            async with _nginx(tmp_path, site, public_port), aiohttp.ClientSession() as http:
                await tg.wait_for("setWebhook", timeout=60)
                await until(lambda: _accepts(steady_port), what="steady's webhook port")
                public = f"https://127.0.0.1:{public_port}/telegram/webhook"

                async def deliver(secret: str | None, method: str = "POST") -> int:
                    update = tg.user_sends_text(ANA, ANA, "/about")
                    headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret else {}
                    async with http.request(
                        method, public, json=update, headers=headers, ssl=trusted
                    ) as response:
                        return response.status

                assert await deliver("not-the-secret") == 403
                assert await deliver(None) == 403
                assert await deliver(SECRET, "GET") == 403  # only POST reaches Steady
                assert tg.calls_to("sendMessage") == []
                async with http.get(
                    f"https://127.0.0.1:{public_port}/{bot_id}", ssl=trusted
                ) as direct:
                    assert direct.status == 404  # only the public path is mapped
                assert await deliver(SECRET) == 200
                await tg.wait_for("sendMessage", timeout=30)
                assert tg.sent_texts(ANA)[-1].startswith("Steady is a companion for reflection")
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
                await asyncio.wait_for(process.wait(), timeout=30)
        _, stderr = await process.communicate()
        assert b"Traceback" not in stderr
