"""The shape of each content file, checked by pydantic: the words (affirmations,
openings, check-in replies, commands, messages, exercises, reflections) here; detection
rules in schema_detection.py; emergency numbers, helplines and country names in
schema_crisis.py. Their models are importable from here as well, as they always were."""

from __future__ import annotations

import warnings
from enum import StrEnum
from typing import Annotated, Literal, get_args

from pydantic import Field, StringConstraints, field_validator, model_validator

from bot.content_pack.schema_base import (
    MAX_BUTTON_LABEL_CHARS,
    MAX_COMMAND_DESCRIPTION_CHARS,
    MAX_MESSAGE_CHARS,
    ItemId,
    LocaleCode,
    StrictModel,
    clean_text,
)
from bot.content_pack.schema_crisis import (
    HOURS_PATTERN,
    ContactMode,
    CountriesFile,
    CountryName,
    CountryResources,
    CrisisFallback,
    CrisisFile,
    CrisisResource,
    DialNumber,
    EmergencyNumbers,
    EmergencyNumbersFile,
    HelplineDirectory,
    Hours,
)
from bot.content_pack.schema_detection import (
    DetectionContext,
    DetectionException,
    DetectionFile,
    DetectionRule,
)

# Importable from here: the models of the other files of the pack, and the limits.
__all__ = [
    "HOURS_PATTERN",
    "MAX_BUTTON_LABEL_CHARS",
    "ContactMode",
    "CountriesFile",
    "CountryName",
    "CountryResources",
    "CrisisFallback",
    "CrisisFile",
    "CrisisResource",
    "DetectionContext",
    "DetectionException",
    "DetectionFile",
    "DetectionRule",
    "DialNumber",
    "EmergencyNumbers",
    "EmergencyNumbersFile",
    "HelplineDirectory",
    "Hours",
]


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
    STILL_THERE = "still_there"
    HARD_DATES = "hard_dates"
    ANGER = "anger"
    NUMBNESS = "numbness"
    LONELINESS = "loneliness"
    SELF_DOUBT = "self_doubt"
    SHARED_CONTACT = "shared_contact"
    PROMISES = "promises"
    CHECKING = "checking"
    FLASHBACKS = "flashbacks"
    SLEEP = "sleep"
    DISBELIEVED = "disbelieved"
    DATING = "dating"
    PRACTICAL = "practical"


class Affirmation(StrictModel):
    id: ItemId
    theme: Theme
    text: Annotated[str, StringConstraints(max_length=400)]
    # Makes sense to someone who has told us nothing yet: no assumed situation or history.
    first: bool = False

    _strip = field_validator("text")(clean_text)


# "neutral" reads like an app notification and is safe on a lock screen someone else sees;
# "warm" may be personal, and is only for users who turned discreet mode off.
OpeningRegister = Literal["neutral", "warm"]


# pydantic warns that the field "register" hides ABCMeta.register, a class-level method no
# caller of Opening uses; the field reads as the content brief names it, so only that one
# warning is silenced, only while the class is built.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "register"', category=UserWarning)

    class Opening(StrictModel):
        id: ItemId
        time_of_day: Literal["morning", "afternoon", "evening", "any"]
        register: OpeningRegister
        text: Annotated[str, StringConstraints(max_length=80)]

        _strip = field_validator("text")(clean_text)


# still_there: for someone who lives with the person, or went back.
ReplyCategory = Literal["hard_day", "middle_day", "good_day", "strong_urge", "still_there"]


class CheckInReply(StrictModel):
    """What Steady says after a check-in, chosen by how the day went."""

    id: ItemId
    category: ReplyCategory
    # A reply that speaks of a part of the day ("before bed") is only given then, by the
    # user's own clock; most fit any hour.
    time_of_day: Literal["morning", "afternoon", "evening", "any"] = "any"
    text: Annotated[str, StringConstraints(max_length=400)]

    _strip = field_validator("text")(clean_text)


class CommandInfo(StrictModel):
    name: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,31}$")]
    description: Annotated[
        str, StringConstraints(min_length=3, max_length=MAX_COMMAND_DESCRIPTION_CHARS)
    ]
    # What a menu shows in discreet mode: neutral, nothing about exes or relationships.
    discreet_description: Annotated[
        str, StringConstraints(min_length=3, max_length=MAX_COMMAND_DESCRIPTION_CHARS)
    ]
    # The command's name in this locale, where it has one of its own (/ajustes): Discord
    # shows it in the command list, and typed it runs the command like its own name.
    # Discord's rule for names: lower case letters, digits, - and _, up to 32.
    local_name: Annotated[str, StringConstraints(pattern=r"^[-_\w]{1,32}$")] | None = None

    @field_validator("local_name")
    @classmethod
    def _lower_case(cls, name: str | None) -> str | None:
        if name is not None and name != name.lower():
            raise ValueError("a command name is lower case")
        return name


class AffirmationsFile(StrictModel):
    locale: LocaleCode
    affirmations: list[Affirmation] = Field(min_length=1)


class OpeningsFile(StrictModel):
    locale: LocaleCode
    openings: list[Opening] = Field(min_length=1)


