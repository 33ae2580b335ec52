"""Time zones from what people type: a zone name, a city, a country, an offset or an abbreviation.

Everything comes from the zone data we ship (the `tzdata` package): the zone
files, `zone.tab` (each zone's country, in a sensible order) and `iso3166.tab`
(country names, through `parse_country`). The index is built once, on first
use, never at import time.

A guess is either *certain* (the text named a zone or a place; one zone is
confirmed, several are offered as choices) or not (an offset such as "GMT+2",
or an abbreviation such as "EST": these never follow daylight saving, so the
city zones people usually mean by them are offered instead of being stored).
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from importlib import resources

from babel.dates import get_timezone_location

from bot.content_pack.countries import likely_countries_for_timezone
from bot.flows.parsing.countries import NAME_LANGUAGES, country_code, parse_country
from bot.flows.parsing.folding import fold
from bot.flows.parsing.places import PlaceMatch, find_places

MAX_CHOICES = 12  # more buttons than this are harder to read than a retyped city
_LONGEST_INPUT = 64

# Zones people recognise, in the order we prefer them when several behave alike.
_MAJOR = (
    "Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Berlin", "Europe/Paris",
    "Europe/Madrid", "Europe/Rome", "Europe/Amsterdam", "Europe/Warsaw", "Europe/Athens",
    "Europe/Helsinki", "Europe/Kyiv", "Europe/Bucharest", "Europe/Istanbul", "Europe/Moscow",
    "Africa/Lagos", "Africa/Cairo", "Africa/Johannesburg", "Africa/Nairobi", "Asia/Jerusalem",
    "Asia/Dubai", "Asia/Tehran", "Asia/Karachi", "Asia/Kolkata", "Asia/Kathmandu",
    "Asia/Dhaka", "Asia/Bangkok", "Asia/Jakarta", "Asia/Shanghai", "Asia/Singapore",
    "Asia/Manila", "Asia/Tokyo", "Asia/Seoul", "Australia/Perth", "Australia/Darwin",
    "Australia/Adelaide", "Australia/Brisbane", "Australia/Sydney", "Pacific/Auckland",
    "America/St_Johns", "America/Halifax", "America/New_York", "America/Toronto",
    "America/Chicago", "America/Mexico_City", "America/Denver", "America/Phoenix",
    "America/Los_Angeles", "America/Vancouver", "America/Anchorage", "Pacific/Honolulu",
    "America/Bogota", "America/Lima", "America/Caracas", "America/Santiago",
    "America/Sao_Paulo", "America/Argentina/Buenos_Aires", "Atlantic/Reykjavik", "UTC",
)  # fmt: skip

# Large cities the zone data names no zone after, and the zone they follow.
# Everyday Spanish names CLDR does not list.
_SPANISH_CITIES = {
    "cdmx": "America/Mexico_City",
    "islas canarias": "Atlantic/Canary", "tenerife": "Atlantic/Canary",
    "gran canaria": "Atlantic/Canary", "barcelona": "Europe/Madrid",
    "valencia": "Europe/Madrid", "sevilla": "Europe/Madrid", "bilbao": "Europe/Madrid",
    "medellin": "America/Bogota", "cali": "America/Bogota", "guadalajara": "America/Mexico_City",
    "monterrey": "America/Monterrey", "quito": "America/Guayaquil",
    "san salvador": "America/El_Salvador",
    "san juan": "America/Puerto_Rico",  # also Argentina's San Juan (a zone): both are offered
}  # fmt: skip
_CITIES = {
    "America/New_York": ("new york city", "nyc", "washington", "washington dc", "boston",
                         "philadelphia", "atlanta", "miami"),
    "America/Chicago": ("houston", "dallas", "austin", "san antonio"),
    "America/Los_Angeles": ("san francisco", "seattle", "san diego", "las vegas", "portland"),
    "America/Toronto": ("ottawa", "montreal"),
    "America/Sao_Paulo": ("rio", "rio de janeiro", "brasilia"),
    "Europe/London": ("manchester", "birmingham", "edinburgh", "glasgow", "cardiff"),
    "Europe/Berlin": ("munich", "hamburg", "frankfurt", "cologne"),
    "Europe/Madrid": ("barcelona", "valencia", "seville"),
    "Europe/Rome": ("milan", "naples", "florence"),
    "Europe/Warsaw": ("krakow",),
    "Europe/Moscow": ("st petersburg", "saint petersburg"),
    "Asia/Kolkata": ("delhi", "new delhi", "mumbai", "bombay", "bangalore", "bengaluru",
                     "chennai", "hyderabad", "calcutta", "india standard time"),
    "Asia/Karachi": ("lahore", "islamabad"),
    "Asia/Shanghai": ("beijing",),
    "Asia/Tokyo": ("osaka", "kyoto"),
    "Asia/Jerusalem": ("tel aviv",),
    "Asia/Dubai": ("abu dhabi",),
    "Asia/Ho_Chi_Minh": ("hanoi", "saigon"),
    "Australia/Sydney": ("canberra",),
    "Pacific/Auckland": ("wellington", "christchurch"),
    "Africa/Johannesburg": ("cape town", "pretoria", "durban"),
}  # fmt: skip

# Abbreviations and the zones they usually mean. None of them is stored as typed:
# "EST" stays at UTC-5 all year, while the person typing it lives with a summer time.
# ("PT", "MT" and "ET" are left out: they are also Portugal, Malta and Ethiopia.)
_ABBREVIATIONS = {
    ("est", "edt", "est5edt", "eastern", "eastern time"): (
        "America/New_York", "America/Toronto"),
    ("cst", "cdt", "cst6cdt", "central", "central time", "ct"): (
        "America/Chicago", "America/Mexico_City", "Asia/Shanghai"),
    ("mst", "mdt", "mst7mdt", "mountain", "mountain time"): (
        "America/Denver", "America/Phoenix", "America/Edmonton"),
    ("pst", "pdt", "pst8pdt", "pacific", "pacific time"): (
        "America/Los_Angeles", "America/Vancouver", "America/Tijuana"),
    ("akst", "akdt"): ("America/Anchorage",),
    ("hst", "hast"): ("Pacific/Honolulu",),
    ("ast", "adt"): ("America/Halifax", "America/Puerto_Rico", "Asia/Riyadh"),
    ("nst", "ndt"): ("America/St_Johns",),
    ("gmt", "etc gmt", "greenwich", "gmt0", "bst", "wet", "west"): (
        "Europe/London", "Europe/Dublin", "Europe/Lisbon", "Atlantic/Reykjavik", "UTC"),
    ("cet", "cest", "met", "mez", "mesz"): (
        "Europe/Berlin", "Europe/Paris", "Europe/Madrid", "Europe/Rome", "Europe/Warsaw",
        "Africa/Lagos"),
    ("eet", "eest"): ("Europe/Athens", "Europe/Helsinki", "Europe/Kyiv", "Africa/Cairo"),
    ("msk",): ("Europe/Moscow",),
    ("ist",): ("Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"),
    ("pkt",): ("Asia/Karachi",),
    ("sgt",): ("Asia/Singapore",),
    ("hkt",): ("Asia/Hong_Kong",),
    ("jst",): ("Asia/Tokyo",),
    ("kst",): ("Asia/Seoul",),
    ("awst",): ("Australia/Perth",),
    ("acst", "acdt"): ("Australia/Adelaide", "Australia/Darwin"),
    ("aest", "aedt"): ("Australia/Sydney", "Australia/Brisbane"),
    ("nzst", "nzdt"): ("Pacific/Auckland",),
    ("sast", "cat"): ("Africa/Johannesburg", "Africa/Maputo"),
    ("wat",): ("Africa/Lagos",),
    ("eat",): ("Africa/Nairobi",),
}  # fmt: skip

_UTC_NAMES = frozenset({"utc", "etc utc", "uct", "universal", "etc universal", "zulu", "z"})
# "UTC+2", "GMT -5", "utc+05:30", "+3" and the zone database's own "Etc/GMT+2"
# (whose sign is inverted: we read it the way a person does, as two hours ahead).
_OFFSET = re.compile(
    r"^(?:(?:etc\s*/\s*)?(?:utc|gmt))?\s*([+\-\u2212])\s*(\d{1,2})(?:\s*[:.h]?\s*(\d{2}))?$",
    re.IGNORECASE,
)
_LONGEST_OFFSET_HOURS = 14  # Kiritimati, UTC+14: nothing on Earth is further ahead
_SAMPLE_DAYS = range(366)  # daily for a year: zones whose summer times differ by days differ


@dataclass(frozen=True, slots=True)
class ZoneGuess:
    """The zones a text may mean. `certain`: named outright, not an offset or abbreviation.
    `places`: for a town or city found by name, (zone, its name, its country) for each
    zone, to confirm or offer it by name ("Leeds, United Kingdom"); `close`: found by a
    near spelling ("londn"). `country`: the country a two-letter code named."""

    zones: tuple[str, ...]
    certain: bool
    places: tuple[tuple[str, str, str], ...] = ()
    close: bool = False
    country: str | None = None

    @property
    def settled(self) -> str | None:
        """The one zone to confirm, when there is nothing to choose between."""
        return self.zones[0] if self.certain and len(self.zones) == 1 else None


@dataclass(frozen=True, slots=True)
class _ZoneIndex:
    exact: dict[str, str]  # casefolded IANA name (spaces for underscores) -> the name
    places: dict[str, tuple[str, ...]]  # folded city or alias -> zones
    countries: dict[str, tuple[str, ...]]  # ISO code -> its zones, in zone.tab order
    comments: dict[str, str]  # zone -> zone.tab's description ("most of Germany")
    listed: tuple[str, ...]  # every zone.tab zone, in order


def read_zone(text: str, now: datetime, towns: bool = True) -> ZoneGuess | None:
    """What zones `text` may mean, or None when it names nothing we know. `towns`: also
    the world's towns and cities (a greeting may be a town's name: "Hola" is in Kenya)."""
    cleaned = text.strip()
    if not cleaned or len(cleaned) > _LONGEST_INPUT or not cleaned.isprintable():
        return None
    index = _index()
    folded = fold(cleaned)
    offset = _offset_minutes(cleaned)
    if offset is not None:
        found = zones_for_offset(offset, now)
        return ZoneGuess(found, certain=False) if found else None
    for names, zones in _ABBREVIATIONS.items():
        if folded in names:
            return ZoneGuess(zones, certain=False)
    if folded in _UTC_NAMES:
        return ZoneGuess(("UTC",), certain=True)
    exact = index.exact.get(cleaned.replace(" ", "_").casefold())
    if exact is not None:
        return ZoneGuess((exact,), certain=True)
    if folded in index.places:
        return _zone_place(cleaned, distinct(index.places[folded], now), towns)
    code = parse_country(cleaned, codes=False)
    if code is not None and code in index.countries:
        return ZoneGuess(distinct(index.countries[code], now), certain=True)
    if "," in cleaned:
        place, country = cleaned.rsplit(",", 1)
        return _place_in_country(place, country, now)
    named = find_places(cleaned) if towns else None  # places the zone data does not name
    if named is not None:
        return _by_name(named)
    code = country_code(cleaned)  # only where nothing else fits; confirmed by its name
    if code is not None and code in index.countries:
        return ZoneGuess(distinct(index.countries[code], now), certain=True, country=code)
    return None


def _zone_place(cleaned: str, zones: tuple[str, ...], towns: bool) -> ZoneGuess:
    """A place the zone data names. One that follows another city's zone ("Sevilla" is
    Europe/Madrid) is confirmed by its own name when the list of towns has it."""
    if towns and len(zones) == 1 and fold(place_name(zones[0])) != fold(cleaned):
        named = find_places(cleaned)
        own = named is not None and fold(named.places[0].name) == fold(cleaned)
        if named is not None and own and named.places[0].zone == zones[0]:
            return _by_name(named)
    return ZoneGuess(zones, certain=True)


def _place_in_country(place: str, country: str, now: datetime) -> ZoneGuess | None:
    """ "Lima, Perú", "San Juan, Puerto Rico": the place within that country, else the
    country itself when the place is not one we know ("Villa Nueva, Guatemala")."""
    index = _index()
    code = parse_country(country)
    if code is None or code not in index.countries:
        return read_zone(place, now) if place.strip() else None
    in_country = index.countries[code]
    named = index.places.get(fold(place), ())
    matching = tuple(zone for zone in named if zone in in_country)
    if not matching and (found := find_places(place, in_country=code)) is not None:
        return _by_name(found)  # "Leeds, UK", "London, Canada"
    return ZoneGuess(distinct(matching or in_country, now), certain=True)


def _by_name(found: PlaceMatch) -> ZoneGuess:
    named: dict[str, tuple[str, str]] = {}
    for town in found.places:  # largest first: each zone by its largest place
        named.setdefault(town.zone, (town.name, town.country))
    places = tuple((zone, name, country) for zone, (name, country) in named.items())
    return ZoneGuess(tuple(named), certain=True, places=places, close=found.close)


def is_zone(name: str) -> bool:
    """A zone we would store: one of the names `read_zone` can settle on."""
    return _index().exact.get(name.casefold()) == name


def place_name(zone: str) -> str:
    """ "America/Argentina/Buenos_Aires" -> "Buenos Aires": the city a zone is named after."""
    return zone.rsplit("/", 1)[-1].replace("_", " ")


def local_time(zone: str, now: datetime) -> datetime:
    return now.astimezone(zoneinfo.ZoneInfo(zone))


def distinct(zones: Iterable[str], now: datetime) -> tuple[str, ...]:
    """One zone for each way of keeping time (Berlin and Busingen agree all year: one)."""
    groups: dict[tuple[timedelta | None, ...], list[str]] = {}
    for zone in dict.fromkeys(zones):
        groups.setdefault(_behaviour(zone, now), []).append(zone)
    return tuple(_representative(group) for group in groups.values())[:MAX_CHOICES]


def zones_for_offset(minutes: int, now: datetime) -> tuple[str, ...]:
    """City zones at this offset from UTC now, or half a year from now (the other season)."""
    wanted = timedelta(minutes=minutes)
    later = now + timedelta(days=182)
    listed = [zone for zone in _index().listed if not zone.startswith("Antarctica/")]
    now_matches = [zone for zone in listed if _offset_at(zone, now) == wanted]
    later_matches = [zone for zone in listed if _offset_at(zone, later) == wanted]
    if minutes == 0:
        now_matches.append("UTC")
    groups: dict[tuple[timedelta | None, ...], list[str]] = {}
    for zone in dict.fromkeys([*now_matches, *later_matches]):
        groups.setdefault(_behaviour(zone, now), []).append(zone)
    chosen = [_representative(group) for group in groups.values()]
    # Best bets first: zones people know that keep this offset now, then those that
    # keep it in the other season, then the rest in zone.tab order. A short list.
    known = [zone for zone in chosen if zone in _MAJOR]
    known.sort(key=lambda zone: (_offset_at(zone, now) != wanted, _MAJOR.index(zone)))
    others = [zone for zone in chosen if zone not in _MAJOR]
    return tuple([*known, *others][: max(len(known), 6)])


def _offset_minutes(text: str) -> int | None:
    match = _OFFSET.match(text.strip())
    if match is None:
        return None
    hours, minutes = int(match.group(2)), int(match.group(3) or 0)
    if hours > _LONGEST_OFFSET_HOURS or minutes not in {0, 30, 45}:
        return None
    sign = 1 if match.group(1) == "+" else -1
    return sign * (hours * 60 + minutes)


def _offset_at(zone: str, instant: datetime) -> timedelta | None:
    return instant.astimezone(zoneinfo.ZoneInfo(zone)).utcoffset()


def _behaviour(zone: str, now: datetime) -> tuple[timedelta | None, ...]:
    return tuple(_offset_at(zone, now + timedelta(days=day)) for day in _SAMPLE_DAYS)


def _representative(group: list[str]) -> str:
    """The zone a person is likeliest to recognise among zones that keep the same time."""
    known = [zone for zone in group if zone in _MAJOR]
    if known:
        return min(known, key=_MAJOR.index)
    comments = _index().comments
    main = [zone for zone in group if "most" in comments.get(zone, "")]
    return (main or group)[0]


def _tab(name: str) -> list[list[str]]:
    text = resources.files("tzdata").joinpath("zoneinfo", name).read_text("utf-8")
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


_LEGACY_FOLDERS = ("posix/", "right/", "SystemV/")
# Zone files named for an abbreviation or a fixed offset: never stored as typed (see above).
_NOT_EXACT = frozenset(
    {"cet", "eet", "wet", "met", "est", "mst", "hst", "est5edt", "cst6cdt", "mst7mdt",
     "pst8pdt", "gmt", "gmt+0", "gmt-0", "gmt0", "greenwich", "factory", "localtime"}
)  # fmt: skip


@cache
def _index() -> _ZoneIndex:
    rows = _tab("zone.tab")
    listed = tuple(row[2] for row in rows)
    countries: dict[str, list[str]] = {}
    for row in rows:
        countries.setdefault(row[0], []).append(row[2])
    comments = {row[2]: row[3].casefold() for row in rows if len(row) > 3}
    available = {
        name
        for name in zoneinfo.available_timezones()
        if not name.startswith(_LEGACY_FOLDERS) and name.casefold() not in _NOT_EXACT
    }
    exact = {name.casefold(): name for name in available if not name.startswith("Etc/")}
    places: dict[str, list[str]] = {}
    for zone in listed:
        places.setdefault(fold(place_name(zone)), []).append(zone)
    # Old names of the same zones ("Asia/Calcutta", "US/Eastern") lead to today's zone.
    by_content = {_zone_bytes(zone): zone for zone in listed}
    for name in sorted(available - set(listed)):
        target = by_content.get(_zone_bytes(name)) if "/" in name else None
        if target is not None:
            places.setdefault(fold(place_name(name)), []).append(target)
    for zone, aliases in _CITIES.items():
        for alias in aliases:
            places.setdefault(alias, []).append(zone)
    # Cities as other languages name them ("Ciudad de México", "Nueva York"), from CLDR.
    for locale in NAME_LANGUAGES:  # the languages country names are read in, too
        for zone in listed:
            city = get_timezone_location(zone, locale=locale, return_city=True)
            if city and fold(city) not in places:
                places[fold(city)] = [zone]
    for alias, zone in _SPANISH_CITIES.items():
        places.setdefault(alias, []).append(zone)
    return _ZoneIndex(
        exact=exact,
        places={key: tuple(zones) for key, zones in places.items()},
        countries={code: tuple(zones) for code, zones in countries.items()},
        comments=comments,
        listed=listed,
    )


def _zone_bytes(name: str) -> bytes:
    try:
        return resources.files("tzdata").joinpath("zoneinfo", *name.split("/")).read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return b""


def country_zones(code: str) -> tuple[str, ...]:
    """A country's zones, in zone.tab's order (its main zone first)."""
    return _index().countries.get(code, ())


def zone_fits_country(zone: str, code: str, now: datetime) -> bool:
    """Does someone in country `code` plausibly keep `zone`'s time? Yes when the zone is
    one of the country's (zone1970.tab lists Europe/Brussels for BE, LU and NL) or keeps
    the same time all year as one of them (Europe/Berlin in Switzerland)."""
    if code in likely_countries_for_timezone(zone):
        return True
    try:
        kept = _behaviour(zone, now)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return any(_behaviour(own, now) == kept for own in country_zones(code))
