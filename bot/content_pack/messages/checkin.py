"""The daily check-in: mood, the pull to reach out, a note, snoozing."""

from __future__ import annotations

from enum import StrEnum


class CheckinMsg(StrEnum):
    CHECKIN_OPENING = "checkin.opening"
    ASK_MOOD = "checkin.ask_mood"
    MOOD_1 = "checkin.mood_1"
    MOOD_2 = "checkin.mood_2"
    MOOD_3 = "checkin.mood_3"
    MOOD_4 = "checkin.mood_4"
    MOOD_5 = "checkin.mood_5"
    ASK_URGE = "checkin.ask_urge"
    URGE_NONE = "checkin.urge_none"
    URGE_SOME = "checkin.urge_some"
    URGE_STRONG = "checkin.urge_strong"
    ASK_NOTE = "checkin.ask_note"
    SKIP_NOTE = "checkin.skip_note"
    NOTE_TOO_LONG = "checkin.note_too_long"
    CHECKIN_SAVED = "checkin.saved"
    CHECKIN_SAVED_WITH_NOTE = "checkin.saved_with_note"

    SNOOZE_1H = "checkin.snooze_1h"
    SNOOZE_3H = "checkin.snooze_3h"
    SNOOZE_TOMORROW = "checkin.snooze_tomorrow"
    SNOOZED = "checkin.snoozed"
    SNOOZED_TOMORROW = "checkin.snoozed_tomorrow"

    # The check-in's button for an urge happening right now
    CHECKIN_URGE_NOW = "checkin.urge_now"

    # Still there, or went back: a check-in answer and a pause path, with no forecast.
    CHECKIN_STILL_THERE = "checkin.still_there"
    STILL_THERE_INTRO = "checkin.still_there_intro"
