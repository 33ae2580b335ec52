"""Countries by ISO code: names, and a guess from a time zone, from the tz database tables."""

from __future__ import annotations

from functools import cache
from importlib import resources

from bot.safety.normalise import normalise

# Everyday names the ISO table spells differently.
_ALIASES = {
    "uk": "GB",
    "great britain": "GB",
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "northern ireland": "GB",
    "britain": "GB",
    "usa": "US",
    "united states of america": "US",
    "america": "US",
    "the us": "US",
    "aotearoa": "NZ",
}


def _table(name: str) -> list[list[str]]:
    text = resources.files("tzdata").joinpath("zoneinfo", name).read_text("utf-8")
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


@cache
def country_names() -> dict[str, str]:
    return {fields[0]: fields[1] for fields in _table("iso3166.tab")}


@cache
def _countries_by_zone() -> dict[str, str]:
    return {fields[2]: fields[0] for fields in _table("zone.tab")}


def country_for_timezone(timezone: str | None) -> str | None:
    """The country a time zone belongs to (Europe/Berlin: DE), when the tz tables say."""
    return None if timezone is None else _countries_by_zone().get(timezone)


def country_name(code: str) -> str:
    return country_names().get(code, code)


def parse_country(text: str) -> str | None:
    """An ISO code for a typed code ("de") or name ("Germany", "UK"); None if unknown."""
    cleaned = normalise(text).strip(" .")
    if not cleaned:
        return None
    if len(cleaned) == 2 and cleaned.upper() in country_names():
        return cleaned.upper()
    if cleaned in _ALIASES:
        return _ALIASES[cleaned]
    for code, name in country_names().items():
        if normalise(name) == cleaned:
            return code
    return None
