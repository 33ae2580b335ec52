"""The cyclic collector is held off while a due minute's batch fills the outbox, and
runs again once the queue is empty or the hold has lasted its longest."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from bot.core.events import Address
from bot.core.platform import SentMessage
from bot.core.replies import Reply
from bot.delivery.collector_hold import CollectorHold
from bot.delivery.outbox import COLLECTOR_HOLD_FROM
from bot.delivery.outgoing import Outgoing
from bot.flows.context import Services
from tests.helpers.outboxes import outbox_for
from tests.helpers.recording_adapter import RecordingAdapter
from tests.helpers.waiting import until


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


@dataclass
class CollectorWatch(RecordingAdapter):
    """Notes, at each send, whether the collector could run."""

    collector_on: list[bool] = field(default_factory=list)

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        self.collector_on.append(gc.isenabled())
        return await super().send(address, reply)


def batch(size: int) -> list[Outgoing]:
    return [
        Outgoing(Address("test", f"chat-{n}", f"user-{n}"), Reply("hello")) for n in range(size)
    ]


async def test_a_big_batch_is_sent_with_the_collector_held_off_and_it_runs_after(
    services: Services,
) -> None:
    adapter = CollectorWatch()
    outbox = outbox_for(services, services.clock, {adapter.platform: adapter})
    await outbox.start()
    await outbox.enqueue(*batch(COLLECTOR_HOLD_FROM))
    await outbox.drain()
    assert len(adapter.collector_on) == COLLECTOR_HOLD_FROM
    assert not any(adapter.collector_on)
    assert gc.isenabled()
    await outbox.stop()


async def test_a_few_messages_never_hold_the_collector(services: Services) -> None:
    adapter = CollectorWatch()
    outbox = outbox_for(services, services.clock, {adapter.platform: adapter})
    await outbox.start()
    await outbox.enqueue(*batch(3))
    await outbox.drain()
    await outbox.stop()
    assert adapter.collector_on == [True, True, True]


@dataclass
class NeverAnswers(RecordingAdapter):
    """A platform that takes each request and never answers it."""

    asked: int = 0

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        self.asked += 1
        await asyncio.Event().wait()
        return None


async def test_a_stopped_outbox_never_leaves_the_collector_off(services: Services) -> None:
    adapter = NeverAnswers()
    outbox = outbox_for(services, services.clock, {adapter.platform: adapter})
    await outbox.start()
    await outbox.enqueue(*batch(COLLECTOR_HOLD_FROM))
    await until(lambda: adapter.asked > 0, what="a send under way")
    assert not gc.isenabled()
    await outbox.stop()  # the batch is still queued
    assert gc.isenabled()


async def test_a_hold_ends_by_its_time_and_begins_again_only_after_the_queue_emptied() -> None:
    hold = CollectorHold(longest_seconds=0.0)
    hold.hold()
    assert not gc.isenabled()
    await until(gc.isenabled, what="the hold to end by its time")
    hold.hold()  # the queue never emptied: still growing slowly, so no new hold
    assert gc.isenabled()
    hold.emptied()
    hold.hold()
    assert not gc.isenabled()
    hold.emptied()
    assert gc.isenabled()


async def test_a_collector_someone_else_turned_off_is_left_to_them() -> None:
    gc.disable()
    hold = CollectorHold()
    hold.hold()
    hold.emptied()
    assert not gc.isenabled()


async def test_a_hold_dropped_while_holding_turns_the_collector_back_on() -> None:
    hold = CollectorHold()
    hold.hold()
    assert not gc.isenabled()
    del hold  # an outbox never stopped, gone with its loop before the timer could fire
    assert gc.isenabled()
