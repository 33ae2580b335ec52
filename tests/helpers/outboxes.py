"""An outbox wired as the app wires it: the effects of sent and refused messages, and
the cipher that seals a reminder's own words while they wait."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.core.clock import Clock
from bot.core.platform import Adapter
from bot.delivery.outbox import Outbox
from bot.delivery.outgoing import Outgoing
from bot.engine.due_work import outbox_effects
from bot.flows.context import Services
from tests.helpers.recording_adapter import RecordingAdapter


def outbox_for(
    services: Services, clock: Clock, adapters: Mapping[str, Adapter], *args: Any, **options: Any
) -> Outbox:
    return Outbox(
        services.db,
        clock,
        adapters,
        *args,
        effects=outbox_effects(services),
        cipher=services.cipher,
        **options,
    )


async def queued_and_left(
    services: Services, clock: Clock, *messages: Outgoing, adapter: Adapter | None = None
) -> Outbox:
    """A worker that persisted `messages` and stopped before sending any (as one killed
    would leave them): its rows wait in the table for another to take over."""
    dead_adapter = adapter or RecordingAdapter()
    dead = outbox_for(services, clock, {dead_adapter.platform: dead_adapter})
    await dead.start()
    await dead.stop()  # its senders are gone; what it queues now stays queued
    await dead.enqueue(*messages)
    return dead
