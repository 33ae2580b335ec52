"""Where a number a person in danger may dial was confirmed: the pages that state it.

A number is confirmed when two independent sources state it: two sources on different
sites (a government page and Android's emergency-number data, say). Two pages of one
site count once, so a site cannot confirm itself. What two sources do not confirm is
shown as unconfirmed (the entry carries `review: true`, a `note` and, for emergency
numbers, a `fallback`); `steady content check` holds every entry to this
(bot/content_pack/sources_check.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

# A page's address as it was read: some official pages are still served over http.
PageUrl = Annotated[str, StringConstraints(pattern=r"^https?://[^\s]+$", max_length=400)]
# What the source says, in our words: enough to find the sentence again on the page.
SourceSays = Annotated[str, StringConstraints(min_length=3, max_length=400)]
# Why an entry is not confirmed, and what is known: for maintainers, never shown as is.
ReviewNote = Annotated[str, StringConstraints(min_length=10, max_length=600)]
# A number as a source states it (digits, spaces, and * or # for short codes).
StatedNumber = Annotated[str, StringConstraints(pattern=r"^[0-9*#+][0-9 *#\-]{0,19}$")]
# The numbers of an emergency entry, each dialled for its own service.
NumberField = Literal["general", "police", "ambulance", "fire", "sms"]
NUMBER_FIELDS: tuple[NumberField, ...] = ("general", "police", "ambulance", "fire", "sms")


class _Source(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    url: PageUrl
    checked: date
    says: SourceSays

    @property
    def site(self) -> str:
        return site_of(self.url)


class EmergencySource(_Source):
    """A page and the emergency numbers it states, by service: {police: "117"}.
    `general` is a number that reaches every service."""

    numbers: dict[NumberField, StatedNumber] = Field(min_length=1)


class HelplineSource(_Source):
    """A page and the numbers of a helpline it states, as dialled or texted."""

    numbers: list[StatedNumber] = Field(min_length=1)


def site_of(url: str) -> str:
    """The site a page belongs to: its host without "www." (github.com for every
    repository there, so two repositories never count as two sources)."""
    host = (urlsplit(url).hostname or "").lower()
    return host.removeprefix("www.")


def digits(number: str) -> str:
    """A number as it is dialled, whatever its spacing: "0800 58 58 58" -> "0800585858"."""
    return re.sub(r"[^0-9*#]", "", number)


def confirming_sites(sources: Iterable[EmergencySource], field: NumberField, number: str) -> int:
    """How many sites state `number` for `field`."""
    wanted = digits(number)
    return len({s.site for s in sources if digits(s.numbers.get(field, "")) == wanted})


# A number in a helpline's contact text: three digits or more, with the spaces, dashes,
# stars and hashes it is written with ("0800 58 58 58", "*120*7867#", "1-800-799-7233").
# A lone digit ("option 4") is a menu choice, not a number.
_CONTACT_NUMBER = re.compile(r"[*#+]?\d[\d *#\-]*\d#?")


def numbers_in(contact: str) -> list[str]:
    """The numbers a helpline's contact text gives, digits only."""
    found = (digits(match.group(0)) for match in _CONTACT_NUMBER.finditer(contact))
    return [number for number in found if sum(ch.isdigit() for ch in number) >= 3]


def sites_stating(sources: Iterable[HelplineSource], number: str) -> int:
    """How many sites state this helpline number."""
    return len({s.site for s in sources if number in {digits(n) for n in s.numbers}})
