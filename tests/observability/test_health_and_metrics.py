"""/healthz and /metrics as an operator's scraper reads them: healthy and unhealthy with
the reason, and the numbers moved by real ticks, sends, refusals and crisis replies."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import CheckinMsg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.platform import RecipientUnreachable, RetryAfter, SentMessage
from bot.core.replies import Reply
from bot.delivery.outbox import Outgoing
from bot.engine.due_work import due_kinds
from bot.flows.context import Services
from bot.safety.model import read_manifest
from bot.safety.second_stage import MODEL_DIR, ModelState, stage_for
from bot.storage.db import Database, Params, Row
from tests.helpers.faults import every_read_through_fetch_all
from tests.helpers.outboxes import outbox_for
from tests.helpers.recording_adapter import RecordingAdapter
from tests.helpers.waiting import until
from tests.helpers.world import World
from tests.observability.served import Scraper, serving

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # the clock fixture's start
CRISIS = "honestly i just want to die"
TICK_LIMIT = timedelta(seconds=45)  # 3 x the default STEADY_TICK_SECONDS of 15


@pytest.fixture
async def scraper(settings: Settings, world: World) -> AsyncIterator[Scraper]:
    async with serving(settings, world.services, {world.adapter.platform: world.adapter}) as s:
        yield s


async def due_checkin(world: World, user_id: str = "ana") -> None:
    """`user_id` onboarded for 09:10 UTC, and the clock at 09:20: ten minutes late."""
    await world.onboard(user_id, "UTC", "09:10")
    world.adapter.take()
    world.clock.set(START + timedelta(minutes=20))


class HangingReads:
    """Every read on the database waits until `release` is set, as on a stalled disk."""

    def __init__(self, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
        self.release = asyncio.Event()
        real = db.fetch_all

        async def hanging(sql: str, params: Params = ()) -> list[Row]:
            await self.release.wait()
            return await real(sql, params)

        monkeypatch.setattr(db, "fetch_all", hanging)
        every_read_through_fetch_all(db, monkeypatch)


async def test_healthz_is_200_with_the_database_the_last_tick_and_the_roles(
    scraper: Scraper, world: World
) -> None:
    await world.tick()
    world.clock.advance(timedelta(seconds=7))
    folder = world.services.content.folder
    await stage_for(folder).ready()  # as the first screened message does
    assert folder is not None
    manifest = read_manifest(folder / MODEL_DIR)
    status, body = await scraper.health()
    assert status == 200
    assert await scraper.value("steady_safety_model_loaded") == 1
    assert body == {
        "status": "ok",
        "reasons": [],
        "database_reachable": True,
        "last_tick_age_seconds": 7.0,
        "tick_limit_seconds": TICK_LIMIT.total_seconds(),
        "roles": ["test", "scheduler"],
        "safety_model": {
            "state": "loaded",
            "reason": None,
            "sha256": manifest.model_sha256,
            "trained_on": manifest.trained_on,
        },
    }


async def test_healthz_is_503_naming_the_database_when_a_read_hangs(
    scraper: Scraper, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    await world.tick()
    reads = HangingReads(world.services.db, monkeypatch)
    try:
        status, body = await scraper.health()
    finally:
        reads.release.set()
    assert status == 503
    assert body["status"] == "unhealthy"
    assert body["database_reachable"] is False
    assert body["reasons"] == ["database did not answer a trivial read within 1 s"]
    # Back once the disk answers again.
    status, body = await scraper.health()
    assert (status, body["reasons"]) == (200, [])


async def test_healthz_is_503_once_the_last_tick_is_older_than_three_intervals(
    scraper: Scraper, world: World
) -> None:
    await world.tick()
    world.clock.advance(TICK_LIMIT)
    status, _ = await scraper.health()
    assert status == 200  # at the limit, still fine
    world.clock.advance(timedelta(seconds=1))
    status, body = await scraper.health()
    assert status == 503
    assert body["database_reachable"] is True
    assert body["last_tick_age_seconds"] == 46.0
    assert body["reasons"] == ["the last tick finished 46 s ago (limit 45 s)"]
    await world.tick()
    status, _ = await scraper.health()
    assert status == 200


async def test_healthz_is_503_when_no_tick_ever_finishes_after_start(
    scraper: Scraper, world: World
) -> None:
    status, body = await scraper.health()
    assert (status, body["last_tick_age_seconds"]) == (200, None)  # just started
    world.clock.advance(TICK_LIMIT + timedelta(seconds=5))
    status, body = await scraper.health()
    assert status == 503
    assert body["reasons"] == ["started, and no tick has finished 50 s ago (limit 45 s)"]


async def test_metrics_parse_and_a_crisis_through_the_router_counts_one_crisis_reply(
    scraper: Scraper, world: World, text_of: Callable[..., str]
) -> None:
    assert await scraper.value("steady_crisis_replies_total", level="crisis") is None
    chat = world.chat("ana")
    await chat.send(CRISIS)
    assert chat.last[0].text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert await scraper.value("steady_crisis_replies_total", level="crisis") == 1
    await chat.send("/sos")  # asked for, not a reply to crisis words: not counted
    await chat.send("what a lovely day")
    assert await scraper.value("steady_crisis_replies_total", level="crisis") == 1
    assert await scraper.value("steady_leader_changes_total") == 0


async def test_a_tick_with_a_due_check_in_moves_backlog_lag_hand_over_and_sends(
    scraper: Scraper, world: World
) -> None:
    await due_checkin(world)
    assert await scraper.value("steady_due_backlog") == 1
    assert await scraper.value("steady_tick_duration_seconds_count") == 0
    report = await world.tick()
    assert report.started == 1
    assert len(world.checkins_sent()) == 1
    assert await scraper.value("steady_due_handed_over_total", kind="checkin") == 1
    assert await scraper.value("steady_sends_total", platform="test") == 1
    assert await scraper.value("steady_tick_lag_seconds") == 600  # due 09:10, ticked 09:20
    assert await scraper.value("steady_tick_duration_seconds_count") == 1
    assert await scraper.value("steady_due_backlog") == 0
    assert await scraper.value("steady_outbox_depth", platform="test") == 0
    assert (
        await scraper.value("steady_last_tick_timestamp_seconds") == world.clock.now().timestamp()
    )
    # The next tick finds nothing late.
    await world.tick()
    assert await scraper.value("steady_tick_lag_seconds") == 0


async def test_a_refusal_by_the_platform_counts_a_refusal_and_no_send(
    scraper: Scraper, world: World
) -> None:
    await due_checkin(world)
    world.adapter.failures.append(RecipientUnreachable("blocked"))
    await world.tick()
    assert world.adapter.sent == []
    assert await scraper.value("steady_refusals_total", platform="test") == 1
    # The platform's send counter is there from the start, at 0: nothing was sent.
    assert await scraper.value("steady_sends_total", platform="test") == 0


async def test_a_429_waited_out_counts_a_rate_limit_and_then_the_send(
    scraper: Scraper, world: World
) -> None:
    await due_checkin(world)
    world.adapter.failures.append(RetryAfter(3.0))
    await world.tick()
    assert world.sleeps.asked == [3.0]
    assert len(world.checkins_sent()) == 1
    assert (
        await scraper.value("steady_rate_limited_total", platform="test", retried_by="outbox") == 1
    )
    assert await scraper.value("steady_sends_total", platform="test") == 1


class HoldingAdapter(RecordingAdapter):
    """Sends only once `release` is set: messages stay in the outbox meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.sending = 0

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        self.sending += 1
        await self.release.wait()
        return await super().send(address, reply)


