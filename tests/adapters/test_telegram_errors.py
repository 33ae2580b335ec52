"""Telegram's failures as the core's delivery errors, one call each: nothing here waits
or tries again, except the same words without formatting when the HTML could not be read."""

from __future__ import annotations

import pytest
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, TimedOut
from telegram.error import RetryAfter as TelegramRetryAfter

from bot.adapters.telegram import errors
from bot.core.platform import (
    DeliveryUncertain,
    RecipientUnreachable,
    RetryAfter,
    TransientDeliveryError,
)


class Api:
    """Answers each call with the next of `answers` (an exception is raised)."""

    def __init__(self, *answers: object) -> None:
        self.answers = list(answers)
        self.asked: list[bool] = []  # `plain` of each call

    async def request(self, plain: bool) -> object:
        self.asked.append(plain)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer


async def test_unreadable_html_is_sent_again_as_plain_text() -> None:
    api = Api(BadRequest("Can't parse entities: unexpected end tag"), "sent")
    assert await errors.call(api.request) == "sent"
    assert api.asked == [False, True]


async def test_plain_text_refused_as_well_is_not_tried_a_third_time() -> None:
    api = Api(BadRequest("Can't parse entities: x"), BadRequest("Can't parse entities: x"))
    with pytest.raises(BadRequest):
        await errors.call(api.request)
    assert api.asked == [False, True]


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (NetworkError("Bad Gateway"), TransientDeliveryError),
        (TimedOut("Pool timeout: all connections busy"), TransientDeliveryError),
        (TimedOut("Timed out"), DeliveryUncertain),  # the request may have arrived
        (Forbidden("Forbidden: bot was blocked by the user"), RecipientUnreachable),
        (BadRequest("Bad Request: not enough rights to send text"), RecipientUnreachable),
        (TelegramRetryAfter(7), RetryAfter),
    ],
)
async def test_each_failure_is_mapped_after_one_call(
    failure: Exception, expected: type[Exception]
) -> None:
    api = Api(failure, "never reached")
    with pytest.raises(expected):
        await errors.call(api.request)
    assert api.asked == [False]  # tried once: the retrying belongs to the caller


async def test_a_rate_limit_says_how_long_to_wait() -> None:
    with pytest.raises(RetryAfter) as raised:
        await errors.call(Api(TelegramRetryAfter(7)).request)
    assert raised.value.seconds == 7.0


async def test_a_moved_group_and_other_refusals_reach_the_caller_as_they_are() -> None:
    with pytest.raises(ChatMigrated):
        await errors.call(Api(ChatMigrated(-100123)).request)
    with pytest.raises(BadRequest, match="Message is not modified"):
        await errors.call(Api(BadRequest("Message is not modified")).request)
