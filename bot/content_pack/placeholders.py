"""What each message's template may fill in, and which of those numbers count a noun.

`steady content check` fails when a message uses placeholders other than the ones listed
here, or holds a count without its plural forms.
"""

from __future__ import annotations

from bot.content_pack.ids import (
    AnswersMsg,
    CaringMsg,
    CheckinMsg,
    ContactedMsg,
    DataMsg,
    DatesMsg,
    GeneralMsg,
    HistoryMsg,
    Msg,
    NoContactMsg,
    OnboardingMsg,
    PauseMsg,
    PlanMsg,
    ReasonsMsg,
    ReminderMsg,
    SafetyMsg,
    SettingsMsg,
)

PLACEHOLDERS: dict[Msg, frozenset[str]] = {
    ReminderMsg.REMINDER_HELP: frozenset({"themes"}),
    ReminderMsg.REMINDER_BAD_TIME: frozenset({"given"}),
    ReminderMsg.REMINDER_UNKNOWN_WORD: frozenset({"given"}),
    ReminderMsg.REMINDER_BAD_THEME: frozenset({"themes"}),
    ReminderMsg.REMINDER_TEXT_TOO_LONG: frozenset({"limit"}),
    ReminderMsg.REMINDER_NEEDS_NUMBER: frozenset({"action"}),
    ReminderMsg.REMINDER_TOO_MANY: frozenset({"limit"}),
    ReminderMsg.REMINDER_ADDED: frozenset({"number", "what", "when"}),
    ReminderMsg.REMINDER_LIST_ITEM: frozenset({"number", "state", "what", "when"}),
    ReminderMsg.REMINDER_NOT_FOUND: frozenset({"number"}),
    ReminderMsg.REMINDER_PAUSED: frozenset({"number"}),
    ReminderMsg.REMINDER_RESUMED: frozenset({"next", "number"}),
    ReminderMsg.REMINDER_DELETED: frozenset({"number"}),
    ReminderMsg.REMINDER_WHEN: frozenset({"days", "time", "timezone"}),
    ReminderMsg.REMINDER_WHAT_THEME: frozenset({"theme"}),
    ReminderMsg.REMINDER_LOST_PERMISSION: frozenset({"number", "when"}),
    OnboardingMsg.ONBOARDING_DONE: frozenset({"time", "timezone"}),
    # Time zones by place, times as people type them, too long
    OnboardingMsg.TIMEZONE_CONFIRM: frozenset({"place", "time"}),
    OnboardingMsg.TIMEZONE_CHOICE: frozenset({"place", "time"}),
    AnswersMsg.TIME_BOTH_FORMS: frozenset({"time", "time_12h"}),
    SettingsMsg.TIMES_SAVED: frozenset({"times"}),
    GeneralMsg.LONG_REWRITE: frozenset({"limit"}),
    SettingsMsg.SETTINGS_MENU: frozenset(
        {"country", "timezone", "times", "days", "quiet", "status", "discreet", "keep"}
    ),
    SettingsMsg.KEEP_DAYS: frozenset({"days"}),
    SettingsMsg.BAD_KEEP: frozenset({"limit"}),
    CheckinMsg.NOTE_TOO_LONG: frozenset({"limit"}),
    CheckinMsg.SNOOZED: frozenset({"time"}),
    HistoryMsg.HISTORY_SUMMARY: frozenset(
        {"answered_7", "mood_7", "urges_7", "answered_30", "mood_30", "urges_30"}
    ),
    HistoryMsg.PROGRESS_SAVED_TO: frozenset({"path"}),
    SettingsMsg.STATUS_PAUSED: frozenset({"date"}),
    SettingsMsg.TIME_IN_QUIET_HOURS: frozenset({"time", "quiet"}),
    SettingsMsg.QUIET_COVERS_CHECKIN: frozenset({"time"}),
    SettingsMsg.PAUSED: frozenset({"date"}),
    SettingsMsg.RESUMED: frozenset({"when"}),
    SafetyMsg.SAFETY_EMERGENCY: frozenset({"number", "country"}),
    SafetyMsg.SAFETY_RESOURCE_LINE: frozenset({"name", "contact", "hours"}),
    SafetyMsg.SAFETY_DIRECTORY: frozenset({"name", "url"}),
    # Crisis reply layout
    SafetyMsg.SAFETY_EMERGENCY_POLICE_FIRST: frozenset({"police", "ambulance", "country"}),
    SafetyMsg.SAFETY_EMERGENCY_AMBULANCE_FIRST: frozenset({"police", "ambulance", "country"}),
    SafetyMsg.SAFETY_EMERGENCY_ALSO: frozenset({"number"}),
    SafetyMsg.SAFETY_EMERGENCY_SMS: frozenset({"number"}),
    SafetyMsg.SAFETY_MORE_INTRO: frozenset({"country"}),
    SafetyMsg.SAFETY_COUNTRY_SAVED: frozenset({"country"}),
    PauseMsg.BREATH_FRAME: frozenset({"phase", "seconds", "round", "rounds"}),
    PauseMsg.BREATH_STEP_IN: frozenset({"seconds"}),
    PauseMsg.BREATH_STEP_HOLD: frozenset({"seconds"}),
    PauseMsg.BREATH_STEP_OUT: frozenset({"seconds"}),
    PauseMsg.BREATH_SEQUENCE: frozenset({"breath", "rounds"}),
    PauseMsg.EXERCISE_STEP: frozenset({"number", "total", "text"}),
    PauseMsg.REASON_TOO_LONG: frozenset({"limit"}),
    PauseMsg.DRAFT_TOO_LONG: frozenset({"limit"}),
    PauseMsg.WAIT_STARTED: frozenset({"time"}),
    ReasonsMsg.REASONS_FULL: frozenset({"limit"}),
    NoContactMsg.NC_STATUS: frozenset({"days"}),
    NoContactMsg.NC_LONGEST: frozenset({"longest"}),
    NoContactMsg.NC_PRACTICAL_COUNT: frozenset({"practical"}),
    NoContactMsg.NC_RESTARTED: frozenset({"longest"}),
    OnboardingMsg.ASK_COUNTRY_SUGGESTED: frozenset({"country"}),
    OnboardingMsg.COUNTRY_SAVED: frozenset({"country"}),
    HistoryMsg.HISTORY_PAUSES: frozenset({"paused"}),
    HistoryMsg.HISTORY_PASSED: frozenset({"passed"}),
    DataMsg.WIPE_DONE: frozenset({"deleted"}),
    DataMsg.WIPE_PARTLY: frozenset({"kept"}),
    ContactedMsg.CT_PRESSURE_REPLY: frozenset({"emergency"}),
    ContactedMsg.CT_EMERGENCY_NUMBER: frozenset({"number", "country"}),
    # /plan
    PlanMsg.PLAN_TOO_LONG: frozenset({"limit"}),
    PlanMsg.PLAN_LINES_OFFER: frozenset({"country", "lines"}),
    PlanMsg.PLAN_EMERGENCY_LINE: frozenset({"number", "country"}),
    PlanMsg.PLAN_EMERGENCY_TWO: frozenset({"police", "ambulance", "country"}),
    PlanMsg.PLAN_REASONS_SHOW: frozenset({"reasons"}),
    PlanMsg.PLAN_PART_MENU: frozenset({"title"}),
    PlanMsg.PLAN_STEP_OF: frozenset({"n"}),
    # The caring check
    CaringMsg.CARING_SCHEDULED: frozenset({"time"}),
    CaringMsg.CARING_SCHEDULED_ON: frozenset({"date", "time"}),
    # /dates
    DatesMsg.DATES_ITEM_YEARLY: frozenset({"number", "label", "date"}),
    DatesMsg.DATES_ITEM_ONCE: frozenset({"number", "label", "date"}),
    DatesMsg.DATES_FULL: frozenset({"limit"}),
    DatesMsg.DATES_LABEL_TOO_LONG: frozenset({"limit"}),
    DatesMsg.DATES_ADDED: frozenset({"date"}),
    DatesMsg.DATES_ADDED_EVENING: frozenset({"date"}),
    DatesMsg.DATES_ADDED_MORNING: frozenset({"date"}),
    DatesMsg.DATES_ADDED_NONE: frozenset({"date"}),
    DatesMsg.DATES_EDIT_MENU: frozenset({"item"}),
    DatesMsg.DATES_YOUR_WORDS: frozenset({"label"}),
    DatesMsg.DATES_NO_SUCH_DAY: frozenset({"month", "last"}),
    DatesMsg.DATES_DATE_KEPT: frozenset({"date"}),
    # Typed answers and no dead ends
    AnswersMsg.COUNTRY_CODE_CONFIRM: frozenset({"country"}),
    AnswersMsg.COUNTRY_ZONE_MISMATCH: frozenset({"country", "zone_country"}),
    AnswersMsg.ZONE_COUNTRY_MISMATCH: frozenset({"country", "zone_country"}),
    AnswersMsg.MISMATCH_KEPT: frozenset({"country"}),
    AnswersMsg.ZONE_SAVED: frozenset({"place"}),
    CaringMsg.CARING_SCHEDULED_TODAY: frozenset({"time"}),
    AnswersMsg.PLACE_DID_YOU_MEAN: frozenset({"place", "time"}),
    AnswersMsg.TIME_DAYS_TOO: frozenset({"days"}),
    # The crisis reply in every screened language
    SafetyMsg.SAFETY_OR: frozenset({"first", "second"}),
    SafetyMsg.SAFETY_UNCONFIRMED: frozenset({"number", "country"}),
    SafetyMsg.SAFETY_UNCONFIRMED_POLICE_FIRST: frozenset({"police", "ambulance", "country"}),
    SafetyMsg.SAFETY_UNCONFIRMED_AMBULANCE_FIRST: frozenset({"police", "ambulance", "country"}),
    SafetyMsg.SAFETY_UNCONFIRMED_FALLBACK: frozenset({"numbers"}),
    SafetyMsg.SAFETY_UNCONFIRMED_ALSO: frozenset({"number"}),
    SafetyMsg.SAFETY_LINE_LANGUAGES: frozenset({"languages"}),
    SafetyMsg.SAFETY_GLANCE: frozenset({"country", "emergency", "helpline"}),
    SafetyMsg.SAFETY_GLANCE_ONLY: frozenset({"country", "emergency"}),
    SafetyMsg.SAFETY_GLANCE_EMERGENCY: frozenset({"number"}),
    SafetyMsg.SAFETY_GLANCE_EMERGENCY_TWO: frozenset({"police", "ambulance"}),
    SafetyMsg.SAFETY_GLANCE_UNCONFIRMED: frozenset({"emergency"}),
    SafetyMsg.SAFETY_GLANCE_HELPLINE: frozenset({"name", "number"}),
    SafetyMsg.CONTACT_CALL: frozenset({"numbers"}),
    SafetyMsg.CONTACT_TEXT: frozenset({"numbers"}),
    SafetyMsg.CONTACT_CALL_OR_TEXT: frozenset({"numbers"}),
    SafetyMsg.CONTACT_TEXT_KEYWORD: frozenset({"keyword", "number"}),
    SafetyMsg.CONTACT_WHATSAPP: frozenset({"numbers"}),
    SafetyMsg.CONTACT_FREE: frozenset({"numbers"}),
    SafetyMsg.CONTACT_LANDLINE: frozenset({"number"}),
    SafetyMsg.CONTACT_OPTION: frozenset({"contact", "option"}),
    SafetyMsg.CONTACT_CALLBACK: frozenset({"number"}),
    SafetyMsg.CONTACT_EITHER: frozenset({"first", "second"}),
}