async def test_outbox_depth_and_the_oldest_messages_age_while_sends_wait(
    settings: Settings, services: Services
) -> None:
    adapter = HoldingAdapter()
    outbox = outbox_for(
        services, services.clock, {adapter.platform: adapter}, 1, metrics=services.metrics
    )
    await outbox.start()
    clock = services.clock
    assert hasattr(clock, "advance")
    try:
        async with serving(settings, services, {adapter.platform: adapter}) as scraper:
            address = Address(adapter.platform, "chat-1", "1")
            await outbox.enqueue(Outgoing(address, Reply("first")))
            clock.advance(timedelta(seconds=30))
            await outbox.enqueue(Outgoing(address, Reply("second")))
            clock.advance(timedelta(seconds=60))
            assert await scraper.value("steady_outbox_depth", platform="test") == 2
            # The first is being sent (and waits on the platform): it is still the oldest.
            await until(lambda: adapter.sending == 1, what="the first send to begin")
            assert await scraper.value("steady_outbox_oldest_age_seconds", platform="test") == 90
            adapter.release.set()
            await outbox.drain()
            assert await scraper.value("steady_outbox_depth", platform="test") == 0
            assert await scraper.value("steady_outbox_oldest_age_seconds", platform="test") == 0
            assert await scraper.value("steady_sends_total", platform="test") == 2
    finally:
        adapter.release.set()
        await outbox.stop()


