"""Message ids are split into one enum per topic; together they must act as one."""

from __future__ import annotations

from enum import StrEnum
from typing import get_args

from bot.content_pack.ids import ALL_MESSAGES, Msg, PauseMsg, SafetyMsg, message_id


def test_every_message_has_its_own_value() -> None:
    # Two topics holding one value would make the pack's key mean two messages.
    values = [message.value for message in ALL_MESSAGES]
    assert len(values) == len(set(values))


def test_all_messages_holds_every_member_of_every_topic() -> None:
    topics: tuple[type[StrEnum], ...] = get_args(Msg)
    assert {member for topic in topics for member in topic} == set(ALL_MESSAGES)
    # An alias (a second name for a value) would hide a message from iteration.
    assert sum(len(topic.__members__) for topic in topics) == len(ALL_MESSAGES)


def test_a_value_finds_its_message_and_an_unknown_one_finds_none() -> None:
    assert message_id("pause.back") is PauseMsg.PAUSE_BACK
    assert message_id("safety.crisis_intro") is SafetyMsg.SAFETY_CRISIS_INTRO
    assert message_id("pause.no_such_message") is None
    assert all(message_id(message.value) is message for message in ALL_MESSAGES)


def test_msg_tells_a_message_from_plain_text() -> None:
    assert isinstance(PauseMsg.PAUSE_BACK, Msg)
    assert not isinstance("pause.back", Msg)
