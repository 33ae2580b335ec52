"""Where a number a person in danger may dial was confirmed: the pages that state it.

A number is confirmed when two independent publishers state it: two organisations, not
two pages or two sites (Android's emergency-number data and libphonenumber are both
Google's, so they are one publisher). At least one of them must have stated it first-hand
(a government, an emergency service, the line itself, the press or another organisation
writing for its own readers): compiled data and encyclopedias repeat what others said, so
Android's data beside Wikipedia confirms nothing. What two publishers do not confirm is
shown as unconfirmed (the entry carries `review: true`, a `note` and, for emergency
numbers, a `fallback`); `steady content check` holds every entry to this
(bot/content_pack/sources_check.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

# A page's address as it was read: some official pages are still served over http.
PageUrl = Annotated[str, StringConstraints(pattern=r"^https?://[^\s]+$", max_length=400)]
# The organisation that published the page, named the same way wherever it appears.
PublisherName = Annotated[
    str, StringConstraints(min_length=2, max_length=80, pattern=r"^\S(.*\S)?$")
]
# What the source says, in our words: enough to find the sentence again on the page.
SourceSays = Annotated[str, StringConstraints(min_length=3, max_length=400)]
# Why an entry is not confirmed, and what is known: for maintainers, never shown as is.
ReviewNote = Annotated[str, StringConstraints(min_length=10, max_length=600)]
# A number as a source states it (digits, spaces, and * or # for short codes).
StatedNumber = Annotated[str, StringConstraints(pattern=r"^[0-9*#+][0-9 *#\-]{0,19}$")]
# The numbers of an emergency entry, each dialled for its own service.
NumberField = Literal["general", "police", "ambulance", "fire", "sms"]
NUMBER_FIELDS: tuple[NumberField, ...] = ("general", "police", "ambulance", "fire", "sms")

# What kind of publisher a source is:
# - official: a government, regulator, emergency service, intergovernmental body (the
#   ITU, the European Commission), or the organisation that runs the line;
# - press: a newspaper, broadcaster, news agency or fact-checker;
# - organisation: another body writing for its own readers (a charity, university,
#   clinic, association or company);
# - dataset: numbers compiled for devices or software (Android's emergency-number data);
# - encyclopedia: a tertiary source that summarises others (Wikipedia).
SourceKind = Literal["official", "press", "organisation", "dataset", "encyclopedia"]
# Kinds that repeat what others stated: they confirm a number only beside a first-hand one.
SECOND_HAND_KINDS: frozenset[SourceKind] = frozenset({"dataset", "encyclopedia"})
PUBLISHERS_NEEDED = 2


class Source(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    url: PageUrl
    publisher: PublisherName
    kind: SourceKind
    checked: date
    says: SourceSays

    @property
    def site(self) -> str:
        return site_of(self.url)

    @property
    def publisher_key(self) -> str:
        """The publisher as compared: "Google" and "google" are one."""
        return publisher_key(self.publisher)

    @property
    def first_hand(self) -> bool:
        return self.kind not in SECOND_HAND_KINDS


class EmergencySource(Source):
    """A page and the emergency numbers it states, by service: {police: "117"}.
    `general` is a number that reaches every service."""

    numbers: dict[NumberField, StatedNumber] = Field(min_length=1)


class HelplineSource(Source):
    """A page and the numbers of a helpline it states, as dialled or texted."""

    numbers: list[StatedNumber] = Field(min_length=1)


@dataclass(frozen=True)
class Confirmation:
    """Who states a number: the publishers, and whether one of them did so first-hand."""

    publishers: tuple[str, ...]
    first_hand: bool

    @property
    def confirmed(self) -> bool:
        return len(self.publishers) >= PUBLISHERS_NEEDED and self.first_hand

    def describe(self) -> str:
        """For a finding or a note: "stated by 2 publisher(s) (Google, Wikipedia), none
        first-hand"."""
        said = f"stated by {len(self.publishers)} publisher(s)"
        if self.publishers:
            said += f" ({', '.join(self.publishers)})"
        if len(self.publishers) >= PUBLISHERS_NEEDED and not self.first_hand:
            said += ", none first-hand"
        return said


def confirmation_of(sources: Iterable[Source]) -> Confirmation:
    """The publishers of `sources` (those that state a number), each counted once."""
    names: dict[str, str] = {}
    first_hand = False
    for source in sources:
        names.setdefault(source.publisher_key, source.publisher)
        first_hand = first_hand or source.first_hand
    return Confirmation(tuple(sorted(names.values(), key=publisher_key)), first_hand)


def publisher_key(name: str) -> str:
    return " ".join(name.casefold().split())


def site_of(url: str) -> str:
    """The site a page belongs to: its host without "www.", and on a host of many
    publishers (SHARED_HOSTS) the part of the path that names one of them:
    "github.com/google", "pressreader.com/uk/western-mail"."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    depth = SHARED_HOSTS.get(host, 0)
    if depth:
        named = parts.path.strip("/").lower().split("/")[:depth]
        return "/".join([host, *named])
    return host


# Hosts whose pages belong to many publishers, and how many steps of the path name one:
# a repository's account, a newspaper's country and title.
SHARED_HOSTS: dict[str, int] = {"github.com": 1, "gitlab.com": 1, "pressreader.com": 2}


def digits(number: str) -> str:
    """A number as it is dialled, whatever its spacing: "0800 58 58 58" -> "0800585858"."""
    return re.sub(r"[^0-9*#]", "", number)


def emergency_confirmation(
    sources: Iterable[EmergencySource], field: NumberField, number: str
) -> Confirmation:
    """Who states `number` for `field`."""
    wanted = digits(number)
    return confirmation_of(s for s in sources if digits(s.numbers.get(field, "")) == wanted)


# A number in a helpline's contact text: three digits or more, with the spaces, dashes,
# stars and hashes it is written with ("0800 58 58 58", "*120*7867#", "1-800-799-7233").
# A lone digit ("option 4") is a menu choice, not a number.
_CONTACT_NUMBER = re.compile(r"[*#+]?\d[\d *#\-]*\d#?")


def numbers_in(contact: str) -> list[str]:
    """The numbers a helpline's contact text gives, digits only."""
    found = (digits(match.group(0)) for match in _CONTACT_NUMBER.finditer(contact))
    return [number for number in found if sum(ch.isdigit() for ch in number) >= 3]


def helpline_confirmation(sources: Iterable[HelplineSource], number: str) -> Confirmation:
    """Who states this helpline number (digits only)."""
    return confirmation_of(s for s in sources if number in {digits(n) for n in s.numbers})