# Messages that hold a count, and the placeholder whose number picks the plural form.
# Each needs its plural forms in the pack (by the locale's CLDR rules, "=0" optional).
COUNTS: dict[Msg, str] = {
    NoContactMsg.NC_STATUS: "days",
    NoContactMsg.NC_LONGEST: "longest",
    NoContactMsg.NC_RESTARTED: "longest",
    NoContactMsg.NC_PRACTICAL_COUNT: "practical",
    SettingsMsg.KEEP_DAYS: "days",
    DataMsg.WIPE_DONE: "deleted",
    DataMsg.WIPE_PARTLY: "kept",
    HistoryMsg.HISTORY_PAUSES: "paused",
    HistoryMsg.HISTORY_PASSED: "passed",
    PauseMsg.BREATH_STEP_IN: "seconds",
    PauseMsg.BREATH_STEP_HOLD: "seconds",
    PauseMsg.BREATH_STEP_OUT: "seconds",
    PauseMsg.BREATH_SEQUENCE: "rounds",
}
# A placeholder of one of these names is a count wherever it appears: the check makes
# sure every message using one is listed in COUNTS (one count per message). Limits
# (a fixed number of characters) and "Round 1 of 4" are numbers, not counts of a noun.
COUNT_NAMES = frozenset({"days", "longest", "practical", "deleted", "kept", "paused", "passed"})
# Where one of those names is not a count: "{days}" as in "mon-fri".
NOT_COUNTS = frozenset(
    {
        (SettingsMsg.SETTINGS_MENU, "days"),
        (ReminderMsg.REMINDER_WHEN, "days"),
        (AnswersMsg.TIME_DAYS_TOO, "days"),
    }
)


def placeholders_for(message: Msg) -> frozenset[str]:
    return PLACEHOLDERS.get(message, frozenset())
