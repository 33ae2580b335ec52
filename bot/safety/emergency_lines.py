"""The lines a crisis reply is made of: the number to dial (said plainly where no two
sources confirm it), each helpline, and one country at a glance.

Every function takes the reply's words (bot/safety/reply_words.py), so the same facts read
the same in every language the reply is written in.
"""

from __future__ import annotations

from enum import Enum

from bot.content_pack.ids import Msg
from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import CrisisResource, EmergencyNumbers
from bot.safety import contacts
from bot.safety.reply_words import ALWAYS_OPEN, ReplyWords

CRISIS_LINE = "crisis"
ABUSE_LINE = "domestic_abuse"
LINE_KINDS = (CRISIS_LINE, ABUSE_LINE)


class ReplyKind(Enum):
    """What a reply answers, which decides what leads: a crisis (the crisis line with the
    emergency number), danger from another person (the emergency number, then an abuse
    line), or a plain request for help (/sos: the emergency number, then one line of each
    kind, since nothing says which is needed)."""

    CRISIS = ""
    DANGER = ":danger"
    HELP = ":sos"

    @property
    def lead(self) -> str:
        return ABUSE_LINE if self is ReplyKind.DANGER else CRISIS_LINE


def helplines(content: ContentPack, words: ReplyWords, country: str) -> list[CrisisResource]:
    """The country's helplines. A locale reads its own entries, else the default locale's
    (ContentPack.country_resources). A reply language reads the default locale's, whose
    contacts it can tell in its own words, else those of any locale that lists the country."""
    if words.own is None:
        found = content.country_resources(words.language, country)
        return [] if found is None else list(found.resources)
    for locale in (content.default_locale, *sorted(content.locales)):
        listed = next((c for c in content.crisis(locale).countries if c.code == country), None)
        if listed is not None:
            return list(listed.resources)
    return []


def ranked(resources: list[CrisisResource], lead: str) -> list[CrisisResource]:
    """The kind the reply is about first; within a kind, lines open around the clock, then
    those that take a text or a chat (for someone who cannot speak aloud); otherwise the
    order of the data."""
    return sorted(
        resources,
        key=lambda resource: (
            resource.kind != lead,
            resource.hours != ALWAYS_OPEN,
            not resource.can_write,
        ),
    )


def first_shown(ordered: list[CrisisResource], kind: ReplyKind, room: int) -> list[CrisisResource]:
    """The helplines a first reply shows, in its order, at most `room` of them. /sos takes
    the first line of each kind before any second one: it must offer both."""
    if kind is not ReplyKind.HELP:
        return ordered[:room]
    firsts = [next((r for r in ordered if r.kind == wanted), None) for wanted in LINE_KINDS]
    chosen = [line for line in firsts if line is not None]
    chosen += [line for line in ordered if line not in chosen]
    return chosen[:room]


def resource_line(words: ReplyWords, resource: CrisisResource, with_url: bool = True) -> str:
    """ "Samaritans: Call free on 116 123 (24/7)." and its page. A locale shows the entry's
    own words for the contact; another language tells it in its own (contacts.py)."""
    contact = resource.contact if words.own is None else contacts.render(words, resource.contact)
    line = words.text(
        Msg.SAFETY_RESOURCE_LINE,
        name=words.ltr(resource.name),
        contact=contact,
        hours=words.hours(resource.hours),
    )
    return line if resource.url is None or not with_url else f"{line} {words.ltr(resource.url)}"


def emergency_sentence(words: ReplyWords, numbers: EmergencyNumbers, police_first: bool) -> str:
    """The number to dial and where, police or ambulance first as the reply needs. An entry
    that two sources do not confirm (`review`) is never stated as certain: it is offered as
    the number to try, said to be unconfirmed, with what else is known to work there."""
    where = words.country_in_sentence(numbers.code)
    police, ambulance = numbers.police_number, numbers.ambulance_number
    confirmed = not numbers.review
    if police == ambulance:
        one = Msg.SAFETY_EMERGENCY if confirmed else Msg.SAFETY_UNCONFIRMED
        line = words.text(one, number=words.ltr(police), country=where)
    else:
        if police_first:
            two = (
                Msg.SAFETY_EMERGENCY_POLICE_FIRST
                if confirmed
                else Msg.SAFETY_UNCONFIRMED_POLICE_FIRST
            )
        else:
            two = (
                Msg.SAFETY_EMERGENCY_AMBULANCE_FIRST
                if confirmed
                else Msg.SAFETY_UNCONFIRMED_AMBULANCE_FIRST
            )
        line = words.text(
            two, police=words.ltr(police), ambulance=words.ltr(ambulance), country=where
        )
    general = numbers.general
    if confirmed and general is not None and general not in (police, ambulance):
        line += " " + words.text(Msg.SAFETY_EMERGENCY_ALSO, number=words.ltr(general))
    if not confirmed:
        also = [number for number in known_to_work(numbers) if number not in (police, ambulance)]
        if also:
            listed = words.either([words.ltr(number) for number in also])
            line += " " + words.text(Msg.SAFETY_UNCONFIRMED_FALLBACK, numbers=listed)
        line += " " + words.text(Msg.SAFETY_UNCONFIRMED_NEARBY)
    if numbers.sms is not None:
        line += " " + words.text(Msg.SAFETY_EMERGENCY_SMS, number=words.ltr(numbers.sms))
    return line


def known_to_work(numbers: EmergencyNumbers) -> list[str]:
    """What else to try where an entry is unconfirmed: its general number, then the numbers
    the data lists as known to work there (a `fallback` list of numbers, where the data
    gives one: read when present, so entries without it still load and answer)."""
    found = [] if numbers.general is None else [numbers.general]
    for item in getattr(numbers, "fallback", None) or ():
        number = item if isinstance(item, str) else getattr(item, "number", None)
        if isinstance(number, str) and number not in found:
            found.append(number)
    return found


def glance_line(content: ContentPack, words: ReplyWords, code: str, lead: str) -> str | None:
    """One country in a line, for someone whose country is unknown: its emergency number
    (marked where unconfirmed) and one helpline of the kind the reply is about that takes
    calls, around the clock where one does. None for a country without numbers."""
    numbers = content.emergency_numbers(code)
    if numbers is None:
        return None
    police, ambulance = numbers.police_number, numbers.ambulance_number
    emergency = (
        words.text(Msg.SAFETY_GLANCE_EMERGENCY, number=words.ltr(police))
        if police == ambulance
        else words.text(
            Msg.SAFETY_GLANCE_EMERGENCY_TWO,
            police=words.ltr(police),
            ambulance=words.ltr(ambulance),
        )
    )
    if numbers.review:
        emergency = words.text(Msg.SAFETY_GLANCE_UNCONFIRMED, emergency=emergency)
    country = words.country_label(code)
    callable_lines = [
        line
        for line in ranked(helplines(content, words, code), lead)
        if line.kind == lead and "call" in line.modes and contacts.first_number(line.contact)
    ]
    callable_lines.sort(key=lambda line: line.hours != ALWAYS_OPEN)
    if not callable_lines:
        return words.text(Msg.SAFETY_GLANCE_ONLY, country=country, emergency=emergency)
    line = callable_lines[0]
    helpline = words.text(
        Msg.SAFETY_GLANCE_HELPLINE,
        name=words.ltr(line.name),
        number=words.ltr(contacts.first_number(line.contact) or ""),
    )
    return words.text(Msg.SAFETY_GLANCE, country=country, emergency=emergency, helpline=helpline)
