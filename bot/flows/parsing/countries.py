"""Countries from what people type: an ISO code ("de") or a name ("Germany", "UK", "Alemania")."""

from __future__ import annotations

from functools import cache

from babel import Locale

from bot.content_pack.countries import country_names
from bot.safety.normalise import normalise

# Besides English, country names are read in these languages (CLDR's names, through Babel),
# whatever the user's locale: people name their country in the language they think in.
NAME_LANGUAGES = ("es",)

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
    "eeuu": "US",
    "ee uu": "US",
    "ee.uu": "US",
    "ee. uu": "US",
    "inglaterra": "GB",
    "escocia": "GB",
    "gales": "GB",
    "gran bretana": "GB",
}


def parse_country(text: str) -> str | None:
    """An ISO code for a typed code ("de") or name ("Germany", "UK"); None if unknown."""
    cleaned = normalise(text).strip(" .")
    if not cleaned:
        return None
    if len(cleaned) == 2 and cleaned.upper() in country_names():
        return cleaned.upper()
    if cleaned in _ALIASES:
        return _ALIASES[cleaned]
    return _names().get(cleaned)


@cache
def _names() -> dict[str, str]:
    """Every name we read, normalised, to its ISO code; built on first use."""
    names = {normalise(name): code for code, name in country_names().items()}
    known = set(country_names())
    for language in NAME_LANGUAGES:
        for code, name in Locale.parse(language).territories.items():
            if code in known:
                names.setdefault(normalise(name), code)
    return names
