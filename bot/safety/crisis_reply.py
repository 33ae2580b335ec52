"""The crisis reply, composed: what someone in crisis or danger reads first, in the order
they need it, in the language they wrote in.

- A crisis: a short line, then a 24/7 crisis line and the emergency number together
  ("988 Suicide & Crisis Lifeline: Call or text 988 ... If you're in danger now, call 911").
- Danger from another person: the emergency number first, then a domestic-abuse line.
- /sos, which says nothing of why it was asked: the emergency number, then at least one
  crisis line and one domestic-abuse line.
- At most three helplines at first; the rest and the worldwide directory behind "More
  helplines" (the directory stays in sight only where a country has no helpline at all).
- Country unknown: the likeliest countries' numbers inline (from the time zone and the
  language), the numbers that work in many places, and countries to tap below.

Nothing here touches the database: a crisis reply is built from the content pack alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot.content_pack.countries import likely_countries_for_timezone
from bot.content_pack.ids import GeneralMsg, Msg, PlanMsg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import EmergencyNumbers
from bot.core.replies import Button, Reply
from bot.safety.buttons import (
    CHECK_HELP,
    CHECK_HELP_DANGER,
    CHECK_SAFE,
    SOS_CARD,
    SOS_COUNTRY,
    SOS_MISREAD,
    SOS_MORE,
    SOS_PLAN,
    SOS_SHOW,
    tagged,
)
from bot.safety.emergency_lines import (
    ReplyKind,
    emergency_sentence,
    first_shown,
    glance_line,
    helplines,
    open_crisis_line,
    ranked,
    resource_line,
    service_numbers,
)
from bot.safety.reply_words import ReplyWords, speaks, words_for

# Read in panic: a few lines to choose from, the rest one tap away.
FIRST_HELPLINES = 3
COUNTRY_BUTTONS = 8
# Country unknown: this many of the likeliest countries with their numbers inline.
GLANCE_COUNTRIES = 3
# Someone in panic reads the start: a number to dial comes within this many words.
FIRST_NUMBER_WORDS = 25


@dataclass(frozen=True, slots=True)
class Voice:
    """A reply's words, and the language its buttons carry when pressed (None: the user's
    own locale, which answers a press anyway)."""

    words: ReplyWords
    tag: str | None = None

    def text(self, message: Msg, /, **values: str | int) -> str:
        return self.words.text(message, **values)

    def button(self, message: Msg, data: str) -> Button:
        return Button(self.words.text(message), tagged(data, self.tag))


@dataclass(frozen=True, slots=True)
class Whereabouts:
    """What may say where someone is when their country is unknown: the time zone they
    gave, and their app's language ("en-GB", "pt-BR")."""

    timezone: str | None = None
    language_code: str | None = None


