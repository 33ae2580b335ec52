from __future__ import annotations

from datetime import UTC, datetime

from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.platform import RecipientUnreachable, RetryAfter, TransientDeliveryError
from bot.core.replies import Reply
from bot.delivery.outbox import Outbox, Outgoing
from bot.delivery.retry_policy import (
    MAX_ATTEMPTS,
    MAX_RATE_LIMITED_SECONDS,
    MAX_RETRY_AFTER_SECONDS,
    backoff_seconds,
)
from bot.flows.context import Services
from bot.storage.users import ensure_user, find_user
from tests.helpers.outboxes import outbox_for
from tests.helpers.recording_adapter import RecordingAdapter
from tests.helpers.world import Sleeps

ANA = Address("test", "chat-ana", "ana")


async def outbox_with(services: Services, adapter: RecordingAdapter, sleeps: Sleeps) -> Outbox:
    outbox = outbox_for(services, services.clock, {adapter.platform: adapter}, sleep=sleeps)
    await outbox.start()
    return outbox


async def test_network_errors_back_off_within_bounds_then_give_up(services: Services) -> None:
    adapter, sleeps = RecordingAdapter(), Sleeps()
    adapter.failures.extend(TransientDeliveryError() for _ in range(MAX_ATTEMPTS))
    outbox = await outbox_with(services, adapter, sleeps)
    await outbox.enqueue(Outgoing(ANA, Reply("hello")))
    await outbox.drain()
    await outbox.stop()
    assert adapter.sent == []
    assert sleeps.asked == [backoff_seconds(n) for n in range(1, MAX_ATTEMPTS + 1)]
    assert sleeps.asked == [1.0, 2.0, 4.0, 8.0, 16.0]
    assert (outbox.stats.retried, outbox.stats.dropped) == (MAX_ATTEMPTS, 1)


async def test_a_passing_error_then_success(services: Services) -> None:
    adapter, sleeps = RecordingAdapter(), Sleeps()
    adapter.failures.extend([TransientDeliveryError(), RetryAfter(3)])
    outbox = await outbox_with(services, adapter, sleeps)
    await outbox.enqueue(Outgoing(ANA, Reply("hello")))
    await outbox.drain()
    await outbox.stop()
    assert [reply.text for _, reply in adapter.sent] == ["hello"]
    assert sleeps.asked == [1.0, 3]


async def test_unreachable_marks_the_user_once_and_stops(
    services: Services, clock: ManualClock
) -> None:
    async with services.db.transaction() as tx:
        await ensure_user(tx, ANA, "en", clock.now())
    adapter, sleeps = RecordingAdapter(), Sleeps()
    adapter.failures.append(RecipientUnreachable())
    outbox = await outbox_with(services, adapter, sleeps)
    await outbox.enqueue(Outgoing(ANA, Reply("hello")))
    await outbox.drain()
    await outbox.stop()
    user = await find_user(services.db, "test", "ana")
    assert user is not None and user.unreachable_since == datetime(2026, 3, 2, 9, tzinfo=UTC)
    assert sleeps.asked == [] and adapter.sent == []


async def test_no_adapter_for_the_platform_is_refused(services: Services) -> None:
    outbox = await outbox_with(services, RecordingAdapter(), Sleeps())
    assert not await outbox.enqueue(Outgoing(Address("elsewhere", "1", "1"), Reply("x")))
    await outbox.stop()


async def test_rate_limits_are_waited_out_not_counted_as_failures(services: Services) -> None:
    adapter, sleeps = RecordingAdapter(), Sleeps()
    adapter.failures.extend(RetryAfter(2) for _ in range(MAX_ATTEMPTS + 3))
    outbox = await outbox_with(services, adapter, sleeps)
    await outbox.enqueue(Outgoing(ANA, Reply("hello")))
    await outbox.drain()
    await outbox.stop()
    assert [reply.text for _, reply in adapter.sent] == ["hello"]
    assert sleeps.asked == [2] * (MAX_ATTEMPTS + 3)


async def test_an_endless_flood_wait_is_given_up_on(services: Services) -> None:
    adapter, sleeps = RecordingAdapter(), Sleeps()
    adapter.failures.extend(RetryAfter(MAX_RETRY_AFTER_SECONDS) for _ in range(10))
    outbox = await outbox_with(services, adapter, sleeps)
    await outbox.enqueue(Outgoing(ANA, Reply("hello")))
    await outbox.drain()
    await outbox.stop()
    assert adapter.sent == [] and outbox.stats.dropped == 1
    assert sum(sleeps.asked) <= MAX_RATE_LIMITED_SECONDS
