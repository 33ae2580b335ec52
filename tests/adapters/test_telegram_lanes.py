"""A person who writes never waits behind a burst: the real adapter and outbox against a
Bot API that keeps Telegram's limits (30 messages a second, about one a second in a
private chat), counted on arrival. The burst is sent in real time: a few seconds."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import asyncpg
import pytest

from bot.adapters.telegram.adapter import TelegramAdapter, TelegramConfig
from bot.adapters.telegram.outbound import TELEGRAM_CAPS
from bot.content_pack.ids import GeneralMsg, SafetyMsg
from bot.coordination.send_budget import Lane, SharedBudget
from bot.coordination.workers import BUDGET_CONNECTIONS
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.delivery.outbox import Outbox
from bot.delivery.outgoing import Outgoing
from bot.engine.router import Router
from bot.flows.context import Services
from tests.fakes.telegram_api import FakeTelegram, RecordedCall
from tests.helpers.outboxes import outbox_for
from tests.helpers.telegram_world import no_wait, running_telegram
from tests.helpers.waiting import until

CRISIS = "i want to die"
ANA, BEN, CAL = 1101, 1102, 1103
FIRST_USER = 50_000  # the burst's users: one check-in each


def checkins(first: int, count: int) -> list[Outgoing]:
    return [
        Outgoing(Address("telegram", str(user), str(user)), Reply(f"check-in {user}"))
        for user in range(first, first + count)
    ]


def delivered(tg: FakeTelegram) -> list[RecordedCall]:
    return [call for call in tg.calls_to("sendMessage") if call.ok]


def burst_arrivals(tg: FakeTelegram) -> list[float]:
    return [call.arrived for call in delivered(tg) if call.params["chat_id"] >= FIRST_USER]


def most_in_a_second(arrivals: Sequence[float]) -> int:
    ordered = sorted(arrivals)
    return max((sum(1 for at in ordered if start <= at < start + 1.0) for start in ordered),
               default=0)  # fmt: skip


def each_once(tg: FakeTelegram, first: int, count: int) -> bool:
    chats = sorted(
        call.params["chat_id"] for call in delivered(tg) if call.params["chat_id"] >= first
    )
    return chats == list(range(first, first + count))


def first_reply_to(tg: FakeTelegram, chat: int) -> Callable[[RecordedCall], bool]:
    return lambda call: call.method == "sendMessage" and call.ok and call.params["chat_id"] == chat


async def test_a_crisis_reply_overtakes_a_burst_and_draws_no_429(
    services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    async with running_telegram(services, clock, caps=TELEGRAM_CAPS, flood_limits=True) as world:
        tg = world.tg
        await world.outbox.enqueue(*checkins(FIRST_USER, 90))
        await until(lambda: world.adapter.lanes.waiting(Lane.BULK) > 0, what="a full bulk lane")
        queued_ahead = world.adapter.lanes.waiting(Lane.BULK)
        pushed = len(burst_arrivals(tg))
        tg.user_sends_text(ANA, ANA, CRISIS)
        crisis = await tg.wait_for(first_reply_to(tg, ANA))
        assert crisis.params["text"].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
        # It waited for none of the check-ins queued ahead of it (at most the rest of a
        # second's share went out while its update was handled).
        overtaken_by = len([at for at in burst_arrivals(tg) if at < crisis.arrived]) - pushed
        assert overtaken_by <= 27 < queued_ahead
        await world.outbox.drain()
        assert each_once(tg, FIRST_USER, 90)
        assert tg.flood_refused == 0


async def test_bulk_never_takes_the_room_kept_for_replies(
    services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    async with running_telegram(services, clock, caps=TELEGRAM_CAPS, flood_limits=True) as world:
        tg = world.tg
        await world.outbox.enqueue(*checkins(FIRST_USER, 100))
        await until(lambda: world.adapter.lanes.waiting(Lane.BULK) > 27, what="a full bulk lane")
        pushed = len(burst_arrivals(tg))
        for user in (ANA, BEN, CAL):  # three people write at once, mid-burst
            tg.user_sends_text(user, user, "/about")
        for user in (ANA, BEN, CAL):
            reply = await tg.wait_for(first_reply_to(tg, user))
            assert reply.params["text"].startswith(text_of(GeneralMsg.ABOUT).split("\n")[0][:20])
            overtaken_by = len([at for at in burst_arrivals(tg) if at < reply.arrived]) - pushed
            assert overtaken_by <= 27  # not behind the 27 and more queued ahead
        await world.outbox.drain()
        assert most_in_a_second(burst_arrivals(tg)) <= 27  # bulk's 90% of 30
        every = [call.arrived for call in delivered(tg)]
        assert most_in_a_second(every) <= 30
        assert each_once(tg, FIRST_USER, 100)
        assert tg.flood_refused == 0


@asynccontextmanager
async def worker(
    services: Services, clock: ManualClock, tg: FakeTelegram, url: str, polls: bool
) -> AsyncIterator[tuple[TelegramAdapter, Outbox]]:
    """One more worker on the shared database: its own adapter, lanes, outbox, and its
    own connections for the send budget (as `bot.coordination.workers` gives it)."""
    pool = await asyncpg.create_pool(url, min_size=1, max_size=BUDGET_CONNECTIONS)
    try:
        config = TelegramConfig(
            token=tg.token, base_url=f"{tg.url}/bot", poll_timeout=1, caps=TELEGRAM_CAPS
        )
        router = Router(services)
        budget = SharedBudget(pool)
        adapter = TelegramAdapter(
            config, router, services.db, services.content, sleep=no_wait, budget=budget
        )
        outbox = outbox_for(services, clock, {adapter.platform: adapter}, sleep=no_wait)
        await adapter.start(poll=polls)
        await outbox.start()
        try:
            yield adapter, outbox
        finally:
            await outbox.stop()
            await adapter.stop()
            await budget.settled()
    finally:
        await pool.close()


@pytest.mark.postgres_only
async def test_both_lanes_hold_across_two_workers(
    services: Services,
    clock: ManualClock,
    database_url: str | None,
    text_of: Callable[..., str],
) -> None:
    assert database_url is not None
    async with (
        FakeTelegram(clock=lambda: clock.now().timestamp(), flood_limits=True) as tg,
        worker(services, clock, tg, database_url, polls=True) as (first, first_outbox),
        worker(services, clock, tg, database_url, polls=False) as (second, second_outbox),
    ):
        await first_outbox.enqueue(*checkins(FIRST_USER, 50))
        await second_outbox.enqueue(*checkins(FIRST_USER + 50, 50))
        await until(
            lambda: first.lanes.waiting(Lane.BULK) + second.lanes.waiting(Lane.BULK) > 27,
            what="full bulk lanes",
        )
        pushed = len(burst_arrivals(tg))
        tg.user_sends_text(ANA, ANA, CRISIS)
        tg.user_sends_text(BEN, BEN, "/about")
        crisis = await tg.wait_for(first_reply_to(tg, ANA))
        reply = await tg.wait_for(first_reply_to(tg, BEN))
        assert crisis.params["text"].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
        for answer in (crisis, reply):
            overtaken_by = len([at for at in burst_arrivals(tg) if at < answer.arrived]) - pushed
            assert overtaken_by <= 27
        await first_outbox.drain()
        await second_outbox.drain()
        # Both workers' check-ins together kept bulk's share: the two lanes held.
        assert most_in_a_second(burst_arrivals(tg)) <= 27
        assert each_once(tg, FIRST_USER, 100)
        assert tg.flood_refused == 0


async def test_a_429_is_waited_out_as_told_and_the_check_in_keeps_its_place(
    services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    """Telegram refuses one check-in mid-burst (another client of the bot used the
    room): bulk waits what Telegram asked, a crisis reply is not held meanwhile, and
    the refused check-in goes first once the wait is over, sent once."""
    pauses: list[float] = []
    wait_over = asyncio.Event()

    async def held(seconds: float) -> None:
        pauses.append(seconds)
        await wait_over.wait()

    async with running_telegram(
        services, clock, caps=TELEGRAM_CAPS, sleep=held, flood_limits=True
    ) as world:
        tg = world.tg
        refused = FIRST_USER + 3
        tg.inject_retry_after(2, method="sendMessage", chat_id=refused)
        await world.outbox.enqueue(*checkins(FIRST_USER, 40))
        await until(lambda: pauses == [2.0], what="the wait Telegram asked for")
        tg.user_sends_text(ANA, ANA, CRISIS)
        crisis = await tg.wait_for(first_reply_to(tg, ANA))
        assert crisis.params["text"].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
        refusal = next(c for c in tg.calls_to("sendMessage") if c.status == 429)
        assert refusal.params["chat_id"] == refused
        # Bulk was held: only the check-ins already under way when the 429 came went on.
        after_refusal = [at for at in burst_arrivals(tg) if at > refusal.arrived]
        assert len(after_refusal) <= 2
        wait_over.set()
        await world.outbox.drain()
        order = [call.params["chat_id"] for call in delivered(tg)
                 if call.params["chat_id"] >= FIRST_USER]  # fmt: skip
        assert 3 <= order.index(refused) <= 3 + len(after_refusal)  # its place kept
        assert each_once(tg, FIRST_USER, 40)
        assert pauses == [2.0]  # no other wait: the retry went through
        assert tg.flood_refused == 0
