"""Check-ins alike but for their tokens are stored as one shape and a token each, and
come back exactly as they were claimed, on any worker."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Button, Reply
from bot.delivery.outbox import OUTBOX_LEASE
from bot.delivery.outgoing import Outgoing
from bot.delivery.reply_codec import UnreadableReply, decode_reply, shape_of
from bot.flows.context import Keyboard, Services, keyboard
from bot.storage import outbox_rows
from bot.storage.retention import daily_purge
from bot.storage.still_there import StillThere, Target
from bot.storage.users import ensure_user
from tests.helpers.outboxes import outbox_for, queued_and_left
from tests.helpers.recording_adapter import RecordingAdapter
from tests.helpers.world import Sleeps

MOODS: Keyboard = keyboard(
    ((("Steady", "steady"), ("Shaky", "shaky")), (("Rather not say", "skip"),)),
    "checkin",
    "mood",
)


def checkin(token: str, text: str = "How is today going?") -> Reply:
    return Reply(text, buttons=MOODS.with_token(token), silent=True)


def test_replies_alike_but_for_their_tokens_share_one_shape() -> None:
    first, second = shape_of(checkin("tok-1")), shape_of(checkin("tok-2"))
    assert first is not None and second is not None
    assert first[0] == second[0]
    assert (first[1], second[1]) == ("tok-1", "tok-2")
    assert "tok-" not in first[0].text
    assert decode_reply(first[0].text, "tok-1") == checkin("tok-1")
    assert decode_reply(second[0].text, "tok-2").flat_buttons[0] == Button(
        "Steady", "checkin:mood:tok-2:steady"
    )


def test_a_different_text_or_flag_is_a_different_shape() -> None:
    shapes = {
        shape_of(reply)[0].id  # type: ignore[index]
        for reply in (
            checkin("t"),
            checkin("t", text="Another opening"),
            Reply("How is today going?", buttons=MOODS.with_token("t")),  # not silent
        )
    }
    assert len(shapes) == 3


def test_buttons_not_made_from_a_template_are_encoded_whole() -> None:
    assert shape_of(Reply("Hi", buttons=((Button("Yes", "c:tok:1"),),))) is None
    assert shape_of(Reply("Hi")) is None


def test_a_shape_without_its_token_is_refused() -> None:
    shaped = shape_of(checkin("t"))
    assert shaped is not None
    with pytest.raises(UnreadableReply):
        decode_reply(shaped[0].text)


ANA = Address("test", "chat-ana", "ana")
BEN = Address("test", "chat-ben", "ben")


async def _users(services: Services, clock: ManualClock) -> dict[Address, int]:
    async with services.db.transaction() as tx:
        return {
            address: (await ensure_user(tx, address, "en", clock.now())).id
            for address in (ANA, BEN)
        }


async def test_a_dead_workers_checkins_are_stored_as_one_shape_and_sent_whole_by_another(
    services: Services, clock: ManualClock
) -> None:
    users = await _users(services, clock)
    messages = [
        Outgoing(address, checkin(f"token-{name}"), guard=StillThere(Target.USER, users[address]))
        for address, name in ((ANA, "ana"), (BEN, "ben"))
    ]
    await queued_and_left(services, clock, *messages)
    shapes = await services.db.fetch_all("SELECT id FROM outbox_shapes")
    rows = await services.db.fetch_all("SELECT reply, shape_id, fill FROM outbox ORDER BY id")
    assert len(shapes) == 1
    assert [(row["reply"], row["shape_id"], row["fill"]) for row in rows] == [
        (None, shapes[0]["id"], "token-ana"),
        (None, shapes[0]["id"], "token-ben"),
    ]
    adapter = RecordingAdapter()
    other = outbox_for(services, clock, {adapter.platform: adapter}, sleep=Sleeps())
    await other.start()
    try:
        clock.advance(OUTBOX_LEASE)
        assert await other.keep_leases() == 2
        await other.drain()
    finally:
        await other.stop()
    assert adapter.sent == [(ANA, checkin("token-ana")), (BEN, checkin("token-ben"))]


async def test_the_daily_purge_keeps_shapes_in_use_or_used_within_the_day(
    services: Services, clock: ManualClock
) -> None:
    users = await _users(services, clock)
    dead = await queued_and_left(
        services, clock, Outgoing(ANA, checkin("a"), guard=StillThere(Target.USER, users[ANA]))
    )
    clock.advance(timedelta(days=2))
    await dead.enqueue(
        Outgoing(BEN, checkin("b", text="Unused"), guard=StillThere(Target.USER, users[BEN]))
    )
    async with services.db.transaction() as tx:
        await tx.execute("DELETE FROM outbox WHERE fill = ?", ("b",))  # sent: its row is gone
    async with services.db.transaction() as tx:  # nothing unused for a day: both stay
        assert await outbox_rows.purge_shapes(tx, clock.now() - timedelta(days=1)) == 0
    clock.advance(timedelta(days=2))
    purged = await daily_purge(services.db, clock.now(), 180, sent_kept=timedelta(days=2))
    assert purged.reply_shapes == 1  # the one a waiting row names stays
    shaped = shape_of(checkin("a"))
    assert shaped is not None
    assert await outbox_rows.shapes(services.db, [shaped[0].id]) == {shaped[0].id: shaped[0].text}


async def test_a_shape_used_again_after_the_hour_is_marked_so_the_purge_leaves_it(
    services: Services, clock: ManualClock
) -> None:
    users = await _users(services, clock)
    adapter = RecordingAdapter()
    outbox = outbox_for(services, clock, {adapter.platform: adapter}, sleep=Sleeps())
    await outbox.start()
    try:
        await outbox.enqueue(Outgoing(ANA, checkin("a"), guard=StillThere(Target.USER, users[ANA])))
        await outbox.drain()
        written = await services.db.fetch_one("SELECT added_at FROM outbox_shapes")
        clock.advance(timedelta(minutes=30))
        await outbox.enqueue(Outgoing(BEN, checkin("b"), guard=StillThere(Target.USER, users[BEN])))
        await outbox.drain()
        within_the_hour = await services.db.fetch_one("SELECT added_at FROM outbox_shapes")
        clock.advance(timedelta(days=3))
        await outbox.enqueue(Outgoing(ANA, checkin("c"), guard=StillThere(Target.USER, users[ANA])))
        await outbox.drain()
    finally:
        await outbox.stop()
    marked = await services.db.fetch_one("SELECT added_at FROM outbox_shapes")
    assert written is not None and within_the_hour is not None and marked is not None
    assert within_the_hour["added_at"] == written["added_at"]  # not written again
    assert marked["added_at"] > written["added_at"]
    async with services.db.transaction() as tx:
        assert await outbox_rows.purge_shapes(tx, clock.now() - timedelta(days=1)) == 0
    assert len(adapter.sent) == 3


def test_a_reply_echoing_someones_words_is_never_a_shape() -> None:
    assert shape_of(Reply("Your note: …", buttons=MOODS.with_token("t"), protect=True)) is None


async def test_a_protected_reply_is_sealed_for_its_user_not_shared(
    services: Services, clock: ManualClock
) -> None:
    users = await _users(services, clock)
    protected = Reply("Your note: …", buttons=MOODS.with_token("t"), protect=True)
    await queued_and_left(
        services, clock, Outgoing(ANA, protected, guard=StillThere(Target.USER, users[ANA]))
    )
    row = await services.db.fetch_one("SELECT reply, shape_id, sealed_for_user FROM outbox")
    assert row is not None
    assert (row["reply"], row["shape_id"]) == (None, None)
    assert row["sealed_for_user"] is not None
    assert await services.db.fetch_all("SELECT id FROM outbox_shapes") == []


async def test_a_row_whose_shape_is_gone_is_dropped_unsent_when_taken_over(
    services: Services, clock: ManualClock
) -> None:
    users = await _users(services, clock)
    await queued_and_left(
        services, clock, Outgoing(ANA, checkin("a"), guard=StillThere(Target.USER, users[ANA]))
    )
    async with services.db.transaction() as tx:
        await tx.execute("DELETE FROM outbox_shapes")
    adapter = RecordingAdapter()
    other = outbox_for(services, clock, {adapter.platform: adapter}, sleep=Sleeps())
    await other.start()
    try:
        clock.advance(OUTBOX_LEASE)
        assert await other.keep_leases() == 0
        await other.drain()
    finally:
        await other.stop()
    assert adapter.sent == []
    assert await services.db.fetch_all("SELECT id FROM outbox") == []
