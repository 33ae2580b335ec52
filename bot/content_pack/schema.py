"""The shape of each content file, checked by pydantic."""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

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


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as error:
        raise ValueError(f"pattern does not compile: {error}") from None
    return pattern


class DetectionException(_Strict):
    """A harmless idiom blanked out before the rules run ("killing it at work")."""

    id: ItemId
    pattern: str

    _valid = field_validator("pattern")(_compiles)


class DetectionRule(_Strict):
    id: ItemId
    intent: Literal["crisis", "danger", "contacted", "urge"]
    pattern: str
    note: Annotated[str, StringConstraints(min_length=3, max_length=200)]

    _valid = field_validator("pattern")(_compiles)


class DetectionContext(_Strict):
    """A language's signs that crisis words are softened by their context: what turns a
    full reply into a short check (bot/safety/rules.py reads them; every language's cues
    apply to every match). Each is a pattern. The words just before a match are read for
    `negation` and `title`; the rest of its sentence for `distant_past`, `accident` and
    `present` (which keeps the reply full); what follows it for `contrast` (which undoes
    a negation), `other_reflexive` (someone acting on themselves), `first_object`
    ("without me") and `topic` ("suicide prevention"). `first_person` and
    `other_person` are words naming who a match is about; `other_object`, `possessive`
    and `recipient` are read inside the match only; `clause_break` words ("and", "but")
    end the stretch of words read for who a match is about."""

    negation: str | None = None
    contrast: str | None = None
    other_reflexive: str | None = None
    distant_past: str | None = None
    accident: str | None = None
    title: str | None = None
    present: str | None = None
    first_person: str | None = None
    other_person: str | None = None
    other_object: str | None = None
    first_object: str | None = None
    possessive: str | None = None
    recipient: str | None = None
    topic: str | None = None
    clause_break: str | None = None

    @field_validator("*")
    @classmethod
    def _valid(cls, pattern: str | None) -> str | None:
        return None if pattern is None else _compiles(pattern)


class DetectionFile(_Strict):
    locale: LocaleCode
    exceptions: list[DetectionException] = Field(default_factory=list)
    rules: list[DetectionRule] = Field(min_length=1)
    context: DetectionContext | None = None


HttpsUrl = Annotated[str, StringConstraints(pattern=r"^https://[^\s]+$", max_length=300)]


class CrisisResource(_Strict):
    id: ItemId
    name: Annotated[str, StringConstraints(min_length=2, max_length=100)]
    kind: Literal["crisis", "domestic_abuse"]
    contact: Annotated[str, StringConstraints(min_length=2, max_length=80)]
    hours: Annotated[str, StringConstraints(min_length=2, max_length=60)]
    url: HttpsUrl
    source: HttpsUrl
    last_verified: date


class CountryResources(_Strict):
    code: Annotated[str, StringConstraints(pattern=r"^[A-Z]{2}$")]
    name: Annotated[str, StringConstraints(min_length=2, max_length=60)]
    emergency_number: Annotated[str, StringConstraints(pattern=r"^[0-9 ]{2,12}$")]
    emergency_source: HttpsUrl
    # Empty where no helpline could be confirmed from its own published page:
    # the emergency number and the worldwide directory are shown instead.
    resources: list[CrisisResource] = Field(default_factory=list)


class HelplineDirectory(_Strict):
    name: Annotated[str, StringConstraints(min_length=2, max_length=100)]
    url: HttpsUrl
    source: HttpsUrl
    last_verified: date


class CrisisFallback(_Strict):
    directory: HelplineDirectory


class CrisisFile(_Strict):
    """Crisis resources per country. Every entry names the page its number was checked on."""

    locale: LocaleCode
    fallback: CrisisFallback
    countries: list[CountryResources] = Field(min_length=1)

    @field_validator("countries")
    @classmethod
    def _unique_countries(cls, countries: list[CountryResources]) -> list[CountryResources]:
        codes = [country.code for country in countries]
        if len(codes) != len(set(codes)):
            raise ValueError("a country is listed twice")
        return countries


class PacePhase(_Strict):
    phase: Literal["in", "hold", "out"]
    seconds: int = Field(ge=1, le=8)


class Exercise(_Strict):
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


class ExercisesFile(_Strict):
    locale: LocaleCode
    exercises: list[Exercise] = Field(min_length=1)


class Reflection(_Strict):
    id: ItemId
    theme: Literal["whole_picture", "cost", "patterns", "body", "two_truths"]
    text: Annotated[str, StringConstraints(min_length=5, max_length=300)]


class ReflectionsFile(_Strict):
    locale: LocaleCode
    reflections: list[Reflection] = Field(min_length=2)
