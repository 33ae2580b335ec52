"""The short name of every flow, as stored in a user's position and carried in button data.

The values are stored: changing one strands every open step and every button already sent.
"""

from __future__ import annotations

from enum import StrEnum


class FlowName(StrEnum):
    ONBOARDING = "ob"
    CHECKIN = "ci"
    SETTINGS = "st"
    FORGET = "fg"
    PAUSE = "pa"
    CONTACTED = "ct"
    REASONS = "rs"
    NO_CONTACT = "nc"
    AFFIRM = "af"
    PLAN = "pl"
    DATES = "hd"
