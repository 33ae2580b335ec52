"""One gateway connection per bot: a worker without it still sends over the HTTP API."""

from __future__ import annotations

import random

from bot.adapters.discord.adapter import DiscordAdapter
from bot.core.events import Address
from bot.core.replies import Reply
from bot.engine.router import Router
from tests.helpers.discord_world import ANA, DiscordWorld, discord_config, no_wait
from tests.helpers.waiting import until


async def test_a_worker_without_the_gateway_sends_over_http(discord_world: DiscordWorld) -> None:
    dc = discord_world.dc
    services = discord_world.services
    connections = len(dc.identifies)  # the leader's one
    follower = DiscordAdapter(
        discord_config(dc),
        Router(services, rng=random.Random(4)),
        services.db,
        services.content,
        sleep=no_wait,
    )
    await follower.start(gateway=False)
    try:
        sent = await follower.send(
            Address("discord", str(ANA), str(ANA)), Reply("a neutral hello from another worker")
        )
        assert sent is not None
        await until(lambda: "a neutral hello from another worker" in dc.dm_texts(ANA))
        assert len(dc.identifies) == connections  # it never opened a gateway connection
    finally:
        await follower.stop()
    # The leader's connection is untouched by the follower coming and going.
    before = len(dc.dm_texts(ANA))
    await discord_world.says(ANA, "hello")
    assert len(dc.dm_texts(ANA)) > before
