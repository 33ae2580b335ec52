"""The doctor's platform checks: each token accepted (Telegram's getMe, Discord's login
over HTTP and on the gateway),
tried with the same retries and bound as `steady run` (STEADY_START_RETRY); the webhook
URL, its secret and its local port."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import socket
from asyncio import FIRST_COMPLETED
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

import discord
import telegram
import telegram.error
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.adapters.discord.adapter import DiscordConfig
from bot.adapters.discord.client import intents
from bot.app import discord_config
from bot.config import Settings
from bot.operations.report import Finding, failed, ok, skipped
from bot.platform_start import PlatformUnreachable, start_with_retries

# The ports Telegram delivers webhook updates to.
TELEGRAM_WEBHOOK_PORTS = frozenset({443, 80, 88, 8443})


@dataclass
class _Login:
    """A login as `start_with_retries` wants it: started (retried on network failures),
    stopped after each failed attempt and at the end."""

    platform: str
    begin: Callable[[], Awaitable[str]]  # returns who logged in
    end: Callable[[], Awaitable[None]]
    who: str = ""

    async def start(self) -> None:
        self.who = await self.begin()

    async def stop(self) -> None:
        await self.end()


async def _logged_in(login: _Login, bound: timedelta) -> str:
    try:
        if not await start_with_retries(login, login.platform, bound, asyncio.Event()):
            raise PlatformUnreachable(login.platform, bound)  # pragma: no cover - never stopped
    finally:
        await login.stop()
    return login.who


def _duration(span: timedelta) -> str:
    seconds = int(span.total_seconds())
    return f"{seconds // 60} min" if seconds >= 60 and seconds % 60 == 0 else f"{seconds} s"


async def telegram_finding(settings: Settings) -> Finding:
    config = settings.telegram
    if not config.token:
        return skipped("telegram", "TELEGRAM_BOT_TOKEN is not set")
    base = config.base_url.rstrip("/")
    bot = telegram.Bot(
        config.token, base_url=base, base_file_url=base.removesuffix("/bot") + "/file/bot"
    )

    async def get_me() -> str:
        await bot.initialize()  # getMe; InvalidToken when Telegram refuses the token
        return f"@{bot.username} (id {bot.id})"

    try:
        who = await _logged_in(_Login("telegram", get_me, bot.shutdown), settings.start_retry)
    except telegram.error.InvalidToken:
        return failed(
            "telegram",
            "Telegram refused TELEGRAM_BOT_TOKEN: check it with @BotFather, or make a new one",
        )
    except PlatformUnreachable as error:
        return failed(
            "telegram",
            f"cannot reach Telegram at {base} (retried for {_duration(error.waited)}):"
            " check this machine's network, or TELEGRAM_API_BASE_URL",
        )
    except telegram.error.TelegramError as error:
        return failed("telegram", f"Telegram answered getMe with an error ({type(error).__name__})")
    mode = "webhook" if config.webhook_url else "polling"
    return ok("telegram", f"{who} accepted TELEGRAM_BOT_TOKEN ({mode})")


class _DiscordLogin:
    """Discord as `steady run` starts it, then closed: the token over HTTP (GET
    /users/@me), then the gateway's own login (IDENTIFY) with Steady's intents, until
    READY. A fresh client each attempt: a closed one cannot log in again."""

    def __init__(self, config: DiscordConfig) -> None:
        self._config = config
        self._client: discord.Client | None = None
        self._gateway: asyncio.Task[None] | None = None

    async def log_in(self) -> str:
        config = self._config
        client = discord.Client(intents=intents(), chunk_guilds_at_startup=False)
        self._client = client
        await client.login(config.token)  # LoginFailure when Discord refuses the token
        if config.gateway_url is None:
            _, url, _ = await client.http.get_bot_gateway()  # where the gateway is
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)
        self._gateway = asyncio.create_task(client.connect(reconnect=False))
        ready = asyncio.ensure_future(client.wait_until_ready())
        done, _ = await asyncio.wait(
            {ready, self._gateway}, timeout=config.ready_timeout, return_when=FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            if self._gateway in done:
                self._gateway.result()  # what closed it: intents refused, a bad token
            raise TimeoutError("the Discord gateway did not become ready")
        user = client.user
        assert user is not None  # READY names the bot
        return f"{user.name} (id {user.id})"

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
        if self._gateway is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._gateway
        self._client = self._gateway = None


async def discord_finding(settings: Settings) -> Finding:
    if not settings.discord.token:
        return skipped("discord", "DISCORD_BOT_TOKEN is not set")
    config = discord_config(settings)
    login = _DiscordLogin(config)
    # discord.py builds its URLs from class attributes, as the adapter sets them.
    saved = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
    Route.BASE = config.api_base_url.rstrip("/")
    if config.gateway_url is not None:
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(config.gateway_url)
    try:
        who = await _logged_in(_Login("discord", login.log_in, login.close), settings.start_retry)
    except discord.LoginFailure:
        return failed(
            "discord",
            "Discord refused DISCORD_BOT_TOKEN: reset it in the Developer Portal"
            " (Bot, Reset Token)",
        )
    except discord.PrivilegedIntentsRequired:
        return failed("discord", "the gateway refused Steady's intents (close code 4014)")
    except discord.ConnectionClosed as error:
        return failed("discord", f"the gateway closed the login (close code {error.code})")
    except PlatformUnreachable as error:
        return failed(
            "discord",
            f"cannot reach Discord at {config.api_base_url} or its gateway (retried for"
            f" {_duration(error.waited)}): check this machine's network, or"
            " DISCORD_API_BASE_URL and DISCORD_GATEWAY_URL",
        )
    except discord.HTTPException as error:
        return failed("discord", f"Discord answered the login with HTTP {error.status}")
    finally:
        Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = saved
    return ok("discord", f"{who} accepted DISCORD_BOT_TOKEN, on the gateway too")


def webhook_findings(settings: Settings) -> list[Finding]:
    config = settings.telegram
    if not config.token or config.webhook_url is None:
        reason = "Telegram is not configured" if not config.token else "polling (no webhook)"
        return [
            skipped(check, reason) for check in ("webhook URL", "webhook secret", "webhook port")
        ]
    url = urlsplit(config.webhook_url)
    bot_id = config.token.split(":", 1)[0]
    try:
        port = url.port or 443
    except ValueError:
        port = -1
    local = f"http://{config.webhook_listen}:{config.webhook_port}/{bot_id}"
    if port not in TELEGRAM_WEBHOOK_PORTS:
        where = failed(
            "webhook URL",
            f"{config.webhook_url}: Telegram posts only to ports 443, 80, 88 or 8443",
        )
    else:
        where = ok(
            "webhook URL",
            f"Telegram posts to {config.webhook_url}; TLS ends at your proxy, which passes"
            f" {url.path or '/'} to {local}",
        )
    secret = (
        ok("webhook secret", "set: updates without it are refused (403)")
        if config.webhook_secret
        else failed(
            "webhook secret",
            "TELEGRAM_WEBHOOK_SECRET is not set: anyone who learns the URL could post"
            " updates as Telegram",
        )
    )
    return [where, secret, _port_free(config.webhook_listen, config.webhook_port)]


def _port_free(host: str, port: int) -> Finding:
    """Whether this machine would let Steady listen there now."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as aiohttp does
        try:
            probe.bind((host, port))
        except OSError as error:
            why = (
                "in use (a running Steady, or another program)"
                if error.errno == errno.EADDRINUSE
                else (error.strerror or type(error).__name__).lower()
            )
            return failed(
                "webhook port",
                f"{host}:{port} is {why}: stop it, or set TELEGRAM_WEBHOOK_PORT",
            )
    everywhere = (
        " (every interface: 127.0.0.1 keeps it behind the proxy)"
        if host in {"0.0.0.0", "::"}
        else ""
    )
    return ok("webhook port", f"{host}:{port} is free{everywhere}")
