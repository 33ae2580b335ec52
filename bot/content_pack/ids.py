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
    TIME_BOTH_FORMS = "time.both_forms"
    BAD_TIME_12H = "onboarding.bad_time_12h"
    BAD_TIMES_12H = "settings.bad_times_12h"
    BAD_QUIET_12H = "settings.bad_quiet_12h"
    TIMES_SAVED = "settings.times_saved"

    # Too long: keep the first part, or write it shorter
    LONG_KEEP_FIRST = "general.long_keep_first"
    LONG_WRITE_SHORTER = "general.long_write_shorter"
    LONG_REWRITE = "general.long_rewrite"

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

    # /affirm by theme: theme groups, then themes, with plain labels.
    AFFIRM_PICK_GROUP = "affirm.pick_group"
    AFFIRM_PICK_THEME = "affirm.pick_theme"
    AFFIRM_ANY = "affirm.any"
    AFFIRM_ANOTHER = "affirm.another"
    AFFIRM_BY_THEME = "affirm.by_theme"
    AFFIRM_GROUP_FEELINGS = "affirm.group_feelings"
    AFFIRM_GROUP_BOND = "affirm.group_bond"
    AFFIRM_GROUP_DAYS = "affirm.group_days"
    AFFIRM_GROUP_STEPS = "affirm.group_steps"
    # A plain label for every affirmation theme (buttons in /affirm).
    THEME_CLOSURE = "theme.closure"
    THEME_GUILT = "theme.guilt"
    THEME_DISCOMFORT = "theme.discomfort"
    THEME_BOND_FORMING = "theme.bond_forming"
    THEME_TWO_TRUTHS = "theme.two_truths"
    THEME_GRIEF = "theme.grief"
    THEME_WHOLE_PICTURE = "theme.whole_picture"
    THEME_PAUSE = "theme.pause"
    THEME_COST = "theme.cost"
    THEME_PATTERNS = "theme.patterns"
    THEME_BODY = "theme.body"
    THEME_BOUNDARIES = "theme.boundaries"
    THEME_REBUILD = "theme.rebuild"
    THEME_SUPPORT = "theme.support"
    THEME_LAYERS = "theme.layers"
    THEME_STILL_THERE = "theme.still_there"
    THEME_HARD_DATES = "theme.hard_dates"
    THEME_ANGER = "theme.anger"
    THEME_NUMBNESS = "theme.numbness"
    THEME_LONELINESS = "theme.loneliness"
    THEME_SELF_DOUBT = "theme.self_doubt"
    THEME_SHARED_CONTACT = "theme.shared_contact"
    THEME_PROMISES = "theme.promises"
    THEME_CHECKING = "theme.checking"
    THEME_FLASHBACKS = "theme.flashbacks"
    THEME_SLEEP = "theme.sleep"
    THEME_DISBELIEVED = "theme.disbelieved"
    THEME_DATING = "theme.dating"
    THEME_PRACTICAL = "theme.practical"

    CANCEL_DONE = "cancel.done"
    CANCEL_NOTHING = "cancel.nothing"

    SAFETY_CRISIS_INTRO = "safety.crisis_intro"
    SAFETY_DANGER_INTRO = "safety.danger_intro"
    SAFETY_EMERGENCY = "safety.emergency"
    SAFETY_EMERGENCY_GENERIC = "safety.emergency_generic"
    SAFETY_RESOURCE_LINE = "safety.resource_line"
    SAFETY_NO_COUNTRY = "safety.no_country"
    SAFETY_DIRECTORY = "safety.directory"
    SAFETY_GROUP_PUBLIC = "safety.group_public"
    SAFETY_GROUP_FALLBACK = "safety.group_fallback"
    SAFETY_MISREAD_BUTTON = "safety.misread_button"
    SAFETY_MISREAD_REPLY = "safety.misread_reply"
    SAFETY_SHOW_BUTTON = "safety.show_button"
    # Crisis reply layout: numbers by service, hope, more helplines, the safety card
    SAFETY_EMERGENCY_POLICE_FIRST = "safety.emergency_police_first"
    SAFETY_EMERGENCY_AMBULANCE_FIRST = "safety.emergency_ambulance_first"
    SAFETY_EMERGENCY_ALSO = "safety.emergency_also"
    SAFETY_EMERGENCY_SMS = "safety.emergency_sms"
    SAFETY_NOT_SURE = "safety.not_sure"
    SAFETY_HOPE_CRISIS = "safety.hope_crisis"
    SAFETY_HOPE_DANGER = "safety.hope_danger"
    SAFETY_MORE_BUTTON = "safety.more_button"
    SAFETY_MORE_INTRO = "safety.more_intro"
    SAFETY_CARD_BUTTON = "safety.card_button"
    SAFETY_CARD = "safety.card"
    SAFETY_COUNTRY_SAVED = "safety.country_saved"
    # The graded reply: a short check when crisis words are softened by their context.
    SAFETY_CHECK = "safety.check"
    SAFETY_CHECK_SAFE_BUTTON = "safety.check_safe_button"
    SAFETY_CHECK_HELP_BUTTON = "safety.check_help_button"
    SAFETY_CHECK_SAFE_REPLY = "safety.check_safe_reply"
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
    CHECKIN_URGE_NOW = "checkin.urge_now"
    # Still there, or went back: a check-in answer and a pause path, with no forecast.
    CHECKIN_STILL_THERE = "checkin.still_there"
    STILL_THERE_INTRO = "checkin.still_there_intro"
    PAUSE_STILL_THERE = "pause.still_there"
    PAUSE_STILL_THERE_REPLY = "pause.still_there_reply"
    # The urge to check on them (a profile, a story, unblocking), not to write.
    PAUSE_CHECKING = "pause.checking"
    PAUSE_CHECKING_REPLY = "pause.checking_reply"
    CHECKING_PASSED = "pause.checking_passed"
    # The pause menu shows a few choices first and the rest behind one button.
    PAUSE_MORE = "pause.more"
    PAUSE_MORE_MENU = "pause.more_menu"
    REASONS_LIST = "reasons.list"
    REASONS_EMPTY = "reasons.empty"
    REASONS_ADD = "reasons.add"
    REASONS_REMOVE = "reasons.remove"
    REASONS_DONE = "reasons.done"
    REASONS_ASK = "reasons.ask"
    REASONS_ADDED = "reasons.added"
    REASONS_REMOVED = "reasons.removed"
    REASONS_PICK_REMOVE = "reasons.pick_remove"
    REASONS_CLOSED = "reasons.closed"
    REASONS_FULL = "reasons.full"
    # Kept drafts, readable: shown from /reasons.
    REASONS_DRAFTS = "reasons.drafts"
    DRAFTS_LIST = "reasons.drafts_list"
    DRAFTS_EMPTY = "reasons.drafts_empty"
    DRAFTS_REMOVE = "reasons.drafts_remove"
    DRAFTS_PICK_REMOVE = "reasons.drafts_pick_remove"
    DRAFTS_REMOVED = "reasons.drafts_removed"
    DRAFTS_BACK = "reasons.drafts_back"
    NC_OFF = "nocontact.off"
    NC_START = "nocontact.start"
    NC_RESET = "nocontact.reset"
    NC_STOP = "nocontact.stop"
    NC_STATUS = "nocontact.status"
    # Practical contact (a handover, a bill) is counted apart and never resets the count.
    NC_LONGEST = "nocontact.longest"
    NC_PRACTICAL = "nocontact.practical"
    NC_PRACTICAL_NOTED = "nocontact.practical_noted"
    NC_PRACTICAL_COUNT = "nocontact.practical_count"
    NC_STARTED = "nocontact.started"
    NC_RESTARTED = "nocontact.restarted"
    NC_STOPPED = "nocontact.stopped"
    CT_OFFER = "contacted.offer"
    CT_INTRO = "contacted.intro"
    CT_Q_KIND = "contacted.q_kind"
    CT_PRACTICAL = "contacted.practical"
    CT_EMOTIONAL = "contacted.emotional"
    CT_UNSURE = "contacted.unsure"
    CT_Q_TIMING = "contacted.q_timing"
    CT_CAN_WAIT = "contacted.can_wait"
    CT_SOON = "contacted.soon"
    CT_Q_PROTECT = "contacted.q_protect"
    CT_PEACE = "contacted.peace"
    CT_BOUNDARIES = "contacted.boundaries"
    CT_TIME = "contacted.time"
    CT_SAFETY = "contacted.safety"
    # They say they changed, apologise, send gifts, or threaten to hurt themselves.
    CT_PRESSURE = "contacted.pressure"
    CT_PRESSURE_REPLY = "contacted.pressure_reply"
    CT_EMERGENCY_NUMBER = "contacted.emergency_number"
    CT_EMERGENCY_GENERIC = "contacted.emergency_generic"
    CT_SUMMARY = "contacted.summary"
    CT_ADVICE_PRACTICAL = "contacted.advice_practical"
    CT_ADVICE_EMOTIONAL = "contacted.advice_emotional"
    CT_ADVICE_UNSURE = "contacted.advice_unsure"
    CT_ADVICE_WAIT = "contacted.advice_wait"
    CT_ADVICE_SOON = "contacted.advice_soon"
    CT_ADVICE_PEACE = "contacted.advice_peace"
    CT_ADVICE_BOUNDARIES = "contacted.advice_boundaries"
    CT_ADVICE_TIME = "contacted.advice_time"
    CT_ADVICE_SAFETY = "contacted.advice_safety"
    ASK_COUNTRY_SUGGESTED = "onboarding.ask_country_suggested"
    ASK_COUNTRY = "onboarding.ask_country"
    BAD_COUNTRY = "onboarding.bad_country"
    COUNTRY_SAVED = "onboarding.country_saved"
    COUNTRY_SKIPPED = "onboarding.country_skipped"
    COUNTRY_OTHER = "onboarding.country_other"
    COUNTRY_SKIP = "onboarding.country_skip"
    SETTINGS_CHANGE_COUNTRY = "settings.change_country"
    SETTINGS_ASK_TIMEZONE = "settings.ask_timezone"
    HISTORY_PAUSES = "history.pauses"
    HISTORY_PASSED = "history.passed"

    UNKNOWN_COMMAND = "general.unknown_command"
    UNEXPECTED_TEXT = "general.unexpected_text"
    # Unrecognised text: its two buttons (a pause, the helplines) instead of a list of commands
    UNEXPECTED_PAUSE_BUTTON = "general.unexpected_pause_button"
    UNEXPECTED_SOS_BUTTON = "general.unexpected_sos_button"
    # Stale and interrupted questions: closed after a while, shown again after an interruption
    STEP_CLOSED = "general.step_closed"
    QUESTION_AGAIN = "general.question_again"
    QUESTION_CLOSED = "general.question_closed"
    QUESTION_CLOSED_BY_CHECKIN = "general.question_closed_by_checkin"
    ANSWER_NOT_SAVED = "general.answer_not_saved"
    CONSOLE_GREETING = "general.console_greeting"
    USE_BUTTONS = "general.use_buttons"
    BUTTON_EXPIRED = "general.button_expired"
    BUTTON_NOT_YOURS = "general.button_not_yours"
    GROUP_GO_PRIVATE = "general.group_go_private"
    WIPE_DONE = "wipe.done"
    WIPE_PARTLY = "wipe.partly"
    WIPE_UNAVAILABLE = "wipe.unavailable"
    GROUP_OPEN_PRIVATE = "general.group_open_private"
    SOMETHING_WENT_WRONG = "general.something_went_wrong"
    SETTINGS_CHANGE_KEEP = "settings.change_keep"
    ASK_KEEP = "settings.ask_keep"
    KEEP_DAYS = "settings.keep_days"
    KEEP_LONGEST = "settings.keep_longest"
    BAD_KEEP = "settings.bad_keep"
    DISCORD_SENT_TO_DMS = "discord.sent_to_dms"
    DISCORD_DMS_CLOSED = "discord.dms_closed"
    # What Discord's command menu shows for /reminder's subcommands and options (100 at most).
    DISCORD_REMINDER_ADD = "discord.reminder_add"
    DISCORD_REMINDER_LIST = "discord.reminder_list"
    DISCORD_REMINDER_PAUSE = "discord.reminder_pause"
    DISCORD_REMINDER_RESUME = "discord.reminder_resume"
    DISCORD_REMINDER_DELETE = "discord.reminder_delete"
    DISCORD_OPTION_TIME = "discord.option_time"
    DISCORD_OPTION_TIMEZONE = "discord.option_timezone"
    DISCORD_OPTION_DAYS = "discord.option_days"
    DISCORD_OPTION_THEME = "discord.option_theme"
    DISCORD_OPTION_TEXT = "discord.option_text"
    DISCORD_OPTION_NUMBER = "discord.option_number"
    REMINDER_HELP = "reminder.help"
    REMINDER_ADMINS_ONLY = "reminder.admins_only"
    REMINDER_GROUPS_ONLY = "reminder.groups_only"
    REMINDER_NEEDS_TIME = "reminder.needs_time"
    REMINDER_BAD_TIME = "reminder.bad_time"
    REMINDER_NEEDS_TIMEZONE = "reminder.needs_timezone"
    REMINDER_UNKNOWN_WORD = "reminder.unknown_word"
    REMINDER_BAD_THEME = "reminder.bad_theme"
    REMINDER_THEME_OR_TEXT = "reminder.theme_or_text"
    REMINDER_TEXT_EMPTY = "reminder.text_empty"
    REMINDER_TEXT_TOO_LONG = "reminder.text_too_long"
    REMINDER_NEEDS_NUMBER = "reminder.needs_number"
    REMINDER_TOO_MANY = "reminder.too_many"
    REMINDER_ADDED = "reminder.added"
    REMINDER_LIST_EMPTY = "reminder.list_empty"
    REMINDER_LIST_HEADER = "reminder.list_header"
    REMINDER_LIST_ITEM = "reminder.list_item"
    REMINDER_NOT_FOUND = "reminder.not_found"
    REMINDER_PAUSED = "reminder.paused"
    REMINDER_RESUMED = "reminder.resumed"
    REMINDER_DELETED = "reminder.deleted"
    REMINDER_WHEN = "reminder.when"
    REMINDER_WHAT_ANY = "reminder.what_any"
    REMINDER_WHAT_THEME = "reminder.what_theme"
    REMINDER_WHAT_TEXT = "reminder.what_text"
    REMINDER_STATE_ACTIVE = "reminder.state_active"
    REMINDER_STATE_PAUSED = "reminder.state_paused"
    REMINDER_STATE_NO_PERMISSION = "reminder.state_no_permission"
    REMINDER_CHECKIN_BUTTON = "reminder.checkin_button"
    REMINDER_LOST_PERMISSION = "reminder.lost_permission"
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

    # /plan: a safety plan the user writes for themselves (content/en/messages_plan.yaml)
    PLAN_INTRO = "plan.intro"
    PLAN_ASK_SIGNS = "plan.ask_signs"
    PLAN_ASK_ALONE = "plan.ask_alone"
    PLAN_ASK_DISTRACT = "plan.ask_distract"
    PLAN_ASK_PEOPLE = "plan.ask_people"
    PLAN_ASK_PROS = "plan.ask_pros"
    PLAN_ASK_SAFER = "plan.ask_safer"
    PLAN_TITLE_SIGNS = "plan.title_signs"
    PLAN_TITLE_ALONE = "plan.title_alone"
    PLAN_TITLE_DISTRACT = "plan.title_distract"
    PLAN_TITLE_PEOPLE = "plan.title_people"
    PLAN_TITLE_HELP = "plan.title_help"
    PLAN_TITLE_SAFER = "plan.title_safer"
    PLAN_TITLE_REASONS = "plan.title_reasons"
    PLAN_SKIP = "plan.skip"
    PLAN_BACK = "plan.back"
    PLAN_NEXT = "plan.next"
    PLAN_TOO_LONG = "plan.too_long"
    PLAN_LINES_OFFER = "plan.lines_offer"
    PLAN_LINES_NONE = "plan.lines_none"
    PLAN_LINES_KEEP = "plan.lines_keep"
    PLAN_LINES_KEPT = "plan.lines_kept"
    PLAN_EMERGENCY_LINE = "plan.emergency_line"
    PLAN_EMERGENCY_TWO = "plan.emergency_two"
    PLAN_REASONS_SHOW = "plan.reasons_show"
    PLAN_REASONS_EMPTY = "plan.reasons_empty"
    PLAN_ASK_REVIEW = "plan.ask_review"
    PLAN_REVIEW_YES = "plan.review_yes"
    PLAN_REVIEW_NO = "plan.review_no"
    PLAN_SAVED = "plan.saved"
    PLAN_SAVED_NOTHING = "plan.saved_nothing"
    PLAN_SAVED_REASONS_ONLY = "plan.saved_reasons_only"
    PLAN_SEE = "plan.see"
    PLAN_OPEN_REASONS = "plan.open_reasons"
    PLAN_DONE = "plan.done"
    PLAN_CLOSED = "plan.closed"
    PLAN_HEADING = "plan.heading"
    PLAN_PART_EMPTY = "plan.part_empty"
    PLAN_CHANGE = "plan.change"
    PLAN_NOTES_ON = "plan.notes_on"
    PLAN_NOTES_OFF = "plan.notes_off"
    PLAN_DELETE = "plan.delete"
    PLAN_PICK = "plan.pick"
    PLAN_PART_MENU = "plan.part_menu"
    PLAN_REWRITE = "plan.rewrite"
    PLAN_REWRITE_OWN = "plan.rewrite_own"
    PLAN_REMOVE_LINE = "plan.remove_line"
    PLAN_OFFER_AGAIN = "plan.offer_again"
    PLAN_CLEAR = "plan.clear"
    PLAN_PICK_LINE = "plan.pick_line"
    PLAN_PART_SAVED = "plan.part_saved"
    PLAN_PART_CLEARED = "plan.part_cleared"
    PLAN_LINE_REMOVED = "plan.line_removed"
    PLAN_DELETE_CONFIRM = "plan.delete_confirm"
    PLAN_DELETE_YES = "plan.delete_yes"
    PLAN_DELETE_NO = "plan.delete_no"
    PLAN_DELETED = "plan.deleted"
    PLAN_KEPT = "plan.kept"
    PLAN_NOTES_TURNED_ON = "plan.notes_turned_on"
    PLAN_NOTES_TURNED_OFF = "plan.notes_turned_off"
    PLAN_NOTES_STOPPED = "plan.notes_stopped"
    PLAN_REVIEW_NOTE = "plan.review_note"
    PLAN_REVIEW_GO = "plan.review_go"
    PLAN_REVIEW_LATER = "plan.review_later"
    PLAN_REVIEW_STOP = "plan.review_stop"
    PLAN_REVIEW_LATER_REPLY = "plan.review_later_reply"
    PLAN_BUTTON = "plan.button"
    PLAN_UNAVAILABLE = "plan.unavailable"
    PLAN_NONE = "plan.none"
    PLAN_CHANGE_HINT = "plan.change_hint"
    # The plan's later additions: the part number said only while writing, a plan answer
    # held past a crisis reply, words typed at the helplines offer, resuming.
    PLAN_STEP_OF = "plan.step_of"
    PLAN_CRISIS_HELD = "plan.crisis_held"
    PLAN_KEEP_WRITTEN = "plan.keep_written"
    PLAN_LINES_OWN_KEPT = "plan.lines_own_kept"
    PLAN_CONTINUE = "plan.continue"

    # /dates: hard days on the calendar (an anniversary, a court date, a handover), and the
    # extra check-ins the evening before and the morning of. The first line of those,
    # DATES_OPENING, is what a lock screen shows: it never says what the day is.
    DATES_LIST = "dates.list"
    DATES_EMPTY = "dates.empty"
    DATES_ITEM_YEARLY = "dates.item_yearly"
    DATES_ITEM_ONCE = "dates.item_once"
    DATES_ADD = "dates.add"
    DATES_EDIT = "dates.edit"
    DATES_DONE = "dates.done"
    DATES_CLOSED = "dates.closed"
    DATES_FULL = "dates.full"
    DATES_ASK_KIND = "dates.ask_kind"
    DATES_KIND_ANNIVERSARY = "dates.kind_anniversary"
    DATES_KIND_BIRTHDAY = "dates.kind_birthday"
    DATES_KIND_HOLIDAY = "dates.kind_holiday"
    DATES_KIND_LEGAL = "dates.kind_legal"
    DATES_KIND_CHILDREN = "dates.kind_children"
    DATES_KIND_OTHER = "dates.kind_other"
    DATES_ASK_DATE = "dates.ask_date"
    DATES_BAD_DATE = "dates.bad_date"
    DATES_WHICH = "dates.which"
    DATES_ASK_REPEAT = "dates.ask_repeat"
    DATES_YEARLY = "dates.yearly"
    DATES_ONCE = "dates.once"
    DATES_PAST = "dates.past"
    DATES_PAST_TYPED = "dates.past_typed"
    DATES_ASK_LABEL = "dates.ask_label"
    DATES_LABEL_TOO_LONG = "dates.label_too_long"
    DATES_ADDED = "dates.added"
    DATES_ADDED_EVENING = "dates.added_evening"
    DATES_ADDED_MORNING = "dates.added_morning"
    DATES_ADDED_NONE = "dates.added_none"
    DATES_WHILE_OFF = "dates.while_off"
    DATES_PICK = "dates.pick"
    DATES_EDIT_MENU = "dates.edit_menu"
    DATES_CHANGE_LABEL = "dates.change_label"
    DATES_CHANGE_DATE = "dates.change_date"
    DATES_MAKE_YEARLY = "dates.make_yearly"
    DATES_MAKE_ONCE = "dates.make_once"
    DATES_DELETE = "dates.delete"
    DATES_BACK = "dates.back"
    DATES_CHANGED = "dates.changed"
    DATES_DELETED = "dates.deleted"
    DATES_OPENING = "dates.opening"
    DATES_YOUR_WORDS = "dates.your_words"
    DATES_CHECKIN_ABOVE = "dates.checkin_above"
    DATES_EVE_ANNIVERSARY = "dates.eve_anniversary"
    DATES_EVE_BIRTHDAY = "dates.eve_birthday"
    DATES_EVE_HOLIDAY = "dates.eve_holiday"
    DATES_EVE_LEGAL = "dates.eve_legal"
    DATES_EVE_CHILDREN = "dates.eve_children"
    DATES_EVE_OTHER = "dates.eve_other"
    DATES_DAY_ANNIVERSARY = "dates.day_anniversary"
    DATES_DAY_BIRTHDAY = "dates.day_birthday"
    DATES_DAY_HOLIDAY = "dates.day_holiday"
    DATES_DAY_LEGAL = "dates.day_legal"
    DATES_DAY_CHILDREN = "dates.day_children"
    DATES_DAY_OTHER = "dates.day_other"
    # In discreet mode a date's check-in names no kind of day: a lock screen shows its start.
    DATES_EVE_DISCREET = "dates.eve_discreet"
    DATES_DAY_DISCREET = "dates.day_discreet"
    DATES_NO_SUCH_DAY = "dates.no_such_day"
    DATES_DATE_KEPT = "dates.date_kept"

    # Language: the question at the start of onboarding and in /settings, each locale's
    # own name for itself (the buttons), and how opening hours read in crisis replies.
    LANGUAGE_ASK = "language.ask"
    LANGUAGE_NAME = "language.name"
    LANGUAGE_SAVED = "language.saved"
    SETTINGS_CHANGE_LANGUAGE = "settings.change_language"
    HOURS_DAILY = "hours.daily"
    HOURS_VARY = "hours.vary"

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
    CT_PRESSURE_WHICH = "contacted.pressure_which"
    CT_THREAT_SELF = "contacted.threat_self"
    CT_THREAT_ME = "contacted.threat_me"
    CT_PROMISE = "contacted.promise"
    CT_THREAT_ME_REPLY = "contacted.threat_me_reply"
    CT_PROMISE_REPLY = "contacted.promise_reply"
    CT_WHAT_NOW = "contacted.what_now"
    CT_NEXT_PAUSE = "contacted.next_pause"
    CT_NEXT_SOS = "contacted.next_sos"
    CT_NEXT_DONE = "contacted.next_done"
    CT_DONE_REPLY = "contacted.done_reply"
    # The caring look-in: asked for between midnight and 05:00, "tomorrow" is later that
    # day; and the words that cancel it, typed (they are also in caring.scheduled).
    CARING_SCHEDULED_TODAY = "caring.scheduled_today"
    CARING_CANCEL_WORDS = "caring.cancel_words"
    # Times and places as people write them (content/<locale>/messages_times.yaml)
    PLACE_DID_YOU_MEAN = "places.did_you_mean"
    TIME_NOT_READ = "times.not_read"
    TIME_BAD_MINUTES = "times.bad_minutes"
    TIMES_PICK = "times.pick"
    TIME_DAYS_TOO = "times.days_too"


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

# Platforms a message may have its own wording for (`message.id@platform`).
PLATFORMS = frozenset({"telegram", "discord", "console"})


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
    SOS = "sos"
    PAUSE = "pause"
    URGE = "urge"
    REASONS = "reasons"
    NOCONTACT = "nocontact"
    CONTACTED = "contacted"
    WIPE = "wipe"
    REMINDER = "reminder"
    PLAN = "plan"
    DATES = "dates"


# Exercises a flow starts by id (the rest are offered by kind).
REQUIRED_EXERCISES: dict[str, str] = {"ground-five-senses": "grounding"}
