"""The content check's hold on facts a person in danger relies on: every emergency number
and every helpline number is stated by two independent sources (two sites), or its entry
is marked `review: true` and carries what the reply needs to say so plainly.

An unconfirmed emergency entry needs a `note` (what is known, why it is unconfirmed) and
a `fallback` number that is itself confirmed: one the file's `fallback_sources` state
on two sites (112 and 911, which mobile phones place as emergency calls everywhere). An
unconfirmed helpline needs a `note`. An entry may stay marked although two sites state
its numbers, where a report says the line does not answer: its note says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from bot.content_pack.findings import Finding
from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import CrisisResource, EmergencyNumbers, EmergencyNumbersFile
from bot.content_pack.schema_sources import (
    HelplineSource,
    confirming_sites,
    digits,
    numbers_in,
    sites_stating,
)
from bot.content_pack.yaml_lines import YamlSyntaxError, load_located

EMERGENCY_FILE = "emergency_numbers.yaml"
SITES_NEEDED = 2


def check_sources(pack: ContentPack, content_dir: Path) -> list[Finding]:
    """Every emergency entry of the pack and every helpline of each locale."""
    fallback_sources = _fallback_sources(content_dir / EMERGENCY_FILE)
    found = list(_fallbacks_confirmed(fallback_sources))
    known_fallbacks = {
        digits(number)
        for source in fallback_sources
        for number in source.numbers
        if sites_stating(fallback_sources, digits(number)) >= SITES_NEEDED
    }
    for code in sorted(pack.emergency):
        found += _emergency(pack.emergency[code], known_fallbacks)
    for locale, content in sorted(pack.locales.items()):
        for country in content.crisis.countries:
            for resource in country.resources:
                found += _helpline(f"{locale}/crisis.yaml {resource.id}", resource)
    return found


def _fallback_sources(path: Path) -> list[HelplineSource]:
    """The file-wide sources of the fallback numbers (the pack keeps only the entries;
    the file loaded already, so reading it again cannot fail on a pack that loads)."""
    try:
        data = load_located(path.read_text("utf-8")).data
        return EmergencyNumbersFile.model_validate(data).fallback_sources
    except (OSError, YamlSyntaxError, ValidationError, UnicodeDecodeError):
        return []


def _fallbacks_confirmed(sources: list[HelplineSource]) -> Iterator[Finding]:
    stated = {digits(number) for source in sources for number in source.numbers}
    for number in sorted(stated):
        if sites_stating(sources, number) < SITES_NEEDED:
            yield Finding(
                f"{EMERGENCY_FILE} fallback_sources",
                f"{number} is stated by {sites_stating(sources, number)} site(s); "
                f"{SITES_NEEDED} needed",
            )


def _emergency(entry: EmergencyNumbers, known_fallbacks: set[str]) -> Iterator[Finding]:
    where = f"{EMERGENCY_FILE} {entry.code}"
    unconfirmed = entry.unconfirmed
    if not entry.review:
        for field in unconfirmed:
            number = getattr(entry, field)
            sites = confirming_sites(entry.sources, field, number)
            yield Finding(
                where,
                f"{field} {number} is stated by {sites} site(s); {SITES_NEEDED} needed, "
                "or mark the entry review: true with a note and a fallback",
            )
        return
    if entry.note is None:
        yield Finding(where, "marked for review without a note of what is known and why")
    if not entry.fallback:
        yield Finding(where, "marked for review without a fallback number to give as well")
    for number in entry.fallback:
        if digits(number) not in known_fallbacks:
            yield Finding(
                where, f"fallback {number} is not one that fallback_sources confirm twice"
            )


def _helpline(where: str, resource: CrisisResource) -> Iterator[Finding]:
    numbers = numbers_in(resource.contact)
    if not numbers:
        yield Finding(where, "contact gives no number to call or text")
    if not resource.languages:
        yield Finding(where, "languages is missing: say which language(s) it answers in")
    unconfirmed = [n for n in numbers if sites_stating(resource.sources, n) < SITES_NEEDED]
    if not resource.review:
        for number in unconfirmed:
            sites = sites_stating(resource.sources, number)
            yield Finding(
                where,
                f"{number} is stated by {sites} site(s); {SITES_NEEDED} needed, "
                "or mark it review: true with a note",
            )
        return
    if resource.note is None:
        yield Finding(where, "marked for review without a note of what is known and why")
