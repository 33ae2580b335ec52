"""The pause before acting: breathing, grounding, reasons, writing it out, waiting."""

from __future__ import annotations

from enum import StrEnum


class PauseMsg(StrEnum):
    PAUSE_OFFER = "pause.offer"
    PAUSE_OFFER_YES = "pause.offer_yes"
    PAUSE_OFFER_NO = "pause.offer_no"
    PAUSE_NOT_NOW = "pause.not_now"
    PAUSE_MENU = "pause.menu"
    PAUSE_BREATHE = "pause.breathe"
    PAUSE_GROUND = "pause.ground"
    PAUSE_REMEMBER = "pause.remember"
    PAUSE_WRITE = "pause.write"
    PAUSE_WAIT = "pause.wait"
    PAUSE_REACHED_OUT = "pause.reached_out"
    PAUSE_DONE = "pause.done"
    PAUSE_DONE_REPLY = "pause.done_reply"
    PAUSE_PICK = "pause.pick"
    PAUSE_NEXT = "pause.next"
    PAUSE_BACK = "pause.back"
    PAUSE_ANOTHER = "pause.another"
    PAUSE_SKIP = "pause.skip"
    PAUSE_AFTER_EXERCISE = "pause.after_exercise"
    BREATH_IN = "pause.breath_in"
    BREATH_HOLD = "pause.breath_hold"
    BREATH_OUT = "pause.breath_out"
    BREATH_FRAME = "pause.breath_frame"

    # The static breathing text: each phase in its own words, agreeing with its seconds.
    BREATH_STEP_IN = "pause.breath_step_in"
    BREATH_STEP_HOLD = "pause.breath_step_hold"
    BREATH_STEP_OUT = "pause.breath_step_out"
    BREATH_SEQUENCE = "pause.breath_sequence"
    EXERCISE_STEP = "pause.exercise_step"
    REMEMBER_INTRO = "pause.remember_intro"
    REMEMBER_EMPTY = "pause.remember_empty"
    REFLECT_INTRO = "pause.reflect_intro"
    REASON_TOO_LONG = "pause.reason_too_long"
    WRITE_PROMPT = "pause.write_prompt"
    WRITE_WRITTEN = "pause.write_written"
    DRAFT_TOO_LONG = "pause.draft_too_long"
    WRITE_KEEP = "pause.write_keep"
    WRITE_LET_GO = "pause.write_let_go"
    WRITE_KEPT = "pause.write_kept"
    WRITE_LET_GONE = "pause.write_let_gone"
    WAIT_PROMPT = "pause.wait_prompt"
    WAIT_10 = "pause.wait_10"
    WAIT_20 = "pause.wait_20"
    WAIT_30 = "pause.wait_30"
    WAIT_STARTED = "pause.wait_started"
    FOLLOWUP = "pause.followup"
    FOLLOWUP_WARM = "pause.followup_warm"  # discreet mode off: it may sound like a person
    FOLLOWUP_PASSED = "pause.followup_passed"
    FOLLOWUP_STRONG = "pause.followup_strong"
    FOLLOWUP_REACHED = "pause.followup_reached"
    FOLLOWUP_MORE_TIME = "pause.followup_more_time"
    PASSED_REPLY = "pause.passed_reply"
    STRONG_REPLY = "pause.strong_reply"
    REACHED_OUT_REPLY = "pause.reached_out_reply"
    PAUSE_NEED_REST = "pause.need_rest"
    PAUSE_REST_REPLY = "pause.rest_reply"

    # Still there, or went back: a check-in answer and a pause path, with no forecast.
    PAUSE_STILL_THERE = "pause.still_there"
    PAUSE_STILL_THERE_REPLY = "pause.still_there_reply"

    # The urge to check on them (a profile, a story, unblocking), not to write.
    PAUSE_CHECKING = "pause.checking"
    PAUSE_CHECKING_REPLY = "pause.checking_reply"
    CHECKING_PASSED = "pause.checking_passed"

    # The pause menu shows a few choices first and the rest behind one button.
    PAUSE_MORE = "pause.more"
    PAUSE_MORE_MENU = "pause.more_menu"