class CrisisReplies:
    def __init__(self, content: ContentPack) -> None:
        self._content = content

    def voice(self, locale: str, language: str | None = None) -> Voice:
        """Words in `language` where a whole reply can be written in it, else in the user's
        locale; buttons tagged when that is not the user's own."""
        chosen = language if speaks(self._content, language) else locale
        words = words_for(self._content, chosen or locale)
        return Voice(words, None if words.language == locale else words.language)

    def full(
        self,
        voice: Voice,
        country: str | None,
        kind: ReplyKind,
        has_plan: bool = False,
        where: Whereabouts | None = None,
        misread: bool = True,
    ) -> Reply:
        """A short first line, then the numbers: the answer to crisis or danger said plainly.
        `misread`: whether "you misread me" is offered (not when they chose this reply)."""
        intro = (
            SafetyMsg.SAFETY_DANGER_INTRO
            if kind is ReplyKind.DANGER
            else SafetyMsg.SAFETY_CRISIS_INTRO
        )
        body = self.numbers(voice, country, kind, where, misread=None if misread else False)
        reply = Reply(text=f"{voice.text(intro)}\n\n{body.text}", buttons=body.buttons)
        return self.with_plan(voice, reply, has_plan)

    def numbers(
        self,
        voice: Voice,
        country: str | None,
        kind: ReplyKind,
        where: Whereabouts | None = None,
        safety_card: bool | None = None,
        misread: bool | None = None,
    ) -> Reply:
        """The numbers to call and their buttons. The safety card comes with danger and
        /sos; "you misread me" with every reply to what someone wrote (not /sos)."""
        card = kind is not ReplyKind.CRISIS if safety_card is None else safety_card
        misread = kind is not ReplyKind.HELP if misread is None else misread
        numbers = self._content.emergency_numbers(country)
        if numbers is None:
            return self._unknown_country(voice, kind, where or Whereabouts(), misread)
        words = voice.words
        listed = helplines(self._content, words, numbers.code)
        ordered = ranked(listed, kind.lead)
        shown = first_shown(listed, kind, FIRST_HELPLINES)
        emergency = emergency_sentence(words, numbers, police_first=kind is ReplyKind.DANGER)
        lead = open_crisis_line(listed) if kind is ReplyKind.CRISIS else None
        if lead is not None:
            # The crisis line and the emergency number together, the line first; its page
            # on a line of its own, so the number to dial ends the sentence it is in. A
            # long name or opening that would hold the first number back puts the
            # emergency number first on that line instead.
            told = resource_line(words, lead, with_url=False)
            intro = voice.text(SafetyMsg.SAFETY_CRISIS_INTRO)
            together = [told, emergency]
            if words_before_a_number(f"{intro} {told}") > FIRST_NUMBER_WORDS:
                together.reverse()
            lines = [words.sentences(*together)]
            lines += [words.ltr(lead.url)] if lead.url else []
            lines += [resource_line(words, line) for line in shown[1:]]
        else:
            lines = [emergency, *(resource_line(words, line) for line in shown)]
        paragraphs = ["\n".join(lines), self._closing(voice, kind)]
        if not ordered:  # nothing local beyond the emergency number: the directory in sight
            paragraphs.append(self._directory_line(voice))
        rows: list[tuple[Button, ...]] = []
        if ordered:
            rows.append((voice.button(SafetyMsg.SAFETY_MORE_BUTTON, SOS_MORE + kind.value),))
        if card:
            rows.append((voice.button(SafetyMsg.SAFETY_CARD_BUTTON, SOS_CARD),))
        if misread:
            rows.append((voice.button(SafetyMsg.SAFETY_MISREAD_BUTTON, SOS_MISREAD),))
        return Reply(text="\n\n".join(paragraphs), buttons=tuple(rows))

    def more(
        self, voice: Voice, country: str | None, kind: ReplyKind, where: Whereabouts | None = None
    ) -> Reply:
        """ "More helplines": the lines the first reply left out, and the worldwide directory."""
        numbers = self._content.emergency_numbers(country)
        if numbers is None:
            return self._unknown_country(voice, kind, where or Whereabouts(), misread=False)
        words = voice.words
        listed = helplines(self._content, words, numbers.code)
        shown = first_shown(listed, kind, FIRST_HELPLINES)
        rest = [line for line in ranked(listed, kind.lead) if line not in shown]
        paragraphs = [self._directory_line(voice)]
        if rest:
            named = words.country_in_sentence(numbers.code)
            lines = "\n".join(resource_line(words, line) for line in rest)
            paragraphs[:0] = [voice.text(SafetyMsg.SAFETY_MORE_INTRO, country=named), lines]
        return Reply(text="\n\n".join(paragraphs))

    def check(self, voice: Voice, danger: bool) -> Reply:
        """One kind line and two buttons: the words matched, but their context (a negation,
        the past, someone else, a title, an accident) says they may not be about now."""
        buttons = (
            (voice.button(SafetyMsg.SAFETY_CHECK_SAFE_BUTTON, CHECK_SAFE),),
            (
                voice.button(
                    SafetyMsg.SAFETY_CHECK_HELP_BUTTON, CHECK_HELP_DANGER if danger else CHECK_HELP
                ),
            ),
        )
        return Reply(text=voice.text(SafetyMsg.SAFETY_CHECK), buttons=buttons)

    def check_answered(
        self,
        voice: Voice,
        data: str,
        country: str | None,
        has_plan: bool = False,
        where: Whereabouts | None = None,
    ) -> Reply | None:
        """A press on a check's button: the full reply, or a short acknowledgement."""
        if data == CHECK_SAFE:
            return Reply(text=voice.text(SafetyMsg.SAFETY_CHECK_SAFE_REPLY))
        if data in (CHECK_HELP, CHECK_HELP_DANGER):
            kind = ReplyKind.DANGER if data == CHECK_HELP_DANGER else ReplyKind.CRISIS
            return self.full(voice, country, kind, has_plan, where)
        return None

    def misread(self, voice: Voice) -> Reply:
        button = voice.button(SafetyMsg.SAFETY_SHOW_BUTTON, SOS_SHOW)
        return Reply(text=voice.text(SafetyMsg.SAFETY_MISREAD_REPLY), buttons=((button,),))

    def card(self, voice: Voice) -> Reply:
        """Privacy and safety tips for danger from another person, behind a button."""
        return Reply(text=voice.text(SafetyMsg.SAFETY_CARD))

    def country_chosen(
        self, voice: Voice, country: str, kind: ReplyKind, saved: bool, has_plan: bool = False
    ) -> Reply:
        """After a country button: its numbers, and (when it was stored) how to change it."""
        reply = self.with_plan(voice, self.numbers(voice, country, kind), has_plan)
        if not saved:
            return reply
        name = voice.words.country_label(country)
        note = voice.text(SafetyMsg.SAFETY_COUNTRY_SAVED, country=name)
        return replace(reply, text=f"{reply.text}\n\n{note}")

    def with_plan(self, voice: Voice, reply: Reply, has_plan: bool) -> Reply:
        """The user's own plan as the first button, when they wrote one."""
        if not has_plan:
            return reply
        button = voice.button(PlanMsg.PLAN_BUTTON, SOS_PLAN)
        return replace(reply, buttons=((button,), *reply.buttons))

    def in_private(self, voice: Voice, reply: Reply, is_group: bool) -> Reply:
        """In a group: nothing about the person in public, the help in private. If the
        private message cannot be sent, the group gets a link that opens one, and /sos."""
        if not is_group:
            return reply
        notice = Reply(text=voice.text(SafetyMsg.SAFETY_GROUP_PUBLIC))
        button = Button(voice.text(GeneralMsg.GROUP_OPEN_PRIVATE), "", open_private="sos")
        fallback = Reply(text=voice.text(SafetyMsg.SAFETY_GROUP_FALLBACK), buttons=((button,),))
        return replace(reply, private=True, group_notice=notice, group_fallback=fallback)

    def _closing(self, voice: Voice, kind: ReplyKind) -> str:
        hope = (
            SafetyMsg.SAFETY_HOPE_DANGER
            if kind is ReplyKind.DANGER
            else SafetyMsg.SAFETY_HOPE_CRISIS
        )
        return voice.words.sentences(voice.text(SafetyMsg.SAFETY_NOT_SURE), voice.text(hope))

    def _directory_line(self, voice: Voice) -> str:
        directory = self._content.crisis(self._content.default_locale).fallback.directory
        if voice.words.own is None:
            directory = self._content.crisis(voice.words.language).fallback.directory
        return voice.text(
            SafetyMsg.SAFETY_DIRECTORY,
            name=voice.words.ltr(directory.name),
            url=voice.words.ltr(directory.url),
        )

    def _unknown_country(
        self, voice: Voice, kind: ReplyKind, where: Whereabouts, misread: bool
    ) -> Reply:
        """No country known: the likeliest countries' numbers at a glance, the numbers that
        work in many places, and countries to tap for the full list."""
        words = voice.words
        codes = self.likely_countries(words, where)
        glances = [
            line
            for line in (
                glance_line(self._content, words, code, kind.lead)
                for code in codes[:GLANCE_COUNTRIES]
            )
            if line is not None
        ]
        first = glances or [voice.text(SafetyMsg.SAFETY_EMERGENCY_GENERIC)]
        paragraphs = [
            "\n".join([*first, voice.text(SafetyMsg.SAFETY_WIDE_NUMBERS)]),
            self._closing(voice, kind),
            voice.text(SafetyMsg.SAFETY_NO_COUNTRY),
            self._directory_line(voice),
        ]
        buttons = [
            Button(words.country_label(code), tagged(f"{SOS_COUNTRY}{code}{kind.value}", voice.tag))
            for code in codes[:COUNTRY_BUTTONS]
        ]
        rows = [tuple(buttons[index : index + 2]) for index in range(0, len(buttons), 2)]
        if misread:
            rows.append((voice.button(SafetyMsg.SAFETY_MISREAD_BUTTON, SOS_MISREAD),))
        return Reply(text="\n\n".join(paragraphs), buttons=tuple(rows))

    def likely_countries(self, words: ReplyWords, where: Whereabouts) -> list[str]:
        """Where someone is most likely, best guess first: the countries of their time zone,
        the region their app's language names ("pt-BR": Brazil), then the countries of the
        language they wrote in and of their app's language, taken in turn (German words
        from an English app: Germany, the United States, Austria, the United Kingdom ...)."""
        guesses = likely_countries_for_timezone(where.timezone)
        code = (where.language_code or "").replace("_", "-")
        base, _, region = code.partition("-")
        if len(region) == 2 and region.isalpha():
            guesses.append(region.upper())
        written = list(words.likely_countries())
        app = base.lower()
        spoken = (
            list(words_for(self._content, app).likely_countries())
            if speaks(self._content, app)
            else []
        )
        for index in range(max(len(written), len(spoken))):
            guesses += [*written[index : index + 1], *spoken[index : index + 1]]
        return [
            found
            for found in dict.fromkeys(guesses)
            if self._content.emergency_numbers(found) is not None
        ]


def words_before_a_number(text: str) -> int:
    """How many words a reader passes before the first digit."""
    found = re.search(r"\d", text)
    before = text if found is None else text[: found.start()]
    return len(before.replace("\u2066", "").replace("\u2069", "").split())


def plan_emergency(words: ReplyWords, numbers: EmergencyNumbers) -> str:
    """The emergency line a safety plan keeps: one number, or police and ambulance."""
    where = words.country_in_sentence(numbers.code)
    police, ambulance = service_numbers(numbers)
    if police == ambulance:
        return words.text(PlanMsg.PLAN_EMERGENCY_LINE, number=police, country=where)
    return words.text(PlanMsg.PLAN_EMERGENCY_TWO, police=police, ambulance=ambulance, country=where)
