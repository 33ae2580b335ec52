"""The shape of each content file, checked by pydantic."""

from __future__ import annotations

import re
import warnings
from datetime import date
from enum import StrEnum
from typing import Annotated, Literal, get_args

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
    # Makes sense to someone who has told us nothing yet: no assumed situation or history.
    first: bool = False

    _strip = field_validator("text")(_clean)


# "neutral" reads like an app notification and is safe on a lock screen someone else sees;
# "warm" may be personal, and is only for users who turned discreet mode off.
OpeningRegister = Literal["neutral", "warm"]


# pydantic warns that the field "register" hides ABCMeta.register, a class-level method no
# caller of Opening uses; the field reads as the content brief names it, so only that one
# warning is silenced, only while the class is built.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "register"', category=UserWarning)

    class Opening(_Strict):
        id: ItemId
        time_of_day: Literal["morning", "afternoon", "evening", "any"]
        register: OpeningRegister
        text: Annotated[str, StringConstraints(max_length=80)]

        _strip = field_validator("text")(_clean)


# still_there: for someone who lives with the person, or went back.
ReplyCategory = Literal["hard_day", "middle_day", "good_day", "strong_urge", "still_there"]


class CheckInReply(_Strict):
    """What Steady says after a check-in, chosen by how the day went."""

    id: ItemId
    category: ReplyCategory
    # A reply that speaks of a part of the day ("before bed") is only given then, by the
    # user's own clock; most fit any hour.
    time_of_day: Literal["morning", "afternoon", "evening", "any"] = "any"
    text: Annotated[str, StringConstraints(max_length=400)]

    _strip = field_validator("text")(_clean)


class CommandInfo(_Strict):
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
        for category in get_args(ReplyCategory):
            if sum(reply.category == category for reply in replies) < 2:
                raise ValueError(f"category {category} needs at least two replies")
        return replies


class CommandsFile(_Strict):
    locale: LocaleCode
    commands: list[CommandInfo] = Field(min_length=1)


# CLDR plural categories, plus "=0": an optional form for exactly nothing ("no days yet"),
# written as ICU MessageFormat writes an explicit value.
PluralKey = Literal["=0", "zero", "one", "two", "few", "many", "other"]
MessageText = Annotated[str, StringConstraints(max_length=MAX_MESSAGE_CHARS)]
PluralForms = dict[PluralKey, MessageText]


class MessagesFile(_Strict):
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
    # A mention rule reads crisis or danger words in any person or tense ("my brother
    # killed himself", "I wanted to die back then"): at most a check, never the full reply.
    mention: bool = False

    _valid = field_validator("pattern")(_compiles)


class DetectionContext(_Strict):
    """A language's signs that crisis words are softened by their context: what turns a full
    reply into a short check (bot/safety/context.py reads them; a language's cues apply to a
    message that matched one of its rules). Each is a pattern. The words just before a match
    are read for `negation` and `title`; the rest of its sentence for `distant_past`,
    `accident` and `present` (which keeps the reply full); what follows it for `contrast`
    (which undoes a negation), `other_reflexive` (someone acting on themselves),
    `first_object` ("without me") and `topic` ("suicide prevention"). `first_person` and
    `other_person` are words naming who a match is about; `other_object`, `possessive` and
    `recipient` are read inside the match only; `clause_break` words ("and", "but") end the
    stretch of words read for who a match is about."""

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
    # A year written just after `since` or just before `since_after` starts something
    # still going on ("since 2019 he hits me"); any other year before this one is
    # the past, in every language (bot/safety/context.py reads the year itself).
    since: str | None = None
    since_after: str | None = None

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
CountryCode = Annotated[str, StringConstraints(pattern=r"^[A-Z]{2}$")]
# Where a fact was checked: an organisation or page name, or the page's address.
SourceNote = Annotated[str, StringConstraints(min_length=3, max_length=300)]
# A number as it is dialled, in digits with spaces, and * or # for short codes ("*4141").
DialNumber = Annotated[str, StringConstraints(pattern=r"^[0-9*#][0-9 *#]{0,14}$")]
# Opening hours are written one way everywhere: "24/7", "Hours vary", or day ranges with
# 24-hour times joined by en dashes ("Mon–Fri 9:00–17:00", "Daily 17:00–24:00").
_DAYS = r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun)(–(Mon|Tue|Wed|Thu|Fri|Sat|Sun))?|Daily"
_SPAN = rf"({_DAYS}) \d{{1,2}}:\d{{2}}–\d{{1,2}}:\d{{2}}"
HOURS_PATTERN = rf"^(24/7|Hours vary|{_SPAN}(, {_SPAN})*)$"
Hours = Annotated[str, StringConstraints(pattern=HOURS_PATTERN, max_length=60)]


