"""The user's data: /mydata, /forget and /wipe."""

from __future__ import annotations

from enum import StrEnum


class DataMsg(StrEnum):
    FORGET_CONFIRM = "forget.confirm"
    FORGET_YES = "forget.yes"
    FORGET_NO = "forget.no"
    FORGET_DONE = "forget.done"
    FORGET_KEPT = "forget.kept"
    FORGET_NOTHING = "forget.nothing"

    MYDATA_INTRO = "mydata.intro"
    MYDATA_NOTHING = "mydata.nothing"

    WIPE_DONE = "wipe.done"
    WIPE_PARTLY = "wipe.partly"
    WIPE_UNAVAILABLE = "wipe.unavailable"
