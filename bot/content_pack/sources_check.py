"""The content check's hold on facts a person in danger relies on: every emergency number
and every helpline number is stated by two independent publishers, one of them first-hand
(schema_sources.py), or its entry is marked `review: true` and carries what the reply
needs to say so plainly.

An unconfirmed emergency entry needs a `note` (what is known, why it is unconfirmed) and
a `fallback` number that is itself confirmed: one the file's `fallback_sources` confirm
(112 and 911, which mobile phones place as emergency calls everywhere). An unconfirmed
helpline needs a `note`. An entry may stay marked although two publishers state its
numbers, where a report says the line does not answer: its note says so.

Publishers are named by hand, so the check also holds the names steady: one site is
given one publisher, and one publisher one kind, across every file. Otherwise a second
spelling of a name, or two names for one newspaper, would count as a second source.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import ValidationError

from bot.content_pack.findings import Finding
from bot.content_pack.pack import ContentPack
from bot.content_pack.schema_crisis import CrisisResource, EmergencyNumbers, EmergencyNumbersFile
from bot.content_pack.schema_sources import (
    HelplineSource,
    Source,
    digits,
    emergency_confirmation,
    helpline_confirmation,
    numbers_in,
    publisher_key,
)
from bot.content_pack.yaml_lines import YamlSyntaxError, load_located

EMERGENCY_FILE = "emergency_numbers.yaml"
NEEDED = "2 publishers needed, one of them first-hand"


def check_sources(pack: ContentPack, content_dir: Path) -> list[Finding]:
    """Every emergency entry of the pack and every helpline of each locale."""
    fallback_sources = _fallback_sources(content_dir / EMERGENCY_FILE)
    found = list(_fallbacks_confirmed(fallback_sources))
    known_fallbacks = {
        digits(number)
        for source in fallback_sources
        for number in source.numbers
        if helpline_confirmation(fallback_sources, digits(number)).confirmed
    }
    every_source: list[tuple[str, Source]] = [
        (f"{EMERGENCY_FILE} fallback_sources", s) for s in fallback_sources
    ]
    for code in sorted(pack.emergency):
        entry = pack.emergency[code]
        found += _emergency(entry, known_fallbacks)
        every_source += [(f"{EMERGENCY_FILE} {code}", s) for s in entry.sources]
    for locale, content in sorted(pack.locales.items()):
        for country in content.crisis.countries:
            for resource in country.resources:
                where = f"{locale}/crisis.yaml {resource.id}"
                found += _helpline(where, resource)
                every_source += [(where, s) for s in resource.sources]
    found += _publishers_named_steadily(every_source)
    return found


def sources_summary(pack: ContentPack) -> list[str]:
    """How many entries two publishers confirm and how many are marked for review, for
    `steady content check` to print: the share still hedged is the work left."""
    entries = list(pack.emergency.values())
    lines = [_tally("emergency numbers", [not entry.review for entry in entries])]
    for locale, content in sorted(pack.locales.items()):
        lines.append(
            _tally(
                f"{locale} helplines",
                [
                    not resource.review
                    for country in content.crisis.countries
                    for resource in country.resources
                ],
            )
        )
    return ["sources of the numbers to dial:", *lines]


def _tally(what: str, confirmed: list[bool]) -> str:
    twice = sum(confirmed)
    return (
        f"  {what}: {len(confirmed)} entries, {twice} confirmed by two publishers, "
        f"{len(confirmed) - twice} marked review and hedged"
    )


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
        confirmation = helpline_confirmation(sources, number)
        if not confirmation.confirmed:
            yield Finding(
                f"{EMERGENCY_FILE} fallback_sources",
                f"{number} is {confirmation.describe()}; {NEEDED}",
            )


def _emergency(entry: EmergencyNumbers, known_fallbacks: set[str]) -> Iterator[Finding]:
    where = f"{EMERGENCY_FILE} {entry.code}"
    unconfirmed = entry.unconfirmed
    if not entry.review:
        for field in unconfirmed:
            number = getattr(entry, field)
            confirmation = emergency_confirmation(entry.sources, field, number)
            yield Finding(
                where,
                f"{field} {number} is {confirmation.describe()}; {NEEDED}, "
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
    if not resource.review:
        for number in numbers:
            confirmation = helpline_confirmation(resource.sources, number)
            if not confirmation.confirmed:
                yield Finding(
                    where,
                    f"{number} is {confirmation.describe()}; {NEEDED}, "
                    "or mark it review: true with a note",
                )
        return
    if resource.note is None:
        yield Finding(where, "marked for review without a note of what is known and why")


def _publishers_named_steadily(sources: Iterable[tuple[str, Source]]) -> Iterator[Finding]:
    """One site, one publisher; one publisher, one kind (each reported where it first
    differs from the name or kind given before)."""
    publisher_of_site: dict[str, str] = {}
    kind_of_publisher: dict[str, str] = {}
    reported: defaultdict[str, set[str]] = defaultdict(set)
    for where, source in sources:
        named = publisher_of_site.setdefault(source.site, source.publisher)
        if (
            publisher_key(named) != source.publisher_key
            and source.publisher not in reported[source.site]
        ):
            reported[source.site].add(source.publisher)
            yield Finding(
                where,
                f"{source.site} is published by {named!r} elsewhere, here by "
                f"{source.publisher!r}: one site is one publisher",
            )
        kind = kind_of_publisher.setdefault(source.publisher_key, source.kind)
        if kind != source.kind and source.kind not in reported[source.publisher_key]:
            reported[source.publisher_key].add(source.kind)
            yield Finding(
                where,
                f"{source.publisher!r} is a source of kind {kind!r} elsewhere, here "
                f"{source.kind!r}: one publisher is one kind",
            )
