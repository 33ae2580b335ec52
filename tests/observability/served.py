"""The app's health and metrics server on a free port, and a client that reads it as a
scraper would."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from bot.app import observability_server
from bot.config import Settings
from bot.core.platform import Adapter
from bot.flows.context import Services


@dataclass
class Scraper:
    client: httpx.AsyncClient

    async def health(self) -> tuple[int, dict[str, Any]]:
        response = await self.client.get("/healthz")
        return response.status_code, response.json()

    async def exposition(self) -> str:
        response = await self.client.get("/metrics")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/plain")
        return response.text

    async def samples(self) -> list[Sample]:
        """Every sample of every family, parsed by prometheus_client's own parser."""
        text = await self.exposition()
        return [
            sample for family in text_string_to_metric_families(text) for sample in family.samples
        ]

    async def value(self, name: str, **labels: str) -> float | None:
        """The sample `name` with exactly these labels; None when it is not there."""
        for sample in await self.samples():
            if sample.name == name and sample.labels == labels:
                return sample.value
        return None


@asynccontextmanager
async def serving(
    settings: Settings, services: Services, adapters: Mapping[str, Adapter]
) -> AsyncIterator[Scraper]:
    """What `steady` starts with STEADY_HTTP_PORT set, here on a port the system picks."""
    server = observability_server(settings.model_copy(update={"http_port": 0}), services, adapters)
    assert server is not None
    await server.start()
    try:
        # trust_env=False: a proxy set in the environment must not stand in between.
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{server.port}", timeout=30, trust_env=False
        ) as client:
            yield Scraper(client)
    finally:
        await server.stop()
