"""The readers behind the conversations: places, offsets, times, spans, days."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime

import pytest

from bot.flows.parsing.countries import parse_country
from bot.flows.parsing.days import read_days
from bot.flows.parsing.times import ClockStyle, read_span, read_time, read_times
from bot.flows.parsing.zones import read_zone

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SUMMER = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)


def test_the_zone_index_is_built_on_first_use_not_at_import() -> None:
    code = (
        "import bot.engine.router, bot.flows.parsing.zones as zones;"
        "print(zones._index.cache_info().currsize)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "0"


@pytest.mark.parametrize(
    ("typed", "zones"),
    [
        ("Germany", ("Europe/Berlin",)),  # Busingen keeps Berlin's time all year: one zone
        ("calcutta", ("Asia/Kolkata",)),  # an old name of the zone leads to today's
        ("kiev", ("Europe/Kyiv",)),
        ("Spain", ("Europe/Madrid", "Atlantic/Canary")),
        ("PT", ("Europe/Lisbon", "Atlantic/Azores")),  # Portugal, not Pacific time
        ("UTC", ("UTC",)),
    ],
)
def test_places_and_countries(typed: str, zones: tuple[str, ...]) -> None:
    guess = read_zone(typed, NOW)
    assert guess is not None and guess.certain and guess.zones == zones


def test_an_offset_means_the_places_at_it_now_first() -> None:
    winter, summer = read_zone("UTC+1", NOW), read_zone("UTC+1", SUMMER)
    assert winter is not None and summer is not None
    assert winter.zones[0] == "Europe/Berlin"  # CET in March
    assert summer.zones[0] == "Europe/London"  # BST in July
    assert not winter.certain and not summer.certain


@pytest.mark.parametrize("typed", ["UTC+15", "GMT+2:20", "Etc/GMT+25", "Europe", "zone.tab"])
def test_not_zones(typed: str) -> None:
    assert read_zone(typed, NOW) is None


@pytest.mark.parametrize(
    ("typed", "value", "style"),
    [
        ("8.30 p.m.", "20:30", ClockStyle.TWELVE_HOUR),
        ("12am", "00:00", ClockStyle.TWELVE_HOUR),
        ("12pm", "12:00", ClockStyle.TWELVE_HOUR),
        ("21h05", "21:05", ClockStyle.TWENTY_FOUR_HOUR),
        ("0", "00:00", ClockStyle.TWENTY_FOUR_HOUR),
        ("0pm", None, ClockStyle.TWELVE_HOUR),
        ("24:00", None, ClockStyle.TWENTY_FOUR_HOUR),
    ],
)
def test_times(typed: str, value: str | None, style: ClockStyle) -> None:
    reading = read_time(typed)
    assert (reading.value, reading.style) == (value, style)


@pytest.mark.parametrize(
    ("typed", "span"),
    [
        ("from 11 pm until 6:30 am", ("23:00", "06:30")),
        ("22:00–07:00", ("22:00", "07:00")),
        ("7-7", None),
    ],
)
def test_spans(typed: str, span: tuple[str, str] | None) -> None:
    assert read_span(typed).value == span


@pytest.mark.parametrize(
    ("typed", "days"),
    [
        ("Mondays and Fridays", {0, 4}),
        ("mon, wed and fri", {0, 2, 4}),
        ("working days", {0, 1, 2, 3, 4}),
        ("fri to mon", {4, 5, 6, 0}),
        ("someday", None),
    ],
)
def test_days(typed: str, days: set[int] | None) -> None:
    assert read_days(typed) == (None if days is None else frozenset(days))


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("a las 8 de la tarde", "20:00"),
        ("las 7 y media", "07:30"),
        ("la una y cuarto de la tarde", "13:15"),
        ("mediodía", "12:00"),
        ("20 hs", "20:00"),
        ("12 de la noche", "00:00"),
        ("2 de la madrugada", "02:00"),
        ("10 de la noche", "22:00"),
        ("13 de la tarde", None),
    ],
)
def test_times_typed_in_spanish(typed: str, value: str | None) -> None:
    assert read_time(typed).value == value


@pytest.mark.parametrize(
    ("typed", "span"),
    [
        ("de 10 de la noche a 7 de la mañana", ("22:00", "07:00")),
        ("entre las 23:00 y las 6:30", ("23:00", "06:30")),
        ("desde las 22 hasta las 7", ("22:00", "07:00")),
    ],
)
def test_spans_typed_in_spanish(typed: str, span: tuple[str, str]) -> None:
    assert read_span(typed).value == span


def test_a_list_of_times_in_spanish_keeps_y_media_whole() -> None:
    readings, _ = read_times("8 y media y 20:00")
    assert [reading.value for reading in readings] == ["08:30", "20:00"]


@pytest.mark.parametrize(
    ("typed", "days"),
    [
        ("de lunes a viernes", {0, 1, 2, 3, 4}),
        ("lunes, miércoles y viernes", {0, 2, 4}),
        ("entre semana", {0, 1, 2, 3, 4}),
        ("los fines de semana", {5, 6}),
        ("todos los días", set(range(7))),
        ("viernes a lunes", {4, 5, 6, 0}),
        ("algún día", None),
    ],
)
def test_days_typed_in_spanish(typed: str, days: set[int] | None) -> None:
    assert read_days(typed) == (None if days is None else frozenset(days))


@pytest.mark.parametrize(
    ("typed", "code"),
    [("México", "MX"), ("España", "ES"), ("EE. UU.", "US"), ("Reino Unido", "GB"),
     ("República Dominicana", "DO"), ("Alemania", "DE"), ("Germany", "DE")],
)  # fmt: skip
def test_countries_named_in_spanish(typed: str, code: str) -> None:
    assert parse_country(typed) == code


@pytest.mark.parametrize(
    ("typed", "zone"),
    [("Nueva York", "America/New_York"), ("Londres", "Europe/London"),
     ("Ciudad de México", "America/Mexico_City"), ("CDMX", "America/Mexico_City"),
     ("Tokio", "Asia/Tokyo"), ("Alemania", "Europe/Berlin")],
)  # fmt: skip
def test_places_named_in_spanish(typed: str, zone: str) -> None:
    guess = read_zone(typed, NOW)
    assert guess is not None and guess.zones[0] == zone


@pytest.mark.parametrize(
    ("typed", "value"),
    [("a las ocho", "08:00"), ("las diez de la noche", "22:00"), ("a las ocho y media", "08:30")],
)
def test_hours_written_as_spanish_words(typed: str, value: str) -> None:
    assert read_time(typed).value == value


@pytest.mark.parametrize(
    ("typed", "zones"),
    [("Lima, Perú", ("America/Lima",)), ("Berlin, Germany", ("Europe/Berlin",)),
     ("San Juan, Puerto Rico", ("America/Puerto_Rico",)),
     ("Villa Nueva, Guatemala", ("America/Guatemala",))],
)  # fmt: skip
def test_a_place_with_its_country(typed: str, zones: tuple[str, ...]) -> None:
    guess = read_zone(typed, NOW)
    assert guess is not None and guess.zones == zones


def test_san_juan_alone_offers_both_cities_of_that_name() -> None:
    guess = read_zone("San Juan", NOW)
    assert guess is not None
    assert {"America/Puerto_Rico", "America/Argentina/San_Juan"} <= set(guess.zones)
