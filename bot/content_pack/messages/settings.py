"""/settings: check-in times and days, quiet hours, pausing, discreet mode, keeping data."""

from __future__ import annotations

from enum import StrEnum


class SettingsMsg(StrEnum):
    # Times as people type them: shown back both ways, refused with an example in their form
    BAD_TIMES_12H = "settings.bad_times_12h"
    BAD_QUIET_12H = "settings.bad_quiet_12h"
    TIMES_SAVED = "settings.times_saved"

    SETTINGS_MENU = "settings.menu"
    SETTINGS_CHANGE_TIMEZONE = "settings.change_timezone"
    SETTINGS_CHANGE_TIMES = "settings.change_times"
    SETTINGS_CHANGE_DAYS = "settings.change_days"
    SETTINGS_CHANGE_QUIET = "settings.change_quiet"
    SETTINGS_PAUSE = "settings.pause"
    SETTINGS_STOP = "settings.stop"
    SETTINGS_RESUME = "settings.resume"
    SETTINGS_DONE = "settings.done"
    SETTINGS_DISCREET_ON = "settings.discreet_on"
    SETTINGS_DISCREET_OFF = "settings.discreet_off"
    SETTINGS_SAVED = "settings.saved"
    SETTINGS_CLOSED = "settings.closed"
    NOT_SET = "settings.not_set"
    QUIET_OFF = "settings.quiet_off"
    STATUS_ON = "settings.status_on"
    STATUS_PAUSED = "settings.status_paused"
    STATUS_STOPPED = "settings.status_stopped"
    ASK_TIMES = "settings.ask_times"
    BAD_TIMES = "settings.bad_times"
    TIME_IN_QUIET_HOURS = "settings.time_in_quiet_hours"
    ASK_DAYS = "settings.ask_days"
    BAD_DAYS = "settings.bad_days"
    ASK_QUIET = "settings.ask_quiet"
    BAD_QUIET = "settings.bad_quiet"
    QUIET_COVERS_CHECKIN = "settings.quiet_covers_checkin"
    ASK_PAUSE = "settings.ask_pause"
    PAUSE_1 = "settings.pause_1"
    PAUSE_3 = "settings.pause_3"
    PAUSE_7 = "settings.pause_7"
    BAD_PAUSE = "settings.bad_pause"
    PAUSED = "settings.paused"
    STOPPED = "settings.stopped"
    RESUMED = "settings.resumed"

    SETTINGS_CHANGE_COUNTRY = "settings.change_country"
    SETTINGS_ASK_TIMEZONE = "settings.ask_timezone"

    # How long check-ins are kept
    SETTINGS_CHANGE_KEEP = "settings.change_keep"
    ASK_KEEP = "settings.ask_keep"
    KEEP_DAYS = "settings.keep_days"
    KEEP_LONGEST = "settings.keep_longest"
    BAD_KEEP = "settings.bad_keep"

    # Language: asked at the start of onboarding and changed here (onboarding.py)
    SETTINGS_CHANGE_LANGUAGE = "settings.change_language"