class CheckInRepliesFile(StrictModel):
    locale: LocaleCode
    checkin_replies: list[CheckInReply] = Field(min_length=1)

    @field_validator("checkin_replies")
    @classmethod
    def _every_category(cls, replies: list[CheckInReply]) -> list[CheckInReply]:
        # Two per category at least: "never the same twice in a row" needs a choice.
        for category in get_args(ReplyCategory):
            if sum(reply.category == category for reply in replies) < 2:
                raise ValueError(f"category {category} needs at least two replies")
        return replies


class CommandsFile(StrictModel):
    locale: LocaleCode
    commands: list[CommandInfo] = Field(min_length=1)


# CLDR plural categories, plus "=0": an optional form for exactly nothing ("no days yet"),
# written as ICU MessageFormat writes an explicit value.
PluralKey = Literal["=0", "zero", "one", "two", "few", "many", "other"]
MessageText = Annotated[str, StringConstraints(max_length=MAX_MESSAGE_CHARS)]
PluralForms = dict[PluralKey, MessageText]


class MessagesFile(StrictModel):
    """Each message is one text, or, when it holds a count, one text per plural form.

    A key may carry a platform (`pause.write_let_gone@telegram`): that platform's wording
    of the message, where what is true differs between platforms.
    """

    locale: LocaleCode
    messages: dict[str, MessageText | PluralForms]

    @field_validator("messages")
    @classmethod
    def _no_empty(cls, messages: dict[str, str | PluralForms]) -> dict[str, str | dict[str, str]]:
        cleaned: dict[str, str | dict[str, str]] = {}
        for message_id, value in messages.items():
            forms = {"": value} if isinstance(value, str) else dict(value)
            for form, text in forms.items():
                if not text.strip():
                    raise ValueError(f"message {message_id} {form} is empty".replace("  ", " "))
            if isinstance(value, str):
                cleaned[message_id] = value.strip()
            else:
                if "other" not in value:
                    raise ValueError(f"message {message_id} needs an 'other' plural form")
                cleaned[message_id] = {form: text.strip() for form, text in value.items()}
        return cleaned


class PacePhase(StrictModel):
    phase: Literal["in", "hold", "out"]
    seconds: int = Field(ge=1, le=8)


class Exercise(StrictModel):
    id: ItemId
    kind: Literal["grounding", "breathing"]
    title: Annotated[str, StringConstraints(min_length=2, max_length=28)]
    intro: Annotated[str, StringConstraints(min_length=2, max_length=300)]
    steps: list[Annotated[str, StringConstraints(min_length=2, max_length=300)]] = Field(
        default_factory=list
    )
    pace: list[PacePhase] = Field(default_factory=list)
    rounds: int = Field(default=0, ge=0, le=10)
    closing: Annotated[str, StringConstraints(min_length=2, max_length=300)]

    @model_validator(mode="after")
    def _shape_fits_kind(self) -> Exercise:
        if self.kind == "grounding" and not (2 <= len(self.steps) <= 8 and not self.pace):
            raise ValueError("a grounding exercise has 2 to 8 steps and no pace")
        if self.kind == "breathing" and not (self.pace and self.rounds >= 1 and not self.steps):
            raise ValueError("a breathing exercise has a pace, rounds, and no steps")
        return self


class ExercisesFile(StrictModel):
    locale: LocaleCode
    exercises: list[Exercise] = Field(min_length=1)


class Reflection(StrictModel):
    id: ItemId
    theme: Literal[
        "whole_picture",
        "cost",
        "patterns",
        "body",
        "two_truths",
        "still_there",
        "hard_dates",
        "anger",
        "numbness",
        "loneliness",
        "self_doubt",
        "shared_contact",
        "promises",
        "checking",
        "flashbacks",
        "sleep",
        "disbelieved",
        "dating",
        "practical",
    ]
    text: Annotated[str, StringConstraints(min_length=5, max_length=300)]


class ReflectionsFile(StrictModel):
    locale: LocaleCode
    reflections: list[Reflection] = Field(min_length=2)


class AvoidPhrasesFile(StrictModel):
    """Idioms that echo self-harm or suicide, which no sentence of the pack may use."""

    locale: LocaleCode
    phrases: list[Annotated[str, StringConstraints(min_length=3, max_length=80)]] = Field(
        min_length=1
    )


TypedWord = Annotated[str, StringConstraints(min_length=1, max_length=40)]


class AnswersFile(StrictModel):
    """Words people type that Steady reads, in one language: `yes` and `no` as short answers
    (never a country or zone code where a question can take them), and `place_leads`, the
    words before a place ("i live in", "vivo en"), left off before the place is looked up.
    A locale's file is `content/<locale>/answers.yaml`; more languages than there are
    locales have theirs in `content/answers/<language>.yaml`: people answer in their own."""

    locale: LocaleCode
    yes: list[TypedWord] = Field(min_length=1)
    no: list[TypedWord] = Field(min_length=1)
    place_leads: list[TypedWord] = Field(default_factory=list)

    @model_validator(mode="after")
    def _yes_is_not_no(self) -> AnswersFile:
        both = {word.casefold() for word in self.yes} & {word.casefold() for word in self.no}
        if both:
            raise ValueError(f"both yes and no: {', '.join(sorted(both))}")
        return self
