"""What each message's template may fill in, and which of those numbers count a noun.

`steady content check` fails when a message uses placeholders other than the ones listed
here, or holds a count without its plural forms.
"""

from __future__ import annotations

from bot.content_pack.ids import Msg

PLACEHOLDERS: dict[Msg, frozenset[str]] = {
    Msg.REMINDER_HELP: frozenset({"themes"}),
    Msg.REMINDER_BAD_TIME: frozenset({"given"}),
    Msg.REMINDER_UNKNOWN_WORD: frozenset({"given"}),
    Msg.REMINDER_BAD_THEME: frozenset({"themes"}),
    Msg.REMINDER_TEXT_TOO_LONG: frozenset({"limit"}),
    Msg.REMINDER_NEEDS_NUMBER: frozenset({"action"}),
    Msg.REMINDER_TOO_MANY: frozenset({"limit"}),
    Msg.REMINDER_ADDED: frozenset({"number", "what", "when"}),
    Msg.REMINDER_LIST_ITEM: frozenset({"number", "state", "what", "when"}),
    Msg.REMINDER_NOT_FOUND: frozenset({"number"}),
    Msg.REMINDER_PAUSED: frozenset({"number"}),
    Msg.REMINDER_RESUMED: frozenset({"next", "number"}),
    Msg.REMINDER_DELETED: frozenset({"number"}),
    Msg.REMINDER_WHEN: frozenset({"days", "time", "timezone"}),
    Msg.REMINDER_WHAT_THEME: frozenset({"theme"}),
    Msg.REMINDER_LOST_PERMISSION: frozenset({"number", "when"}),
    Msg.ONBOARDING_DONE: frozenset({"time", "timezone"}),
    # Time zones by place, times as people type them, too long
    Msg.TIMEZONE_CONFIRM: frozenset({"place", "time"}),
    Msg.TIMEZONE_CHOICE: frozenset({"place", "time"}),
    Msg.TIME_BOTH_FORMS: frozenset({"time", "time_12h"}),
    Msg.TIMES_SAVED: frozenset({"times"}),
    Msg.LONG_REWRITE: frozenset({"limit"}),
    Msg.SETTINGS_MENU: frozenset(
        {"country", "timezone", "times", "days", "quiet", "status", "discreet", "keep"}
    ),
    Msg.KEEP_DAYS: frozenset({"days"}),
    Msg.BAD_KEEP: frozenset({"limit"}),
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
    Msg.SAFETY_EMERGENCY: frozenset({"number", "country"}),
    Msg.SAFETY_RESOURCE_LINE: frozenset({"name", "contact", "hours"}),
    Msg.SAFETY_DIRECTORY: frozenset({"name", "url"}),
    # Crisis reply layout
    Msg.SAFETY_EMERGENCY_POLICE_FIRST: frozenset({"police", "ambulance", "country"}),
    Msg.SAFETY_EMERGENCY_AMBULANCE_FIRST: frozenset({"police", "ambulance", "country"}),
    Msg.SAFETY_EMERGENCY_ALSO: frozenset({"number"}),
    Msg.SAFETY_EMERGENCY_SMS: frozenset({"number"}),
    Msg.SAFETY_MORE_INTRO: frozenset({"country"}),
    Msg.SAFETY_COUNTRY_SAVED: frozenset({"country"}),
    Msg.BREATH_FRAME: frozenset({"phase", "seconds", "round", "rounds"}),
    Msg.BREATH_STEP_IN: frozenset({"seconds"}),
    Msg.BREATH_STEP_HOLD: frozenset({"seconds"}),
    Msg.BREATH_STEP_OUT: frozenset({"seconds"}),
    Msg.BREATH_SEQUENCE: frozenset({"breath", "rounds"}),
    Msg.EXERCISE_STEP: frozenset({"number", "total", "text"}),
    Msg.REASON_TOO_LONG: frozenset({"limit"}),
    Msg.DRAFT_TOO_LONG: frozenset({"limit"}),
    Msg.WAIT_STARTED: frozenset({"time"}),
    Msg.REASONS_FULL: frozenset({"limit"}),
    Msg.NC_STATUS: frozenset({"days"}),
    Msg.NC_LONGEST: frozenset({"longest"}),
    Msg.NC_PRACTICAL_COUNT: frozenset({"practical"}),
    Msg.NC_RESTARTED: frozenset({"longest"}),
    Msg.ASK_COUNTRY_SUGGESTED: frozenset({"country"}),
    Msg.COUNTRY_SAVED: frozenset({"country"}),
    Msg.HISTORY_PAUSES: frozenset({"paused"}),
    Msg.HISTORY_PASSED: frozenset({"passed"}),
    Msg.WIPE_DONE: frozenset({"deleted"}),
    Msg.WIPE_PARTLY: frozenset({"kept"}),
    Msg.CT_PRESSURE_REPLY: frozenset({"emergency"}),
    Msg.CT_EMERGENCY_NUMBER: frozenset({"number", "country"}),
    # /plan
    Msg.PLAN_TOO_LONG: frozenset({"limit"}),
    Msg.PLAN_LINES_OFFER: frozenset({"country", "lines"}),
    Msg.PLAN_EMERGENCY_LINE: frozenset({"number", "country"}),
    Msg.PLAN_EMERGENCY_TWO: frozenset({"police", "ambulance", "country"}),
    Msg.PLAN_REASONS_SHOW: frozenset({"reasons"}),
    Msg.PLAN_PART_MENU: frozenset({"title"}),
    Msg.PLAN_STEP_OF: frozenset({"n"}),
    # The caring check
    Msg.CARING_SCHEDULED: frozenset({"time"}),
    Msg.CARING_SCHEDULED_ON: frozenset({"date", "time"}),
    # /dates
    Msg.DATES_ITEM_YEARLY: frozenset({"number", "label", "date"}),
    Msg.DATES_ITEM_ONCE: frozenset({"number", "label", "date"}),
    Msg.DATES_FULL: frozenset({"limit"}),
    Msg.DATES_LABEL_TOO_LONG: frozenset({"limit"}),
    Msg.DATES_ADDED: frozenset({"date"}),
    Msg.DATES_ADDED_EVENING: frozenset({"date"}),
    Msg.DATES_ADDED_MORNING: frozenset({"date"}),
    Msg.DATES_ADDED_NONE: frozenset({"date"}),
    Msg.DATES_EDIT_MENU: frozenset({"item"}),
    Msg.DATES_YOUR_WORDS: frozenset({"label"}),
    Msg.DATES_NO_SUCH_DAY: frozenset({"month", "last"}),
    Msg.DATES_DATE_KEPT: frozenset({"date"}),
    # Typed answers and no dead ends
    Msg.COUNTRY_CODE_CONFIRM: frozenset({"country"}),
    Msg.COUNTRY_ZONE_MISMATCH: frozenset({"country", "zone_country"}),
    Msg.ZONE_COUNTRY_MISMATCH: frozenset({"country", "zone_country"}),
    Msg.MISMATCH_KEPT: frozenset({"country"}),
    Msg.ZONE_SAVED: frozenset({"place"}),
    Msg.CARING_SCHEDULED_TODAY: frozenset({"time"}),
    Msg.PLACE_DID_YOU_MEAN: frozenset({"place", "time"}),
    Msg.TIME_DAYS_TOO: frozenset({"days"}),
    # The crisis reply in every screened language
    Msg.SAFETY_OR: frozenset({"first", "second"}),
    Msg.SAFETY_UNCONFIRMED: frozenset({"number", "country"}),
    Msg.SAFETY_UNCONFIRMED_POLICE_FIRST: frozenset({"police", "ambulance", "country"}),
    Msg.SAFETY_UNCONFIRMED_AMBULANCE_FIRST: frozenset({"police", "ambulance", "country"}),
    Msg.SAFETY_UNCONFIRMED_FALLBACK: frozenset({"numbers"}),
    Msg.SAFETY_UNCONFIRMED_ALSO: frozenset({"number"}),
    Msg.SAFETY_LINE_LANGUAGES: frozenset({"languages"}),
    Msg.SAFETY_GLANCE: frozenset({"country", "emergency", "helpline"}),
    Msg.SAFETY_GLANCE_ONLY: frozenset({"country", "emergency"}),
    Msg.SAFETY_GLANCE_EMERGENCY: frozenset({"number"}),
    Msg.SAFETY_GLANCE_EMERGENCY_TWO: frozenset({"police", "ambulance"}),
    Msg.SAFETY_GLANCE_UNCONFIRMED: frozenset({"emergency"}),
    Msg.SAFETY_GLANCE_HELPLINE: frozenset({"name", "number"}),
    Msg.CONTACT_CALL: frozenset({"numbers"}),
    Msg.CONTACT_TEXT: frozenset({"numbers"}),
    Msg.CONTACT_CALL_OR_TEXT: frozenset({"numbers"}),
    Msg.CONTACT_TEXT_KEYWORD: frozenset({"keyword", "number"}),
    Msg.CONTACT_WHATSAPP: frozenset({"numbers"}),
    Msg.CONTACT_FREE: frozenset({"numbers"}),
    Msg.CONTACT_LANDLINE: frozenset({"number"}),
    Msg.CONTACT_OPTION: frozenset({"contact", "option"}),
    Msg.CONTACT_CALLBACK: frozenset({"number"}),
    Msg.CONTACT_EITHER: frozenset({"first", "second"}),
}


