"""Steady's core with its scheduler and outbox on a fake clock, and a platform that records."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.delivery.outbox import Outbox
from bot.engine.due_work import build_dispatcher
from bot.engine.router import Router
from bot.flows.context import Services
from bot.scheduling.dispatcher import Dispatcher, TickReport
from tests.helpers.conversation import Conversation
from tests.helpers.outboxes import outbox_for
from tests.helpers.recording_adapter import RecordingAdapter


@dataclass
class Sleeps:
    """An injected sleep: records how long the outbox wanted to wait, waits for nothing."""

    asked: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)


@dataclass
class World:
    """A running scheduler with a fake clock: users, ticks, and what reached the platform."""

    services: Services
    clock: ManualClock
    router: Router
    adapter: RecordingAdapter
    outbox: Outbox
    dispatcher: Dispatcher
    sleeps: Sleeps

    def chat(self, user_id: str) -> Conversation:
        return Conversation(self.router, Address(self.adapter.platform, f"chat-{user_id}", user_id))

    async def onboard(self, user_id: str, timezone: str, local_time: str) -> Conversation:
        chat = self.chat(user_id)
        await chat.send("/start")
        await chat.send(timezone)
        await chat.send(local_time)
        assert "Your check-in time is" in chat.text
        return chat

    async def tick(self) -> TickReport:
        report = await self.dispatcher.tick()
        await self.outbox.drain()
        return report

    async def run_until(
        self, end: datetime, step: timedelta = timedelta(minutes=5)
    ) -> list[datetime]:
        """Tick every `step` until `end`; the clock times at which check-ins were handed over."""
        delivered: list[datetime] = []
        while self.clock.now() < end:
            self.clock.advance(min(step, end - self.clock.now()))
            before = len(self.adapter.sent)
            await self.tick()
            delivered += [self.clock.now()] * (len(self.adapter.sent) - before)
        return delivered

    def checkins_sent(self) -> list[tuple[Address, Reply]]:
        return [(a, r) for a, r in self.adapter.take() if "How are you feeling" in r.text]


async def build_world(services: Services, clock: ManualClock) -> World:
    adapter = RecordingAdapter()
    sleeps = Sleeps()
    router = Router(services, rng=random.Random(3))
    outbox = outbox_for(
        services, clock, {adapter.platform: adapter}, sleep=sleeps, metrics=services.metrics
    )
    await outbox.start()
    dispatcher = build_dispatcher(
        services, router.checkin, router.pause, outbox, grace=timedelta(hours=2)
    )
    return World(services, clock, router, adapter, outbox, dispatcher, sleeps)
