"""/nocontact: the count of days without contact."""

from __future__ import annotations

from enum import StrEnum


class NoContactMsg(StrEnum):
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
