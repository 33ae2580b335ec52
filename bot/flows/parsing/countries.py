"""Countries from what people type: an ISO code ("de") or a name ("Germany", "UK")."""

from __future__ import annotations

from bot.content_pack.countries import country_names
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