# Messages that hold a count, and the placeholder whose number picks the plural form.
# Each needs its plural forms in the pack (by the locale's CLDR rules, "=0" optional).
COUNTS: dict[Msg, str] = {
    Msg.NC_STATUS: "days",
    Msg.NC_LONGEST: "longest",
    Msg.NC_RESTARTED: "longest",
    Msg.NC_PRACTICAL_COUNT: "practical",
    Msg.KEEP_DAYS: "days",
    Msg.WIPE_DONE: "deleted",
    Msg.WIPE_PARTLY: "kept",
    Msg.HISTORY_PAUSES: "paused",
    Msg.HISTORY_PASSED: "passed",
    Msg.BREATH_STEP_IN: "seconds",
    Msg.BREATH_STEP_HOLD: "seconds",
    Msg.BREATH_STEP_OUT: "seconds",
    Msg.BREATH_SEQUENCE: "rounds",
}
# A placeholder of one of these names is a count wherever it appears: the check makes
# sure every message using one is listed in COUNTS (one count per message). Limits
# (a fixed number of characters) and "Round 1 of 4" are numbers, not counts of a noun.
COUNT_NAMES = frozenset({"days", "longest", "practical", "deleted", "kept", "paused", "passed"})
# Where one of those names is not a count: "{days}" as in "mon-fri".
NOT_COUNTS = frozenset(
    {(Msg.SETTINGS_MENU, "days"), (Msg.REMINDER_WHEN, "days"), (Msg.TIME_DAYS_TOO, "days")}
)


def placeholders_for(message: Msg) -> frozenset[str]:
    return PLACEHOLDERS.get(message, frozenset())
