"""Nothing a user writes, and no answer they give, may reach a log line."""

from __future__ import annotations

import io

import pytest

from bot.flows import checkin
from tests.helpers.conversation import Conversation

WORDS = [
    "Europe/Berlin",
    "08:30",
    "my sister Ingrid thinks I should call",
    "ringo-starfish-secret",
    "<b>bold</b> & more",
]


async def test_a_whole_conversation_leaves_no_user_text_in_logs(
    chat: Conversation, log_output: io.StringIO
) -> None:
    await chat.send("/start")
    await chat.send("Not/AZone with ringo-starfish-secret")
    await chat.send(WORDS[0])
    await chat.send(WORDS[1])
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("strong")
    await chat.send(WORDS[2])
    await chat.send(WORDS[4])
    await chat.send("/affirm")
    await chat.send("/mydata")
    await chat.send(WORDS[3])
    await chat.send("/forget")
    await chat.press("Yes")

    logged = log_output.getvalue()
    assert "event=event.received" in logged  # the capture works and sees our events
    for word in [*WORDS, "strong", "Ingrid"]:
        assert word not in logged


async def test_a_failing_handler_logs_the_error_kind_only(
    chat: Conversation, log_output: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def explode(*_: object, **__: object) -> None:
        raise ValueError("user wrote: ringo-starfish-secret")

    monkeypatch.setattr(checkin.checkins, "add_checkin", explode)
    await chat.send("/checkin")
    await chat.send("3")
    await chat.send("none")
    await chat.send("ringo-starfish-secret note")
    assert "Something went wrong" in chat.text
    logged = log_output.getvalue()
    assert "event=event.failed" in logged
    assert "error=ValueError" in logged
    assert "ringo-starfish-secret" not in logged
