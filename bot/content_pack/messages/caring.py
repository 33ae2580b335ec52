"""The caring check: one message the day after a crisis reply, if the user wants it."""

from __future__ import annotations

from enum import StrEnum


class CaringMsg(StrEnum):
    # The caring check: after a crisis reply, one message the next day, if the user wants it
    CARING_OFFER = "caring.offer"
    CARING_OFFER_YES = "caring.offer_yes"
    CARING_OFFER_NO = "caring.offer_no"
    CARING_SCHEDULED = "caring.scheduled"
    CARING_SCHEDULED_ON = "caring.scheduled_on"
    CARING_DECLINED = "caring.declined"
    CARING_CHECK = "caring.check"
    CARING_CHECK_WARM = "caring.check_warm"
    CARING_SOS_BUTTON = "caring.sos_button"
    CARING_PLAN_BUTTON = "caring.plan_button"
    CARING_PAUSE_BUTTON = "caring.pause_button"
    CARING_OKAY_BUTTON = "caring.okay_button"
    CARING_OKAY_REPLY = "caring.okay_reply"
    CARING_WRITE_PLAN_BUTTON = "caring.write_plan_button"  # "My plan" with no plan yet

    # The caring look-in: asked for between midnight and 05:00, "tomorrow" is later that
    # day; and the words that cancel it, typed (they are also in caring.scheduled).
    CARING_SCHEDULED_TODAY = "caring.scheduled_today"
    CARING_CANCEL_WORDS = "caring.cancel_words"
