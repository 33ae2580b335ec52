"""Countries by ISO code: names, and a guess from a time zone, from the tz database tables."""

from __future__ import annotations

from functools import cache
from importlib import resources


def _table(name: str) -> list[list[str]]:
    text = resources.files("tzdata").joinpath("zoneinfo", name).read_text("utf-8")
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


@cache
def country_names() -> dict[str, str]:
    return {fields[0]: fields[1] for fields in _table("iso3166.tab")}


@cache
def _countries_by_zone() -> dict[str, str]:
    return {fields[2]: fields[0] for fields in _table("zone.tab")}


@cache
def _zone_countries() -> dict[str, tuple[str, ...]]:
    """Every country a zone is used in (zone1970.tab: Europe/Brussels is BE, LU, NL), with
    zone.tab's own country for the zone first, as the likeliest."""
    by_zone: dict[str, list[str]] = {}
    for fields in _table("zone1970.tab"):
        by_zone.setdefault(fields[2], []).extend(fields[0].split(","))
    for zone, code in _countries_by_zone().items():
        codes = by_zone.setdefault(zone, [])
        if code in codes:
            codes.remove(code)
        codes.insert(0, code)
    return {zone: tuple(codes) for zone, codes in by_zone.items()}


def likely_countries_for_timezone(timezone: str | None) -> list[str]:
    """The countries someone in this time zone is most likely in; empty when unknown."""
    return [] if timezone is None else list(_zone_countries().get(timezone, ()))


def country_for_timezone(timezone: str | None) -> str | None:
    """The country a time zone belongs to (Europe/Berlin: DE), when the tz tables say."""
    return None if timezone is None else _countries_by_zone().get(timezone)


def country_name(code: str) -> str:
    return country_names().get(code, code)
