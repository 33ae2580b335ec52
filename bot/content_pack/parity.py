"""Every locale holds what the default locale holds: the checks `steady content check`
runs across locales.

A locale that lacks a message still loads: the bot shows that message in the default
locale instead (never its id), and these checks report the gap so it gets written. Items
are compared by id, with every field that is not words: a card about grief is about
grief in every language, a morning opening is for the morning, and a user's favourite or
history points at the same card whichever language they read it in.

Crisis helplines may cover fewer countries than the default locale: a country a locale
leaves out is answered with the default locale's helplines for it, framed in the locale's
own words (`ContentPack.country_resources`). A helpline listed in both is the same line,
so its kind, modes and hours must agree (its page may be the one in the locale's language).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from bot.content_pack.findings import Finding
from bot.content_pack.pack import ContentPack, LocaleContent

# The words of an item; every other field must match the default locale's item.
WORDS = frozenset({"text", "title", "intro", "closing"})
# Lists of words: their length must match (an exercise keeps its number of steps).
WORD_LISTS = frozenset({"steps"})
# A helpline's facts, which do not change with the language it is described in.
# Its address may differ: a locale may link the line's page in its own language.
HELPLINE_FACTS = ("kind", "modes", "hours", "languages")


def check_parity(pack: ContentPack) -> list[Finding]:
    default = pack.locales[pack.default_locale]
    found: list[Finding] = []
    for locale, content in sorted(pack.locales.items()):
        if locale != pack.default_locale:
            found += _messages(default, content)
            found += _commands(default, content)
            found += _countries(default, content)
            found += _crisis(default, content)
            for file_name, ours, theirs in _item_files(default, content):
                found += _items(locale, file_name, ours, theirs)
    return found


def _messages(default: LocaleContent, content: LocaleContent) -> Iterator[Finding]:
    where = f"{content.locale}/messages"
    for key in sorted(set(default.messages) - set(content.messages)):
        yield Finding(where, f"message {key!r} is missing ({default.locale} is shown instead)")
    for key in sorted(set(content.messages) - set(default.messages)):
        yield Finding(where, f"message {key!r} is not in {default.locale}")


def _commands(default: LocaleContent, content: LocaleContent) -> Iterator[Finding]:
    ours = {info.name for info in default.commands}
    theirs = {info.name for info in content.commands}
    where = f"{content.locale}/commands.yaml"
    for name in sorted(ours - theirs):
        yield Finding(where, f"command {name!r} has no description")
    local = [info.local_name for info in content.commands if info.local_name is not None]
    for name in sorted({name for name in local if local.count(name) > 1}):
        yield Finding(where, f"two commands are both called {name!r}")


def _countries(default: LocaleContent, content: LocaleContent) -> Iterator[Finding]:
    missing = sorted(set(default.countries) - set(content.countries))
    if missing:
        yield Finding(f"{content.locale}/countries.yaml", f"no name for: {', '.join(missing)}")


def _crisis(default: LocaleContent, content: LocaleContent) -> Iterator[Finding]:
    theirs = {r.id: r for c in default.crisis.countries for r in c.resources}
    for country in content.crisis.countries:
        for resource in country.resources:
            same = theirs.get(resource.id)
            if same is None:
                continue
            for fact in HELPLINE_FACTS:
                if getattr(resource, fact) != getattr(same, fact):
                    yield Finding(
                        f"{content.locale}/crisis.yaml {resource.id}",
                        f"{fact} differs from {default.locale}: "
                        f"{getattr(resource, fact)!r} and {getattr(same, fact)!r}",
                    )


def _item_files(
    default: LocaleContent, content: LocaleContent
) -> Iterable[tuple[str, list[Any], list[Any]]]:
    return (
        ("affirmations.yaml", default.affirmations, content.affirmations),
        ("openings.yaml", default.openings, content.openings),
        ("checkin_replies.yaml", default.checkin_replies, content.checkin_replies),
        ("exercises.yaml", default.exercises, content.exercises),
        ("reflections.yaml", default.reflections, content.reflections),
    )


def _items(locale: str, file_name: str, ours: list[Any], theirs: list[Any]) -> Iterator[Finding]:
    where = f"{locale}/{file_name}"
    by_id = {item.id: item for item in theirs}
    wanted = {item.id: item for item in ours}
    for item_id in sorted(set(wanted) - set(by_id)):
        yield Finding(where, f"{item_id} is missing")
    for item_id in sorted(set(by_id) - set(wanted)):
        yield Finding(where, f"{item_id} is not in the default locale")
    for item_id in sorted(set(wanted) & set(by_id)):
        for field, expected, actual in _differences(wanted[item_id], by_id[item_id]):
            yield Finding(f"{where} {item_id}", f"{field} is {actual!r}, not {expected!r}")


def _differences(ours: Any, theirs: Any) -> Iterator[tuple[str, Any, Any]]:
    """Each field, other than words, whose value differs (for lists of words, their length)."""
    expected, actual = ours.model_dump(), theirs.model_dump()
    for field in expected:
        if field in WORDS:
            continue
        if field in WORD_LISTS:
            if len(expected[field]) != len(actual[field]):
                yield f"the number of {field}", len(expected[field]), len(actual[field])
        elif expected[field] != actual[field]:
            yield field, expected[field], actual[field]