class EmergencyNumbers(_Strict):
    """The numbers to dial in one country. `general` reaches every service; `police` and
    `ambulance` are given where they differ from it (Germany: 110 and 112)."""

    code: CountryCode
    general: DialNumber | None = None
    police: DialNumber | None = None
    ambulance: DialNumber | None = None
    fire: DialNumber | None = None
    # An emergency number that takes text messages from anyone, for when speaking is unsafe.
    sms: DialNumber | None = None
    source: SourceNote
    checked: date
    # True where the number is the best we know rather than well established, or is
    # borrowed from the country whose services answer there: re-check these first.
    review: bool = False

    @model_validator(mode="after")
    def _dialable(self) -> EmergencyNumbers:
        if self.general is None and (self.police is None or self.ambulance is None):
            raise ValueError(f"{self.code}: needs a general number, or police and ambulance")
        return self

    @property
    def police_number(self) -> str:
        return self.police or self.general or ""

    @property
    def ambulance_number(self) -> str:
        return self.ambulance or self.general or ""


class EmergencyNumbersFile(_Strict):
    """Emergency numbers for every ISO 3166-1 country (the loader checks none is missing)."""

    countries: list[EmergencyNumbers] = Field(min_length=1)

    @field_validator("countries")
    @classmethod
    def _unique(cls, countries: list[EmergencyNumbers]) -> list[EmergencyNumbers]:
        codes = [country.code for country in countries]
        twice = sorted({code for code in codes if codes.count(code) > 1})
        if twice:
            raise ValueError(f"listed twice: {', '.join(twice)}")
        return countries


class CountryName(_Strict):
    """A country's name for a button, and as it reads inside a sentence
    ("999 in the United Kingdom"); `in_sentence` is only given where it differs."""

    code: CountryCode
    name: Annotated[str, StringConstraints(min_length=2, max_length=MAX_BUTTON_LABEL_CHARS)]
    in_sentence: Annotated[str, StringConstraints(min_length=2, max_length=60)] | None = None

    @property
    def sentence_name(self) -> str:
        return self.in_sentence or self.name


class CountriesFile(_Strict):
    locale: LocaleCode
    # Offered as buttons when nothing, not even a time zone, tells us where someone is.
    likely_when_unknown: list[CountryCode] = Field(min_length=1, max_length=8)
    countries: list[CountryName] = Field(min_length=1)

    @field_validator("countries")
    @classmethod
    def _unique(cls, countries: list[CountryName]) -> list[CountryName]:
        codes = [country.code for country in countries]
        if len(codes) != len(set(codes)):
            raise ValueError("a country is listed twice")
        return countries


ContactMode = Literal["call", "text", "chat"]


class CrisisResource(_Strict):
    id: ItemId
    name: Annotated[str, StringConstraints(min_length=2, max_length=100)]
    kind: Literal["crisis", "domestic_abuse"]
    # How it can be reached: text and chat come first for someone who cannot speak aloud.
    modes: list[ContactMode] = Field(min_length=1)
    contact: Annotated[str, StringConstraints(min_length=2, max_length=100)]
    hours: Hours
    url: HttpsUrl | None = None
    source: SourceNote
    last_verified: date
    # True where the entry is written from well-established knowledge that no stored page
    # confirmed: re-check these first, before release.
    review: bool = False

    @property
    def can_write(self) -> bool:
        return "text" in self.modes or "chat" in self.modes


class CountryResources(_Strict):
    code: CountryCode
    # Empty where no helpline could be confirmed: the emergency number and the
    # worldwide directory are shown instead.
    resources: list[CrisisResource] = Field(default_factory=list)


class HelplineDirectory(_Strict):
    name: Annotated[str, StringConstraints(min_length=2, max_length=100)]
    url: HttpsUrl
    source: SourceNote
    last_verified: date


class CrisisFallback(_Strict):
    directory: HelplineDirectory


class CrisisFile(_Strict):
    """Helplines per country. Every entry names where its number was checked, and when."""

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


class ReflectionsFile(_Strict):
    locale: LocaleCode
    reflections: list[Reflection] = Field(min_length=2)


class AvoidPhrasesFile(_Strict):
    """Idioms that echo self-harm or suicide, which no sentence of the pack may use."""

    locale: LocaleCode
    phrases: list[Annotated[str, StringConstraints(min_length=3, max_length=80)]] = Field(
        min_length=1
    )


TypedWord = Annotated[str, StringConstraints(min_length=1, max_length=40)]


class AnswersFile(_Strict):
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