def _appears(secret: str, exposition: str) -> bool:
    """`secret` anywhere in the text; a number only as a number of its own, not as digits
    inside a measured value (a tick's 0.0055213 s holds "5521" without leaking it)."""
    if secret.isdigit():
        # As Prometheus writes it, the number itself: 5521 or 5521.0.
        return re.search(rf"(?<![\w.]){secret}(?:\.0+)?(?![\w.])", exposition) is not None
    return secret.lower() in exposition.lower()


async def test_no_user_id_and_no_word_a_user_wrote_appears_anywhere_in_metrics(
    scraper: Scraper, world: World, text_of: Callable[..., str]
) -> None:
    user_id = "918273645"
    written = ["zebra pancakes 5521", "my quiet lighthouse 4417", CRISIS]
    chat = await world.onboard(user_id, "UTC", "09:10")
    await chat.send(written[0])
    await chat.send(written[2])
    await chat.send("/checkin")
    await chat.press(text_of(CheckinMsg.MOOD_4))
    await chat.press(text_of(CheckinMsg.URGE_NONE))
    await chat.send(written[1])
    assert text_of(CheckinMsg.CHECKIN_SAVED_WITH_NOTE) in chat.text
    # Every kind of series there is: a 429 then a send, a refusal, handed over by ticks.
    other = await world.onboard("564738291", "UTC", "09:15")
    world.clock.set(START + timedelta(minutes=12))
    world.adapter.failures.append(RetryAfter(1.0))
    await world.tick()
    world.clock.set(START + timedelta(minutes=17))
    world.adapter.failures.append(RecipientUnreachable("blocked"))
    await world.tick()
    text = await scraper.exposition()
    ids = [user_id, chat.address.chat_id, other.address.user_id, other.address.chat_id]
    # Whole texts, and each distinctive word of them on its own.
    words = [word for text in written[:2] for word in text.split() if len(word) >= 4]
    secrets = [*ids, *written, *words]
    leaks = [secret for secret in secrets if _appears(secret, text)]
    assert leaks == []
    # Label values are the platform, the level and the kinds of due work: nothing else.
    kinds = due_kinds(world.services, world.router.checkin, world.router.pause).names
    known = {"test", "crisis", "outbox", *kinds}
    for sample in await scraper.samples():
        assert sample.value not in {float(user_id), float(other.address.user_id)}, sample
        for value in sample.labels.values():
            assert value in known or _is_number(value), sample
    # And the series scanned were really there.
    for counter in ("steady_sends_total", "steady_refusals_total"):
        assert f'{counter}{{platform="test"}} 1.0' in text
    assert 'steady_rate_limited_total{platform="test",retried_by="outbox"} 1.0' in text
    assert 'steady_crisis_replies_total{level="crisis"} 1.0' in text


def _is_number(text: str) -> bool:
    """Bucket bounds (le="0.5", "+Inf") are the only other label values."""
    try:
        float(text)
    except ValueError:
        return False
    return True


async def test_healthz_says_why_the_learned_stage_is_unavailable_and_stays_200(
    settings: Settings, clock: ManualClock, content: ContentPack, tmp_path: Path
) -> None:
    """A pack whose folder holds no model: the rules screen alone, and /healthz says so
    without calling the worker unhealthy. The model was tried at start, before any message."""
    pack = replace(content, folder=tmp_path / "no-model")
    async with (
        open_services(settings, clock, pack) as services,
        serving(settings, services, {}) as scraper,
    ):
        stage = stage_for(pack.folder)
        await until(lambda: stage.status.state is not ModelState.NOT_LOADED)
        status, body = await scraper.health()
        loaded = await scraper.value("steady_safety_model_loaded")
    assert status == 200 and body["status"] == "ok"
    assert loaded == 0
    assert body["safety_model"]["state"] == "unavailable"
    assert "no manifest.json" in body["safety_model"]["reason"]
