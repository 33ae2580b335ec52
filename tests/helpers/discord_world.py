"""A running Steady on Discord for end-to-end tests: the real discord.py against FakeDiscord.

Tests ask for it as the `discord_world` fixture (tests/conftest.py), which starts it with
`running_discord`."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from bot.adapters.discord.adapter import DiscordAdapter, DiscordConfig
from bot.adapters.lanes import UNLIMITED, Caps
from bot.core.clock import ManualClock
from bot.core.events import Event
from bot.core.replies import Reply
from bot.delivery.outbox import Outbox
from bot.engine.due_work import build_dispatcher
from bot.engine.router import Router, SendFirst
from bot.flows.context import Services
from bot.scheduling.dispatcher import Dispatcher
from tests.fakes.discord_api import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    InteractionState,
    StoredMessage,
)
from tests.helpers.outboxes import outbox_for
from tests.helpers.waiting import until

ANA = 310_000_000_000_000_001  # Discord user ids are snowflakes
BEN = 310_000_000_000_000_002
MOD = 310_000_000_000_000_003  # a member who may manage channels


async def no_wait(_: float) -> None:
    """Frames and retries happen at once in tests; what they do is checked, not how long."""


class RecordingRouter(Router):
    """The real router, noting every event it is given (to check what the adapter built)
    and what it answered, so a test can wait for "answered with nothing"."""

    def __init__(self, services: Services, rng: random.Random) -> None:
        super().__init__(services, rng=rng)
        self.events: list[Event] = []
        self.answered: list[tuple[Event, list[Reply]]] = []
        self._changed = asyncio.Event()

    async def handle(self, event: Event, first: SendFirst | None = None) -> list[Reply]:
        self.events.append(event)
        sent_first: list[Reply] = []

        async def noted_first(urgent: list[Reply]) -> None:
            assert first is not None
            sent_first.extend(urgent)
            await first(urgent)

        replies = await super().handle(event, None if first is None else noted_first)
        self.answered.append((event, sent_first + replies))  # everything it answered
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        return replies

    async def answer_to(
        self,
        wanted: Callable[[Event], bool],
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> list[Reply]:
        """What the router answered the first event that matches, once it has."""
        async with asyncio.timeout(timeout):
            while True:
                for event, replies in self.answered:
                    if wanted(event):
                        return replies
                await self._changed.wait()


def discord_config(dc: FakeDiscord, **overrides: Any) -> DiscordConfig:
    # No gateway URL: the adapter asks the API for it (GET /gateway/bot), as in production.
    # No limits: the fake keeps none either unless a test asks it to (rate_limits=True),
    # and then gives the adapter Discord's own (caps=DISCORD_CAPS).
    settings: dict[str, Any] = {
        "token": dc.token,
        "api_base_url": dc.api_url,
        "guild_ready_timeout": 0.05,
        "request_timeout": 5.0,
        "ready_timeout": 10.0,
        "caps": UNLIMITED,
    }
    return DiscordConfig(**(settings | overrides))


@dataclass
class DiscordWorld:
    dc: FakeDiscord
    adapter: DiscordAdapter
    router: RecordingRouter
    services: Services
    clock: ManualClock
    outbox: Outbox
    dispatcher: Dispatcher
    guild: FakeGuild
    room: FakeChannel
    restarts: list[DiscordAdapter] = field(default_factory=list)
    handled_before_start: int = 0  # what earlier adapters (before a restart) handled

    def dm_texts(self, user_id: int) -> list[str]:
        return self.dc.dm_texts(user_id)

    def last_dm(self, user_id: int) -> StoredMessage:
        return self.dc.dm_of(user_id)[-1]

    def ephemeral_texts(self, user_id: int) -> list[str]:
        return [m.content for m in self.dc.ephemeral_responses_to(user_id)]

    async def says(self, user_id: int, text: str) -> None:
        """The user writes in their DM; wait until the bot has answered everything."""
        self.dc.user_sends_dm(user_id, text)
        await self.settled()

    async def runs(
        self,
        user_id: int,
        name: str,
        options: list[dict[str, Any]] | None = None,
        channel_id: int | None = None,
        **how: Any,
    ) -> InteractionState:
        """A slash command (in the user's DM unless `channel_id`), then its answers."""
        state = self.dc.user_runs_command(user_id, name, options, channel_id, **how)
        await self.settled()
        return state

    async def taps(self, user_id: int, label: str) -> InteractionState:
        """Press the newest button with this label the user can see (DMs or ephemeral)."""
        visible = [
            m
            for m in self.dc.messages.values()
            if not m.deleted
            and m.author_id == self.dc.bot.id
            and (m.visible_to == user_id or m.channel_id == self.dc.dm_channels.get(user_id))
        ]
        for message in reversed(visible):
            for button in message.buttons:
                if button.get("label") == label:
                    return await self.presses(user_id, message, button["custom_id"])
        raise AssertionError(f"no button {label!r} visible to {user_id}")

    async def presses(
        self, user_id: int, message: StoredMessage, custom_id: str, forged: bool = False
    ) -> InteractionState:
        state = self.dc.user_presses(user_id, message, custom_id, forged=forged)
        await self.settled()
        return state

    async def settled(self) -> None:
        """Wait for the bot's reaction: everything people did handled to the end (replies
        sent), and no interaction still "thinking". A condition, not a quiet time."""
        await until(
            lambda: (
                self.handled_before_start + self.adapter.events_handled >= self.dc.peoples_events
                and not self.dc.unanswered_interactions()
            ),
            what="the bot to handle every event",
        )

    async def restart(self) -> None:
        """Stop the adapter and start a new one on the same database (a new process)."""
        await self.outbox.stop()
        await self.adapter.stop()
        self.handled_before_start += self.adapter.events_handled
        router = RecordingRouter(self.services, random.Random(6))
        self.adapter = DiscordAdapter(
            discord_config(self.dc), router, self.services.db, self.services.content, no_wait
        )
        self.router = router
        self.outbox = outbox_for(
            self.services, self.clock, {self.adapter.platform: self.adapter}, sleep=no_wait
        )
        self.dispatcher = build_dispatcher(
            self.services, router.checkin, router.pause, self.outbox, grace=timedelta(hours=2)
        )
        await self.adapter.start()
        await self.outbox.start()


@asynccontextmanager
async def running_discord(
    services: Services, clock: ManualClock, caps: Caps = UNLIMITED, **fake: Any
) -> AsyncIterator[DiscordWorld]:
    """Steady on the fake Discord: one guild with a channel, two members and a moderator.
    `fake` sets FakeDiscord's options (rate_limits=True), `caps` the adapter's limits."""
    async with FakeDiscord(clock=lambda: clock.now().timestamp(), **fake) as dc:
        guild = dc.guild("Harbour")
        room = dc.channel(guild.id, "general")
        for user in (ANA, BEN):
            dc.member(guild.id, user)
        dc.member(guild.id, MOD, permissions=dc.ordinary_permissions | (1 << 4))
        router = RecordingRouter(services, random.Random(5))
        adapter = DiscordAdapter(
            discord_config(dc, caps=caps), router, services.db, services.content, sleep=no_wait
        )
        outbox = outbox_for(services, clock, {adapter.platform: adapter}, sleep=no_wait)
        dispatcher = build_dispatcher(
            services, router.checkin, router.pause, outbox, grace=timedelta(hours=2)
        )
        await adapter.start()
        await outbox.start()
        world = DiscordWorld(dc, adapter, router, services, clock, outbox, dispatcher, guild, room)
        try:
            yield world
        finally:
            await world.outbox.stop()
            await world.adapter.stop()
