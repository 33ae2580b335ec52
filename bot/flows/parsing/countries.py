"""Countries from what people type: an ISO code ("de") or a name ("Germany", "UK", "Alemania")."""

from __future__ import annotations

from functools import cache

from babel import Locale

from bot.content_pack.countries import country_names
from bot.content_pack.pack import ContentPack
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


def parse_country(text: str, codes: bool = True) -> str | None:
    """An ISO code for a typed name ("Germany", "UK", "Alemania") or, with `codes`, a
    two-letter code ("de"); None if unknown. A name is tried first: "Chad" is a name."""
    cleaned = normalise(text).strip(" .")
    if not cleaned:
        return None
    if cleaned in _ALIASES:
        return _ALIASES[cleaned]
    named = _names().get(cleaned)
    if named is not None:
        return named
    return country_code(cleaned) if codes else None


def country_code(text: str) -> str | None:
    """The country whose ISO code `text` is ("de", "NO"), or None. Callers make sure a
    short word ("no", "sí", "me") is not read this way where it means something else."""
    cleaned = normalise(text).strip(" .")
    if len(cleaned) == 2 and cleaned.upper() in country_names():
        return cleaned.upper()
    return None


def country_named(content: ContentPack, text: str, codes: bool = False) -> str | None:
    """The country `text` names in any language of the pack ("España", "los Países Bajos",
    "germany"), or by CLDR's names and everyday ones ("UK"); with `codes`, a code too."""
    typed = normalise(text).strip(" .")
    if not typed:
        return None
    for locale in content.locales.values():
        for code, country in locale.countries.items():
            if typed in {normalise(country.name), normalise(country.sentence_name)}:
                return code
    return parse_country(typed, codes=codes)


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
