"""The shape of each content file, checked by pydantic."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

# The smallest message limit of the platforms we serve (Discord: 2,000 characters).
MAX_MESSAGE_CHARS = 2000
MAX_BUTTON_LABEL_CHARS = 40
MAX_COMMAND_DESCRIPTION_CHARS = 100  # Discord's limit for slash command descriptions

ItemId = Annotated[
    str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*(-[a-z0-9_]+)*$", max_length=48)
]
LocaleCode = Annotated[str, StringConstraints(pattern=r"^[a-z]{2,3}(-[a-z0-9]{2,8})?$")]


class Theme(StrEnum):
    """The themes of the content brief, in its order."""

    CLOSURE = "closure"
    GUILT = "guilt"
    DISCOMFORT = "discomfort"
    BOND_FORMING = "bond_forming"
    TWO_TRUTHS = "two_truths"
    GRIEF = "grief"
    WHOLE_PICTURE = "whole_picture"
    PAUSE = "pause"
    COST = "cost"
    PATTERNS = "patterns"
    BODY = "body"
    BOUNDARIES = "boundaries"
    REBUILD = "rebuild"
    SUPPORT = "support"
    LAYERS = "layers"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _clean(text: str) -> str:
    stripped = text.strip()
    if not stripped:
        raise ValueError("text is empty")
    return stripped


class Affirmation(_Strict):
    id: ItemId
    theme: Theme
    text: Annotated[str, StringConstraints(max_length=400)]

    _strip = field_validator("text")(_clean)


class Opening(_Strict):
    id: ItemId
    time_of_day: Literal["morning", "afternoon", "evening", "any"]
    text: Annotated[str, StringConstraints(max_length=80)]

    _strip = field_validator("text")(_clean)


ReplyCategory = Literal["hard_day", "middle_day", "good_day", "strong_urge"]


class CheckInReply(_Strict):
    """What Steady says after a check-in, chosen by how the day went."""

    id: ItemId
    category: ReplyCategory
    text: Annotated[str, StringConstraints(max_length=400)]

    _strip = field_validator("text")(_clean)


class CommandInfo(_Strict):
    name: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,31}$")]
    description: Annotated[
        str, StringConstraints(min_length=3, max_length=MAX_COMMAND_DESCRIPTION_CHARS)
    ]


class AffirmationsFile(_Strict):
    locale: LocaleCode
    affirmations: list[Affirmation] = Field(min_length=1)


class OpeningsFile(_Strict):
    locale: LocaleCode
    openings: list[Opening] = Field(min_length=1)


class CheckInRepliesFile(_Strict):
    locale: LocaleCode
    checkin_replies: list[CheckInReply] = Field(min_length=1)

    @field_validator("checkin_replies")
    @classmethod
    def _every_category(cls, replies: list[CheckInReply]) -> list[CheckInReply]:
        # Two per category at least: "never the same twice in a row" needs a choice.
        for category in ("hard_day", "middle_day", "good_day", "strong_urge"):
            if sum(reply.category == category for reply in replies) < 2:
                raise ValueError(f"category {category} needs at least two replies")
        return replies


class CommandsFile(_Strict):
    locale: LocaleCode
    commands: list[CommandInfo] = Field(min_length=1)


class MessagesFile(_Strict):
    locale: LocaleCode
    messages: dict[str, Annotated[str, StringConstraints(max_length=MAX_MESSAGE_CHARS)]]

    @field_validator("messages")
    @classmethod
    def _no_empty(cls, messages: dict[str, str]) -> dict[str, str]:
        for message_id, text in messages.items():
            if not text.strip():
                raise ValueError(f"message {message_id} is empty")
        return {message_id: text.strip() for message_id, text in messages.items()}
