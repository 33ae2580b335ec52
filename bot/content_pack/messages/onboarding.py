"""The first conversation: a welcome, a time zone, a check-in time, a country, a language."""

from __future__ import annotations

from enum import StrEnum


class OnboardingMsg(StrEnum):
    WELCOME = "onboarding.welcome"
    WELCOME_BACK = "onboarding.welcome_back"
    ASK_TIMEZONE = "onboarding.ask_timezone"
    BAD_TIMEZONE = "onboarding.bad_timezone"
    ASK_TIME = "onboarding.ask_time"
    BAD_TIME = "onboarding.bad_time"
    ONBOARDING_DONE = "onboarding.done"

    # Time zones by place: confirm a place by its time now, or choose between places
    TIMEZONE_CONFIRM = "timezone.confirm"
    TIMEZONE_YES = "timezone.yes"
    TIMEZONE_AGAIN = "timezone.again"
    TIMEZONE_PICK = "timezone.pick"
    TIMEZONE_PICK_FIXED = "timezone.pick_fixed"
    TIMEZONE_CHOICE = "timezone.choice"
    TIMEZONE_NONE_OF_THESE = "timezone.none_of_these"
    TIMEZONE_ASK_AGAIN = "timezone.ask_again"

    # Times as people type them: shown back both ways, refused with an example in their form
    BAD_TIME_12H = "onboarding.bad_time_12h"

    # The country, only to show the right helplines
    ASK_COUNTRY_SUGGESTED = "onboarding.ask_country_suggested"
    ASK_COUNTRY = "onboarding.ask_country"
    BAD_COUNTRY = "onboarding.bad_country"
    COUNTRY_SAVED = "onboarding.country_saved"
    COUNTRY_SKIPPED = "onboarding.country_skipped"
    COUNTRY_OTHER = "onboarding.country_other"
    COUNTRY_SKIP = "onboarding.country_skip"

    # Language: the question at the start of onboarding and in /settings, and each
    # locale's own name for itself (the buttons).
    LANGUAGE_ASK = "language.ask"
    LANGUAGE_NAME = "language.name"
    LANGUAGE_SAVED = "language.saved"
