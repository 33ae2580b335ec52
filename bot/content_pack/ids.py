"""Ids of every message the code shows, one enum per topic (`messages/<topic>.py`).

The words live in content/<locale>/messages*.yaml, keyed by these values.
`steady content check` fails when the pack lacks one of these or has one the code
does not know (placeholders.py lists what each may fill in).
"""

from __future__ import annotations

from typing import TypeAlias

from bot.content_pack.messages.affirm import AffirmMsg
from bot.content_pack.messages.answers import AnswersMsg
from bot.content_pack.messages.caring import CaringMsg
from bot.content_pack.messages.checkin import CheckinMsg
from bot.content_pack.messages.contacted import ContactedMsg
from bot.content_pack.messages.dates import DatesMsg
from bot.content_pack.messages.general import GeneralMsg
from bot.content_pack.messages.history import HistoryMsg
from bot.content_pack.messages.no_contact import NoContactMsg
from bot.content_pack.messages.onboarding import OnboardingMsg
from bot.content_pack.messages.pause import PauseMsg
from bot.content_pack.messages.plan import PlanMsg
from bot.content_pack.messages.reasons import ReasonsMsg
from bot.content_pack.messages.reminders import ReminderMsg
from bot.content_pack.messages.safety import SafetyMsg
from bot.content_pack.messages.settings import SettingsMsg
from bot.content_pack.messages.themes import ThemeMsg
from bot.content_pack.messages.your_data import DataMsg

__all__ = [
    "ALL_MESSAGES",
    "PLATFORMS",
    "AffirmMsg",
    "AnswersMsg",
    "CaringMsg",
    "CheckinMsg",
    "ContactedMsg",
    "DataMsg",
    "DatesMsg",
    "GeneralMsg",
    "HistoryMsg",
    "Msg",
    "NoContactMsg",
    "OnboardingMsg",
    "PauseMsg",
    "PlanMsg",
    "ReasonsMsg",
    "ReminderMsg",
    "SafetyMsg",
    "SettingsMsg",
    "ThemeMsg",
    "message_id",
]

# An enum with members cannot be extended, and one enum for every message outgrew its
# module, so each topic has its own and a message id is a member of any of them. `Msg`
# works in annotations and in isinstance; iterate ALL_MESSAGES, look a value up with
# message_id.
Msg: TypeAlias = (
    OnboardingMsg
    | SettingsMsg
    | AnswersMsg
    | CheckinMsg
    | HistoryMsg
    | PauseMsg
    | ReasonsMsg
    | NoContactMsg
    | ContactedMsg
    | SafetyMsg
    | CaringMsg
    | PlanMsg
    | DatesMsg
    | ReminderMsg
    | AffirmMsg
    | ThemeMsg
    | DataMsg
    | GeneralMsg
)

ALL_MESSAGES: tuple[Msg, ...] = (
    *OnboardingMsg,
    *SettingsMsg,
    *AnswersMsg,
    *CheckinMsg,
    *HistoryMsg,
    *PauseMsg,
    *ReasonsMsg,
    *NoContactMsg,
    *ContactedMsg,
    *SafetyMsg,
    *CaringMsg,
    *PlanMsg,
    *DatesMsg,
    *ReminderMsg,
    *AffirmMsg,
    *ThemeMsg,
    *DataMsg,
    *GeneralMsg,
)

_BY_VALUE: dict[str, Msg] = {message.value: message for message in ALL_MESSAGES}


def message_id(value: str) -> Msg | None:
    """The message whose pack key is `value`, or None when the code knows no such message."""
    return _BY_VALUE.get(value)


# Platforms a message may have its own wording for (`message.id@platform`).
PLATFORMS = frozenset({"telegram", "discord", "console"})
