"""The sending code both platform adapters share: who retries a piece, and when a reply
or a countdown stops. No platform here; the platform tests carry the same paths end to end."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.adapters.retry import REPLY_ATTEMPTS
from bot.adapters.sending import (
    Background,
    once,
    patient,
    play_frames,
    post_pieces,
    reply_all,
)
from bot.core.events import Address
from bot.core.platform import DeliveryError, DeliveryUncertain, TransientDeliveryError
from bot.core.replies import Frame, Reply
from tests.helpers.waiting import until

LOG = logging.getLogger("test_sending")
ANA = Address("telegram", "1", "1")


async def no_wait(_: float) -> None:
    return None


class Platform:
    """Posts pieces, failing each one as many times as `failures` says."""

    def __init__(self, failures: dict[str, list[Exception]] | None = None) -> None:
        self.failures = failures or {}
        self.attempts: list[str] = []
        self.delivered: list[str] = []

    async def post(self, number: int, piece: str) -> str:
        self.attempts.append(piece)
        pending = self.failures.get(piece, [])
        if pending:
            raise pending.pop(0)
        self.delivered.append(piece)
        return f"id-{number}"


async def test_a_scheduled_first_piece_is_tried_once_and_left_to_the_outbox() -> None:
    platform = Platform({"a": [TransientDeliveryError("down")]})
    with pytest.raises(TransientDeliveryError):
        await post_pieces(["a", "b"], platform.post, once, no_wait)
    assert platform.attempts == ["a"]  # no second try here: the outbox owns that one


async def test_a_reply_first_piece_is_tried_patiently() -> None:
    platform = Platform({"a": [TransientDeliveryError("down")] * 2})
    assert await post_pieces(["a", "b"], platform.post, patient(no_wait), no_wait) == "id-1"
    assert platform.attempts == ["a", "a", "a", "b"]


async def test_a_later_piece_is_tried_again_alone() -> None:
    platform = Platform({"b": [TransientDeliveryError("down")] * 2})
    assert await post_pieces(["a", "b", "c"], platform.post, once, no_wait) == "id-2"
    assert platform.attempts == ["a", "b", "b", "b", "c"]
    assert platform.delivered == ["a", "b", "c"]  # each once


async def test_a_later_piece_that_keeps_failing_gives_up_without_repeating_the_first() -> None:
    platform = Platform({"b": [TransientDeliveryError("down")] * REPLY_ATTEMPTS})
    with pytest.raises(TransientDeliveryError):
        await post_pieces(["a", "b"], platform.post, patient(no_wait), no_wait)
    assert platform.attempts == ["a"] + ["b"] * REPLY_ATTEMPTS  # bounded, and "a" once


async def test_an_unsure_first_piece_of_a_scheduled_send_is_not_sent_again() -> None:
    platform = Platform({"a": [DeliveryUncertain("read timeout")]})
    assert await post_pieces(["a", "b", "c"], platform.post, once, no_wait) == "id-2"
    assert platform.attempts == ["a", "b", "c"]  # most likely arrived: the rest follow it


async def test_a_middle_piece_unsure_on_every_try_is_passed_over() -> None:
    platform = Platform({"b": [DeliveryUncertain("read timeout")] * REPLY_ATTEMPTS})
    assert await post_pieces(["a", "b", "c"], platform.post, once, no_wait) == "id-2"
    assert platform.attempts == ["a"] + ["b"] * REPLY_ATTEMPTS + ["c"]


async def test_an_unsure_last_piece_is_reported() -> None:
    platform = Platform({"b": [DeliveryUncertain("read timeout")] * REPLY_ATTEMPTS})
    with pytest.raises(DeliveryUncertain):
        await post_pieces(["a", "b"], platform.post, once, no_wait)


async def test_one_reply_that_cannot_be_delivered_does_not_stop_the_next() -> None:
    delivered: list[str] = []

    async def deliver(address: Address, reply: Reply) -> None:
        if reply.text == "refused":
            raise DeliveryError("no")
        delivered.append(reply.text)

    replies = [Reply("first"), Reply("refused"), Reply("last")]
    await reply_all(ANA, replies, deliver, LOG, "test.reply_dropped")
    assert delivered == ["first", "last"]


async def test_frames_play_in_order_and_end_on_the_text() -> None:
    shown: list[str] = []
    background = Background()
    reply = Reply("breathe out", frames=(Frame("3", 1.0), Frame("2", 1.0), Frame("1", 1.0)))

    async def edit(text: str) -> None:
        shown.append(text)

    play_frames(background, reply, edit, no_wait, LOG, "test.frames_stopped")
    await until(lambda: len(shown) == 3)
    assert shown == ["2", "1", "breathe out"]  # the first frame is what was posted


async def test_a_failed_frame_stops_the_countdown(caplog: pytest.LogCaptureFixture) -> None:
    shown: list[str] = []
    background = Background()
    reply = Reply("breathe out", frames=(Frame("3", 1.0), Frame("2", 1.0), Frame("1", 1.0)))

    async def edit(text: str) -> None:
        if text == "1":
            raise DeliveryError("message deleted")
        shown.append(text)

    with caplog.at_level(logging.INFO, logger=LOG.name):
        play_frames(background, reply, edit, no_wait, LOG, "test.frames_stopped")
        await until(lambda: background.running == 0)  # ended by itself, not cancelled
    assert shown == ["2"]  # nothing after the failed edit, the text not forced in
    assert "test.frames_stopped" in caplog.text


async def test_background_work_is_cancelled_on_stop() -> None:
    background = Background()
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    background.keep(forever())
    await started.wait()
    await background.cancel_all()
    assert cancelled.is_set()


async def test_an_urgent_reply_that_fails_is_an_error_and_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    counted: list[str] = []

    async def deliver(_: Address, reply: Reply) -> None:
        raise DeliveryError("refused")

    replies = [Reply("a crisis reply", urgent=True), Reply("the question again")]
    with caplog.at_level(logging.INFO, logger=LOG.name):
        await reply_all(ANA, replies, deliver, LOG, "test.dropped", lambda: counted.append(""))
    assert counted == [""]  # the urgent one only
    levels = {r.getMessage(): r.levelname for r in caplog.records}
    assert levels == {"safety.reply_undelivered": "ERROR", "test.dropped": "WARNING"}
