"""Replies any conversation may need: help, about, cancel, text or buttons we did not
expect, stale questions, groups, Discord DMs."""

from __future__ import annotations

from enum import StrEnum


class GeneralMsg(StrEnum):
    # Too long: keep the first part, or write it shorter
    LONG_KEEP_FIRST = "general.long_keep_first"
    LONG_WRITE_SHORTER = "general.long_write_shorter"
    LONG_REWRITE = "general.long_rewrite"

    HELP_INTRO = "help.intro"
    HELP_FOOTER = "help.footer"
    ABOUT = "about.text"

    CANCEL_DONE = "cancel.done"
    CANCEL_NOTHING = "cancel.nothing"

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

    GROUP_OPEN_PRIVATE = "general.group_open_private"
    SOMETHING_WENT_WRONG = "general.something_went_wrong"

    DISCORD_SENT_TO_DMS = "discord.sent_to_dms"
    DISCORD_DMS_CLOSED = "discord.dms_closed"
