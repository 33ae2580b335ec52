"""The lines a crisis reply is made of: the number to dial (said plainly where no two
sources confirm it), each helpline, and one country at a glance.

Every function takes the reply's words (bot/safety/reply_words.py), so the same facts read
the same in every language the reply is written in.
"""

from __future__ import annotations

from enum import Enum

from bot.content_pack.ids import SafetyMsg
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
    lines whose numbers are confirmed, then those that take a text or a chat (for someone
    who cannot speak aloud); otherwise the order of the data."""
    return sorted(
        resources,
        key=lambda resource: (
            resource.kind != lead,
            resource.hours != ALWAYS_OPEN,
            unconfirmed(resource),
            not resource.can_write,
        ),
    )


def open_crisis_line(resources: list[CrisisResource]) -> CrisisResource | None:
    """The crisis line a crisis reply names with the emergency number: open around the
    clock, confirmed where one is, and one that can be called where one can (a voice
    answers at once; the lines that take texts follow it); among equals, the first the
    data lists (a country's national line comes first there)."""
    always = [r for r in resources if r.kind == CRISIS_LINE and r.hours == ALWAYS_OPEN]
    return min(
        always,
        key=lambda resource: (unconfirmed(resource), "call" not in resource.modes),
        default=None,
    )


def unconfirmed(item: CrisisResource | EmergencyNumbers) -> bool:
    """Marked `review`: two sources do not confirm its numbers."""
    return bool(getattr(item, "review", False))


def first_shown(
    resources: list[CrisisResource], kind: ReplyKind, room: int
) -> list[CrisisResource]:
    """The helplines a first reply shows, in its order, at most `room` of them, from the
    country's lines in the data's order. A crisis leads with its open crisis line; /sos
    takes the first line of each kind before any second one: it must offer both."""
    ordered = ranked(resources, kind.lead)
    if kind is ReplyKind.CRISIS:
        lead = open_crisis_line(resources)
        chosen = [] if lead is None else [lead]
    else:
        wanted = LINE_KINDS if kind is ReplyKind.HELP else ()
        firsts = [next((r for r in ordered if r.kind == one), None) for one in wanted]
        chosen = [line for line in firsts if line is not None]
    chosen += [line for line in ordered if line not in chosen]
    return chosen[:room]


def resource_line(words: ReplyWords, resource: CrisisResource, with_url: bool = True) -> str:
    """ "Samaritans: Call free on 116 123 (24/7)." and its page. A locale shows the entry's
    own words for the contact; another language tells it in its own (contacts.py). A line
    that answers in other languages than the reply's says which; a line whose number two
    sources do not confirm says so."""
    contact = resource.contact if words.own is None else contacts.render(words, resource.contact)
    line = words.text(
        SafetyMsg.SAFETY_RESOURCE_LINE,
        name=words.ltr(words.helpline_name(resource)),
        contact=contact,
        hours=words.hours(resource.hours),
    )
    spoken = answered_in(resource)
    if spoken and words.language.split("-")[0] not in spoken:
        names = words.either([words.language_name(code) for code in spoken])
        line = words.sentences(line, words.text(SafetyMsg.SAFETY_LINE_LANGUAGES, languages=names))
    if unconfirmed(resource):
        line = words.sentences(line, words.text(SafetyMsg.SAFETY_LINE_UNCONFIRMED))
    return line if resource.url is None or not with_url else f"{line} {words.ltr(resource.url)}"


def answered_in(resource: CrisisResource) -> list[str]:
    """The languages a line answers in, where the data says (`languages`: read when
    present, so entries without it still load and answer)."""
    found = getattr(resource, "languages", None) or ()
    return [code.split("-")[0] for code in found if isinstance(code, str)]


def emergency_sentence(words: ReplyWords, numbers: EmergencyNumbers, police_first: bool) -> str:
    """The number to dial and where, police or ambulance first as the reply needs. An entry
    that two sources do not confirm (`review`) is never stated as certain: it is offered as
    the number to try, said to be unconfirmed, with what is known to work there."""
    where = words.country_in_sentence(numbers.code)
    police, ambulance = service_numbers(numbers)
    confirmed = not unconfirmed(numbers)
    if police == ambulance:
        one = SafetyMsg.SAFETY_EMERGENCY if confirmed else SafetyMsg.SAFETY_UNCONFIRMED
        line = words.text(one, number=words.ltr(police), country=where)
    else:
        two = {
            (True, True): SafetyMsg.SAFETY_EMERGENCY_POLICE_FIRST,
            (True, False): SafetyMsg.SAFETY_EMERGENCY_AMBULANCE_FIRST,
            (False, True): SafetyMsg.SAFETY_UNCONFIRMED_POLICE_FIRST,
            (False, False): SafetyMsg.SAFETY_UNCONFIRMED_AMBULANCE_FIRST,
        }[confirmed, police_first]
        line = words.text(
            two, police=words.ltr(police), ambulance=words.ltr(ambulance), country=where
        )
    named = {police, ambulance}
    general = numbers.general
    fallback = [] if confirmed else [n for n in mobile_fallback(numbers) if n not in named]
    if general is not None and general not in named and general not in fallback:
        also = SafetyMsg.SAFETY_EMERGENCY_ALSO if confirmed else SafetyMsg.SAFETY_UNCONFIRMED_ALSO
        line = words.sentences(line, words.text(also, number=words.ltr(general)))
    if not confirmed:
        if fallback:
            listed = words.either([words.ltr(number) for number in fallback])
            line = words.sentences(
                line, words.text(SafetyMsg.SAFETY_UNCONFIRMED_FALLBACK, numbers=listed)
            )
        line = words.sentences(line, words.text(SafetyMsg.SAFETY_UNCONFIRMED_NEARBY))
    if numbers.sms is not None:
        line = words.sentences(
            line, words.text(SafetyMsg.SAFETY_EMERGENCY_SMS, number=words.ltr(numbers.sms))
        )
    return line


def service_numbers(numbers: EmergencyNumbers) -> tuple[str, str]:
    """The police and the ambulance numbers: each its own, else the general number, else
    the first a mobile phone places (`fallback`), as the sourced data reads them."""
    spare = next(iter(mobile_fallback(numbers)), "")
    general = numbers.general or spare
    return numbers.police or general, numbers.ambulance or general


def mobile_fallback(numbers: EmergencyNumbers) -> list[str]:
    """The numbers known to place an emergency call from a mobile phone there when the
    entry's own are unconfirmed (`fallback`: 112, or 911 across the Americas). Read when
    the data has them, so entries without them still load and answer."""
    found = getattr(numbers, "fallback", None) or ()
    return list(dict.fromkeys(number for number in found if isinstance(number, str)))


def glance_line(content: ContentPack, words: ReplyWords, code: str, lead: str) -> str | None:
    """One country in a line, for someone whose country is unknown: its emergency number
    (marked where unconfirmed) and one helpline of the kind the reply is about that takes
    calls, around the clock where one does. None for a country without numbers."""
    numbers = content.emergency_numbers(code)
    if numbers is None:
        return None
    police, ambulance = service_numbers(numbers)
    emergency = (
        words.text(SafetyMsg.SAFETY_GLANCE_EMERGENCY, number=words.ltr(police))
        if police == ambulance
        else words.text(
            SafetyMsg.SAFETY_GLANCE_EMERGENCY_TWO,
            police=words.ltr(police),
            ambulance=words.ltr(ambulance),
        )
    )
    if unconfirmed(numbers):
        emergency = words.text(SafetyMsg.SAFETY_GLANCE_UNCONFIRMED, emergency=emergency)
    country = words.country_label(code)
    callable_lines = [
        line
        for line in ranked(helplines(content, words, code), lead)
        if line.kind == lead and "call" in line.modes and contacts.first_number(line.contact)
    ]
    if not callable_lines:
        return words.text(SafetyMsg.SAFETY_GLANCE_ONLY, country=country, emergency=emergency)
    line = callable_lines[0]
    helpline = words.text(
        SafetyMsg.SAFETY_GLANCE_HELPLINE,
        name=words.ltr(words.helpline_name(line)),
        number=words.ltr(contacts.first_number(line.contact) or ""),
    )
    return words.text(
        SafetyMsg.SAFETY_GLANCE, country=country, emergency=emergency, helpline=helpline
    )
