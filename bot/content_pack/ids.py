"""Ids of every message the code shows. The words live in content/<locale>/messages.yaml.

`steady content check` fails when the pack lacks one of these, has one the code
does not know, or uses placeholders other than the ones listed here.
"""

from __future__ import annotations

from enum import StrEnum


class Msg(StrEnum):
    WELCOME = "onboarding.welcome"
    WELCOME_BACK = "onboarding.welcome_back"
    ASK_TIMEZONE = "onboarding.ask_timezone"
    BAD_TIMEZONE = "onboarding.bad_timezone"
    ASK_TIME = "onboarding.ask_time"
    BAD_TIME = "onboarding.bad_time"
    ONBOARDING_DONE = "onboarding.done"

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

    HISTORY_SUMMARY = "history.summary"
    HISTORY_NOTHING = "history.nothing"
    HISTORY_NO_MOOD = "history.no_mood"
    PROGRESS_CAPTION = "progress.caption"
    PROGRESS_NOTHING = "progress.nothing"
    PROGRESS_SAVED_TO = "progress.saved_to"
    CHART_MOOD = "progress.chart_mood"
    CHART_PULL = "progress.chart_pull"

    SETTINGS_MENU = "settings.menu"
    SETTINGS_CHANGE_TIMEZONE = "settings.change_timezone"
    SETTINGS_CHANGE_TIMES = "settings.change_times"
    SETTINGS_CHANGE_DAYS = "settings.change_days"
    SETTINGS_CHANGE_QUIET = "settings.change_quiet"
    SETTINGS_PAUSE = "settings.pause"
    SETTINGS_STOP = "settings.stop"
    SETTINGS_RESUME = "settings.resume"
    SETTINGS_DONE = "settings.done"
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

    FORGET_CONFIRM = "forget.confirm"
    FORGET_YES = "forget.yes"
    FORGET_NO = "forget.no"
    FORGET_DONE = "forget.done"
    FORGET_KEPT = "forget.kept"
    FORGET_NOTHING = "forget.nothing"

    MYDATA_INTRO = "mydata.intro"
    MYDATA_NOTHING = "mydata.nothing"

    HELP_INTRO = "help.intro"
    HELP_FOOTER = "help.footer"
    ABOUT = "about.text"

    CANCEL_DONE = "cancel.done"
    CANCEL_NOTHING = "cancel.nothing"

    UNKNOWN_COMMAND = "general.unknown_command"
    UNEXPECTED_TEXT = "general.unexpected_text"
    USE_BUTTONS = "general.use_buttons"
    BUTTON_EXPIRED = "general.button_expired"
    SOMETHING_WENT_WRONG = "general.something_went_wrong"


PLACEHOLDERS: dict[Msg, frozenset[str]] = {
    Msg.ONBOARDING_DONE: frozenset({"time", "timezone"}),
    Msg.SETTINGS_MENU: frozenset({"timezone", "times", "days", "quiet", "status"}),
    Msg.NOTE_TOO_LONG: frozenset({"limit"}),
    Msg.SNOOZED: frozenset({"time"}),
    Msg.HISTORY_SUMMARY: frozenset(
        {"answered_7", "mood_7", "urges_7", "answered_30", "mood_30", "urges_30"}
    ),
    Msg.PROGRESS_SAVED_TO: frozenset({"path"}),
    Msg.STATUS_PAUSED: frozenset({"date"}),
    Msg.TIME_IN_QUIET_HOURS: frozenset({"time", "quiet"}),
    Msg.QUIET_COVERS_CHECKIN: frozenset({"time"}),
    Msg.PAUSED: frozenset({"date"}),
    Msg.RESUMED: frozenset({"when"}),
}


def placeholders_for(message: Msg) -> frozenset[str]:
    return PLACEHOLDERS.get(message, frozenset())


class Command(StrEnum):
    """Every command the bot answers; each needs a description in commands.yaml."""

    START = "start"
    CHECKIN = "checkin"
    AFFIRM = "affirm"
    SETTINGS = "settings"
    HISTORY = "history"
    PROGRESS = "progress"
    MYDATA = "mydata"
    FORGET = "forget"
    CANCEL = "cancel"
    HELP = "help"
    ABOUT = "about"
