"""The pause's steps, and the button rows more than one part of it shows.

Step values are stored in a user's position and travel in button data: never change
them. The flow is `bot.flows.pause`; its exercises `bot.flows.pause_exercises`.
"""

from __future__ import annotations

from enum import StrEnum

from bot.content_pack.ids import PauseMsg
from bot.flows.context import Choice


class PauseStep(StrEnum):
    OFFER = "offer"
    MENU = "menu"
    BPICK = "bpick"
    GPICK = "gpick"
    GSTEP = "gstep"
    AFTER = "after"
    REMEMBER = "remember"
    REASON = "reason"
    WRITE = "write"
    KEEP = "keep"
    WAIT = "wait"
    FOLLOWUP = "followup"
    NEED = "need"
    CHECKING = "checking"


# After an exercise: another of its kind, or back to the menu.
AFTER = ((Choice("again", PauseMsg.PAUSE_ANOTHER), Choice("back", PauseMsg.PAUSE_BACK)),)
BACK_ROW = ((Choice("back", PauseMsg.PAUSE_BACK),),)
