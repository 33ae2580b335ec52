"""What the code needs from the pack besides messages: its commands and the exercises a flow
starts by id. `steady content check` fails when the pack lacks one of them.
"""

from __future__ import annotations

from enum import StrEnum


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
