"""The shape of the files a person in danger relies on: emergency numbers per country
(emergency_numbers.yaml), helplines per country (crisis.yaml) and country names
(countries.yaml). Where their numbers come from is in schema_sources.py."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator, model_validator

from bot.content_pack.schema_base import (
    MAX_BUTTON_LABEL_CHARS,
    CountryCode,
    HttpsUrl,
    ItemId,
    LocaleCode,
    StrictModel,
)
from bot.content_pack.schema_sources import (
    NUMBER_FIELDS,
    EmergencySource,
    HelplineSource,
    NumberField,
    ReviewNote,
    emergency_confirmation,
)

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


class EmergencyNumbers(StrictModel):
    """The numbers to dial in one country. `general` reaches every service; `police` and
    `ambulance` are given where they differ from it (Germany: 110 and 112)."""

    code: CountryCode
    general: DialNumber | None = None
    police: DialNumber | None = None
    ambulance: DialNumber | None = None
    fire: DialNumber | None = None
    # An emergency number that takes text messages from anyone, for when speaking is unsafe.
    sms: DialNumber | None = None
    # A summary of where the numbers come from; the pages themselves are in `sources`.
    source: SourceNote | None = None
    checked: date
    # The pages that state the numbers (schema_sources.py): a number two publishers state,
    # one of them first-hand, is confirmed. `steady content check` fails on an
    # unconfirmed number in an entry without `review: true`.
    sources: list[EmergencySource] = Field(default_factory=list)
    # True where a number is not confirmed by two sources: the reply says so, and gives
    # `fallback` too. `note` says what is known and why it is not confirmed.
    review: bool = False
    note: ReviewNote | None = None
    # Numbers known to reach emergency services there when the entry's are unconfirmed:
    # 112 or 911 from a mobile phone, which every GSM, 3G, 4G and 5G phone places as an
    # emergency call (see `fallback_sources` in the file).
    fallback: list[DialNumber] = Field(default_factory=list)

    @model_validator(mode="after")
    def _dialable(self) -> EmergencyNumbers:
        # Where no number of a service is known, the fallback is what there is to dial.
        missing = self.general is None and (self.police is None or self.ambulance is None)
        if missing and not self.fallback:
            raise ValueError(
                f"{self.code}: needs a general number, or police and ambulance, or a fallback"
            )
        return self

    @property
    def police_number(self) -> str:
        return self.police or self.general or next(iter(self.fallback), "")

    @property
    def ambulance_number(self) -> str:
        return self.ambulance or self.general or next(iter(self.fallback), "")

    @property
    def unconfirmed(self) -> tuple[NumberField, ...]:
        """The services whose number two publishers do not confirm, in NUMBER_FIELDS
        order."""
        return tuple(
            field
            for field in NUMBER_FIELDS
            if (number := getattr(self, field)) is not None
            and not emergency_confirmation(self.sources, field, number).confirmed
        )


class EmergencyNumbersFile(StrictModel):
    """Emergency numbers for every ISO 3166-1 country (the loader checks none is missing)."""

    # Why a `fallback` number is known to reach help: the pages that say so.
    fallback_sources: list[HelplineSource] = Field(default_factory=list)
    countries: list[EmergencyNumbers] = Field(min_length=1)

    @field_validator("countries")
    @classmethod
    def _unique(cls, countries: list[EmergencyNumbers]) -> list[EmergencyNumbers]:
        codes = [country.code for country in countries]
        twice = sorted({code for code in codes if codes.count(code) > 1})
        if twice:
            raise ValueError(f"listed twice: {', '.join(twice)}")
        return countries


class CountryName(StrictModel):
    """A country's name for a button, and as it reads inside a sentence
    ("999 in the United Kingdom"); `in_sentence` is only given where it differs."""

    code: CountryCode
    name: Annotated[str, StringConstraints(min_length=2, max_length=MAX_BUTTON_LABEL_CHARS)]
    in_sentence: Annotated[str, StringConstraints(min_length=2, max_length=60)] | None = None

    @property
    def sentence_name(self) -> str:
        return self.in_sentence or self.name


class CountriesFile(StrictModel):
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


class CrisisResource(StrictModel):
    id: ItemId
    name: Annotated[str, StringConstraints(min_length=2, max_length=100)]
    kind: Literal["crisis", "domestic_abuse"]
    # How it can be reached: text and chat come first for someone who cannot speak aloud.
    modes: list[ContactMode] = Field(min_length=1)
    contact: Annotated[str, StringConstraints(min_length=2, max_length=100)]
    hours: Hours
    url: HttpsUrl | None = None
    # A summary of where the line comes from; the pages themselves are in `sources`.
    source: SourceNote | None = None
    last_verified: date
    # The pages that state its numbers: each number in `contact` is confirmed when two
    # publishers state it, one of them first-hand (schema_sources.py).
    sources: list[HelplineSource] = Field(default_factory=list)
    # The languages it answers in, first the one it answers in by default; the reply
    # names them to a user who reads another ("en", "es", "de"...).
    languages: list[LocaleCode] = Field(default_factory=list)
    # True where a number is not confirmed by two sources: the reply says so, and `note`
    # says what is known and why it is not confirmed.
    review: bool = False
    note: ReviewNote | None = None

    @property
    def can_write(self) -> bool:
        return "text" in self.modes or "chat" in self.modes

    @property
    def language(self) -> str | None:
        """The language it answers in by default, where the data says."""
        return self.languages[0] if self.languages else None


class CountryResources(StrictModel):
    code: CountryCode
    # Empty where no helpline could be confirmed: the emergency number and the
    # worldwide directory are shown instead.
    resources: list[CrisisResource] = Field(default_factory=list)


class HelplineDirectory(StrictModel):
    name: Annotated[str, StringConstraints(min_length=2, max_length=100)]
    url: HttpsUrl
    source: SourceNote
    last_verified: date


class CrisisFallback(StrictModel):
    directory: HelplineDirectory


class CrisisFile(StrictModel):
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
