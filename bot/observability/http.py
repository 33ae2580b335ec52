"""`/healthz` and `/metrics` over HTTP, on aiohttp (already here for discord.py).

Started and stopped with the app when STEADY_HTTP_PORT is set; nothing else listens.
Bind it to 127.0.0.1 (the default) unless a scraper elsewhere needs it: it tells
nothing about users, but it is nobody else's business how busy the bot is.
"""

from __future__ import annotations

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from bot.logs import get_logger, log_event
from bot.observability.health import HealthCheck
from bot.observability.metrics import Metrics

log = get_logger("http")


class HttpPortUnavailable(Exception):
    """STEADY_HTTP_PORT could not be listened on (taken, or not allowed)."""

    def __init__(self, host: str, port: int, reason: str) -> None:
        super().__init__(f"{host}:{port}")
        self.host = host
        self.port = port
        self.reason = reason


class ObservabilityServer:
    def __init__(self, health: HealthCheck, metrics: Metrics, host: str, port: int) -> None:
        self._health = health
        self._metrics = metrics
        self._host = host
        self._port = port
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/metrics", self._metrics_page)
        # No access log: a scraper every few seconds would drown everything else.
        self._runner = web.AppRunner(app, access_log=None)

    @property
    def port(self) -> int:
        """The port it listens on (the one chosen by the system when asked for 0)."""
        for address in self._runner.addresses:
            if isinstance(address, tuple):
                return int(address[1])
        raise RuntimeError("not listening")

    async def start(self) -> None:
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        try:
            await site.start()
        except OSError as error:
            await self._runner.cleanup()
            reason = (error.strerror or type(error).__name__).lower()
            raise HttpPortUnavailable(self._host, self._port, reason) from None
        except BaseException:
            await self._runner.cleanup()
            raise
        log_event(log, "http.listening", host=self._host, port=self.port)

    async def stop(self) -> None:
        await self._runner.cleanup()

    async def _healthz(self, _request: web.Request) -> web.Response:
        report = await self._health.check()
        return web.json_response(report.as_json(), status=200 if report.healthy else 503)

    async def _metrics_page(self, _request: web.Request) -> web.Response:
        await self._health.refresh_backlog()
        response = web.Response(body=self._metrics.exposition())
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response
