"""What can happen to the bot, as frozen values that any adapter can build."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Address:
    """Where an event came from and where its replies go.

    `user_id` is the platform's id of the person; `chat_id` the conversation
    (equal to `user_id` in a private chat on most platforms).
    """

    platform: str
    chat_id: str
    user_id: str
    is_group: bool = False


@dataclass(frozen=True, slots=True)
class TextMessage:
    """Words a user wrote: a message, a caption under a photo, video or file, or (with
    `edited`) the new text of a message they changed. An edit is screened for safety
    like any text, but answers nothing else: it was never an answer to a question."""

    address: Address
    text: str
    language_code: str | None = None
    edited: bool = False


@dataclass(frozen=True, slots=True)
class CommandIssued:
    """A `/name args` message. `name` is lower case without the slash or `@bot`.

    `admin` is the platform's own word that the sender may manage this group
    (a Telegram chat administrator, a Discord member with Manage Channels).
    Adapters ask the platform only for commands that need it; False otherwise.
    """

    address: Address
    name: str
    args: str = ""
    language_code: str | None = None
    admin: bool = False


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A tap on a button. `data` is whatever the button carried: never trusted.
    `language_code` is the app's language, as with a message (a stranger's first tap)."""

    address: Address
    data: str
    language_code: str | None = None


@dataclass(frozen=True, slots=True)
class CheckInDue:
    """The scheduler says a check-in is due for this user.

    It carries what starting the check-in needs, so thousands due in the same
    minute cost no extra reads.
    """

    address: Address
    due_at: datetime
    user_row_id: int
    locale: str
    local_time: datetime  # the due instant on the user's own clock: picks a fitting opening
    discreet: bool = True  # the user's discreet mode: openings then read like an app
    closes_question: bool = False  # another question was open: the check-in closes it


Event = TextMessage | CommandIssued | ButtonPressed | CheckInDue
