"""Typed answers and no dead ends: times and places as people write them, choices shown again."""

from __future__ import annotations

from enum import StrEnum


class AnswersMsg(StrEnum):
    # Times as people type them: shown back both ways, refused with an example in their form
    TIME_BOTH_FORMS = "time.both_forms"

    # Typed answers and no dead ends (content/<locale>/messages_answers.yaml): a refusal
    # that shows its choices again, a yes or a no that is not a place, a code confirmed by
    # name, a country that disagrees with the time zone, a welcome before /start.
    USE_BUTTONS_BELOW = "answers.use_buttons_below"
    NOT_A_PLACE = "answers.not_a_place"
    COUNTRY_CODE_CONFIRM = "answers.country_code_confirm"
    COUNTRY_ZONE_MISMATCH = "answers.country_zone_mismatch"
    ZONE_COUNTRY_MISMATCH = "answers.zone_country_mismatch"
    MISMATCH_BOTH = "answers.mismatch_both"
    MISMATCH_KEPT = "answers.mismatch_kept"
    ZONE_SAVED = "answers.zone_saved"
    BEFORE_START = "answers.before_start"
    BEFORE_START_BUTTON = "answers.before_start_button"

    # Times and places as people write them (content/<locale>/messages_times.yaml)
    PLACE_DID_YOU_MEAN = "places.did_you_mean"
    TIME_NOT_READ = "times.not_read"
    TIME_BAD_MINUTES = "times.bad_minutes"
    TIMES_PICK = "times.pick"
    TIME_DAYS_TOO = "times.days_too"
