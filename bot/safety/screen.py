"""The safety screen: runs on every piece of free text before any flow sees it.

A crisis reply is built from the content pack alone: no database write, no
lock, no queue stands between the message and the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.content_pack.countries import likely_countries_for_timezone
from bot.content_pack.ids import Msg
from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import CrisisResource, EmergencyNumbers
from bot.core.clock import Clock, SystemClock
from bot.core.replies import Button, Reply
from bot.safety.rules import (
    SAFETY_INTENTS,
    Detection,
    Detector,
    Intent,
    ReplyLevel,
    RuleBook,
)

# Static button data: these presses need no token. All but the country choice change
# nothing; the country choice stores what the user tapped, as /settings would.
SAFETY_BUTTONS = "sos:"  # the prefix every button of a crisis reply starts with
SOS_SHOW = "sos:show"
SOS_MISREAD = "sos:misread"
SOS_MORE = "sos:more"  # + DANGER_SUFFIX when abuse lines lead
SOS_CARD = "sos:card"
SOS_COUNTRY = "sos:country:"  # + ISO code (+ DANGER_SUFFIX)
DANGER_SUFFIX = ":danger"
# "My plan": the user's own safety plan, first under a crisis reply when they wrote one.
SOS_PLAN = "sos:plan"

# Read in panic: a few lines to choose from, the rest one tap away.
FIRST_HELPLINES = 3
COUNTRY_BUTTONS = 8
ALWAYS_OPEN = "24/7"

# The check's buttons, as static as the two above: "I'm safe right now", and "Show me help
# now" (crisis or danger first, as the words were).
CHECK_SAFE = "sos:safe"
CHECK_HELP = "sos:help"
CHECK_HELP_DANGER = "sos:help-danger"
CHECK_BUTTONS = frozenset({CHECK_SAFE, CHECK_HELP, CHECK_HELP_DANGER})


# Compiled detectors by pack. Compiling every language's rules takes a noticeable moment, and
# a process has one pack (tests share theirs), so each pack is compiled once, however many
# screens are built on it. The pack itself is kept with its detectors, so its id stays its.
_COMPILED: dict[int, tuple[ContentPack, dict[str, Detector]]] = {}
_COMPILED_PACKS = 4


def _detectors_of(content: ContentPack) -> dict[str, Detector]:
    """Each locale's rules with every language's, the locale's own tried first: someone
    whose locale is Spanish may still write in English, and their crisis words must be
    read all the same. Every locale screens the same rules, so they are compiled once,
    into one book; each locale's detector only orders it (its own file first, then the
    other locales', then the languages'), so a match names the rule of the user's own
    language where two languages' rules match the same words."""
    found = _COMPILED.get(id(content))
    if found is not None and found[0] is content:
        return found[1]
    if len(_COMPILED) >= _COMPILED_PACKS:
        _COMPILED.clear()
    locales = sorted(content.locales)
    book = RuleBook.of([*(content.locales[name].detection for name in locales), *content.languages])
    languages = range(len(locales), len(book.files))
    detectors = {
        locale: book.detector(
            [own, *(other for other in range(len(locales)) if other != own), *languages]
        )
        for own, locale in enumerate(locales)
    }
    _COMPILED[id(content)] = (content, detectors)
    return detectors


@dataclass(frozen=True, slots=True)
class ScreenResult:
    detection: Detection
    replies: tuple[Reply, ...]


def _rule_languages(content: ContentPack) -> dict[str, str]:
    """Each rule's id to the language of the file it is written in."""
    files = [pack.detection for pack in content.locales.values()] + list(content.languages)
    return {rule.id: file.locale for file in files for rule in file.rules}


class SafetyScreen:
    def __init__(self, content: ContentPack, clock: Clock | None = None) -> None:
        self._content = content
        # Today's date says which years are the past ("in 2015" softens crisis words).
        self._clock = clock or SystemClock()
        self._detectors = _detectors_of(content)
        self._rule_languages = _rule_languages(content)

    def reply_locale(self, detection: Detection, locale: str) -> str:
        """The locale to answer a crisis in: the user's, unless they wrote it only in
        another language the pack speaks ("quiero morirme" from an English app). Someone
        in crisis is answered in the words they used, not their phone's setting."""
        languages = {
            self._rule_languages.get(match.rule_id)
            for match in detection.matches
            if match.intent in SAFETY_INTENTS
        }
        if not languages or locale in languages:
            return locale
        spoken = sorted(language for language in languages if language in self._content.locales)
        return spoken[0] if len(spoken) == 1 else locale

    def detector(self, locale: str) -> Detector:
        """The locale's rules, else the default locale's, as the pack's own lookups fall back."""
        return self._detectors.get(locale) or self._detectors[self._content.default_locale]

    def detect(self, text: str, locale: str) -> Detection:
        return self.detector(locale).detect(text, self._clock.now().date())

    def screen(
        self, text: str, locale: str, country: str | None, is_group: bool, has_plan: bool = False
    ) -> ScreenResult | None:
        """The replies that must go out first, or None when the text needs none: the full
        reply for crisis or danger, a short check when the words are softened by context."""
        detection = self.detect(text, locale)
        locale = self.reply_locale(detection, locale)
        match detection.reply:
            case ReplyLevel.CRISIS | ReplyLevel.DANGER:
                danger_first = detection.reply is ReplyLevel.DANGER
                reply = self.full_reply(locale, country, danger_first, has_plan)
            case ReplyLevel.CHECK:
                reply = self.check_reply(locale, danger=Intent.CRISIS not in detection.intents)
            case _:
                return None
        return ScreenResult(detection, (self._in_private(locale, reply, is_group),))

    def full_reply(
        self,
        locale: str,
        country: str | None,
        danger_first: bool,
        has_plan: bool = False,
        misread: bool = True,
    ) -> Reply:
        """The intro, then every contact: the answer to crisis or danger said plainly.
        `misread`: as for `resources_reply` (not for help asked for by a button)."""
        resources = self.resources_reply(
            locale, country, danger_first=danger_first, misread=misread
        )
        intro = Msg.SAFETY_DANGER_INTRO if danger_first else Msg.SAFETY_CRISIS_INTRO
        reply = Reply(
            text=f"{self._text(locale, intro)}\n\n{resources.text}", buttons=resources.buttons
        )
        return self._with_plan(locale, reply, has_plan)

    def check_reply(self, locale: str, danger: bool) -> Reply:
        """One kind line and two buttons: the words matched, but their context (a negation,
        the past, someone else, a title, an accident) says they may not be about now."""
        help_data = CHECK_HELP_DANGER if danger else CHECK_HELP
        buttons = (
            (Button(self._text(locale, Msg.SAFETY_CHECK_SAFE_BUTTON), CHECK_SAFE),),
            (Button(self._text(locale, Msg.SAFETY_CHECK_HELP_BUTTON), help_data),),
        )
        return Reply(text=self._text(locale, Msg.SAFETY_CHECK), buttons=buttons)

    def check_pressed(
        self, data: str, locale: str, country: str | None, is_group: bool, has_plan: bool = False
    ) -> list[Reply] | None:
        """A press on a check's button: the full reply, or a short acknowledgement."""
        if data == CHECK_SAFE:
            return [Reply(text=self._text(locale, Msg.SAFETY_CHECK_SAFE_REPLY))]
        if data in (CHECK_HELP, CHECK_HELP_DANGER):
            reply = self.full_reply(locale, country, data == CHECK_HELP_DANGER, has_plan)
            return [self._in_private(locale, reply, is_group)]
        return None

    def resources_reply(
        self,
        locale: str,
        country: str | None,
        danger_first: bool = False,
        timezone: str | None = None,
        safety_card: bool | None = None,
        misread: bool = True,
    ) -> Reply:
        """The number to dial first, then up to three helplines, a line of hope and the
        worldwide directory. Without a known country: the country asked for with buttons.
        `misread`: the "you misread me" button, for replies to what someone wrote (not for
        helplines someone asked for)."""
        numbers = self._content.emergency_numbers(country)
        if numbers is None:
            return self._ask_country_reply(locale, timezone, danger_first, misread)
        ranked = self._ranked_helplines(locale, numbers.code, danger_first)
        paragraphs = [
            f"{self._emergency_line(locale, numbers, danger_first)} "
            f"{self._text(locale, Msg.SAFETY_NOT_SURE)}"
        ]
        if ranked:
            first = ranked[:FIRST_HELPLINES]
            paragraphs.append("\n".join(self._resource_line(locale, item) for item in first))
        hope = Msg.SAFETY_HOPE_DANGER if danger_first else Msg.SAFETY_HOPE_CRISIS
        paragraphs += [self._text(locale, hope), self._directory_line(locale)]
        rows: list[tuple[Button, ...]] = []
        if len(ranked) > FIRST_HELPLINES:
            more = SOS_MORE + (DANGER_SUFFIX if danger_first else "")
            rows.append((Button(self._text(locale, Msg.SAFETY_MORE_BUTTON), more),))
        if danger_first if safety_card is None else safety_card:
            rows.append((Button(self._text(locale, Msg.SAFETY_CARD_BUTTON), SOS_CARD),))
        if misread:
            rows.append(self._misread_row(locale))
        return Reply(text="\n\n".join(paragraphs), buttons=tuple(rows))

    def more_helplines_reply(self, locale: str, country: str | None, danger_first: bool) -> Reply:
        """The helplines the first message left out ("More helplines")."""
        numbers = self._content.emergency_numbers(country)
        if numbers is None:
            return self._ask_country_reply(locale, None, danger_first)
        rest = self._ranked_helplines(locale, numbers.code, danger_first)[FIRST_HELPLINES:]
        where = self._content.country_in_sentence(locale, numbers.code)
        lines = [self._resource_line(locale, item) for item in rest]
        paragraphs = [
            self._text(locale, Msg.SAFETY_MORE_INTRO, country=where),
            "\n".join(lines),
            self._directory_line(locale),
        ]
        return Reply(text="\n\n".join(part for part in paragraphs if part))

    def safety_card_reply(self, locale: str) -> Reply:
        """Privacy and safety tips for danger from another person, behind a button."""
        return Reply(text=self._text(locale, Msg.SAFETY_CARD))

    def country_chosen_reply(
        self, locale: str, country: str, danger_first: bool, saved: bool, has_plan: bool = False
    ) -> Reply:
        """After a country button: its numbers, and (when it was stored) how to change it."""
        reply = self.resources_reply(locale, country, danger_first=danger_first)
        reply = self._with_plan(locale, reply, has_plan)
        if not saved:
            return reply
        name = self._content.country_label(locale, country)
        note = self._text(locale, Msg.SAFETY_COUNTRY_SAVED, country=name)
        return replace(reply, text=f"{reply.text}\n\n{note}")

    def sos_replies(
        self,
        locale: str,
        country: str | None,
        is_group: bool,
        timezone: str | None = None,
        has_plan: bool = False,
    ) -> list[Reply]:
        """/sos: the resources, privately when asked in a group."""
        reply = self.resources_reply(
            locale, country, timezone=timezone, safety_card=True, misread=False
        )
        return [self._in_private(locale, self._with_plan(locale, reply, has_plan), is_group)]

    def _with_plan(self, locale: str, reply: Reply, has_plan: bool) -> Reply:
        """The user's own plan as the first button, when they wrote one."""
        if not has_plan:
            return reply
        button = Button(self._text(locale, Msg.PLAN_BUTTON), SOS_PLAN)
        return replace(reply, buttons=((button,), *reply.buttons))

    def plan_lines(self, locale: str, country: str | None) -> list[str]:
        """The country's emergency number and helplines, one a line, crisis lines first, as
        the crisis reply ranks them: offered to keep in a safety plan. None without one."""
        numbers = self._content.emergency_numbers(country)
        if numbers is None:
            return []
        where = self._content.country_in_sentence(locale, numbers.code)
        police, ambulance = numbers.police_number, numbers.ambulance_number
        emergency = (
            self._text(locale, Msg.PLAN_EMERGENCY_LINE, number=police, country=where)
            if police == ambulance
            else self._text(
                locale, Msg.PLAN_EMERGENCY_TWO, police=police, ambulance=ambulance, country=where
            )
        )
        ranked = self._ranked_helplines(locale, numbers.code, danger_first=False)
        return [emergency, *(self._resource_line(locale, item) for item in ranked)]

    def _in_private(self, locale: str, reply: Reply, is_group: bool) -> Reply:
        """In a group: nothing about the person in public, the help in private. If the
        private message cannot be sent, the group gets a link that opens one, and /sos."""
        if not is_group:
            return reply
        notice = Reply(text=self._text(locale, Msg.SAFETY_GROUP_PUBLIC))
        button = Button(self._text(locale, Msg.GROUP_OPEN_PRIVATE), "", open_private="sos")
        fallback = Reply(text=self._text(locale, Msg.SAFETY_GROUP_FALLBACK), buttons=((button,),))
        return replace(reply, private=True, group_notice=notice, group_fallback=fallback)

    def misread_reply(self, locale: str) -> Reply:
        button = Button(self._text(locale, Msg.SAFETY_SHOW_BUTTON), SOS_SHOW)
        return Reply(text=self._text(locale, Msg.SAFETY_MISREAD_REPLY), buttons=((button,),))

    def _ask_country_reply(
        self, locale: str, timezone: str | None, danger_first: bool, misread: bool = True
    ) -> Reply:
        """No country known: the generic line, the directory, and countries to tap."""
        paragraphs = [
            f"{self._text(locale, Msg.SAFETY_EMERGENCY_GENERIC)} "
            f"{self._text(locale, Msg.SAFETY_NOT_SURE)}",
            self._text(locale, Msg.SAFETY_NO_COUNTRY),
            self._directory_line(locale),
        ]
        codes = likely_countries_for_timezone(timezone) or list(
            self._content.likely_countries(locale)
        )
        suffix = DANGER_SUFFIX if danger_first else ""
        buttons = [
            Button(self._content.country_label(locale, code), f"{SOS_COUNTRY}{code}{suffix}")
            for code in codes[:COUNTRY_BUTTONS]
            if self._content.emergency_numbers(code) is not None
        ]
        rows = [tuple(buttons[index : index + 2]) for index in range(0, len(buttons), 2)]
        if misread:
            rows.append(self._misread_row(locale))
        return Reply(text="\n\n".join(paragraphs), buttons=tuple(rows))

    def _ranked_helplines(
        self, locale: str, country: str, danger_first: bool
    ) -> list[CrisisResource]:
        """The kind the message is about first; within a kind, lines open around the clock,
        then those that take a text or a chat (for someone who cannot speak aloud);
        otherwise the order of the data."""
        found = self._content.country_resources(locale, country)
        if found is None:
            return []
        lead = "domestic_abuse" if danger_first else "crisis"
        return sorted(
            found.resources,
            key=lambda resource: (
                resource.kind != lead,
                resource.hours != ALWAYS_OPEN,
                not resource.can_write,
            ),
        )

    def _emergency_line(self, locale: str, numbers: EmergencyNumbers, danger_first: bool) -> str:
        where = self._content.country_in_sentence(locale, numbers.code)
        police, ambulance = numbers.police_number, numbers.ambulance_number
        if police == ambulance:
            line = self._text(locale, Msg.SAFETY_EMERGENCY, number=police, country=where)
        else:
            message = (
                Msg.SAFETY_EMERGENCY_POLICE_FIRST
                if danger_first
                else Msg.SAFETY_EMERGENCY_AMBULANCE_FIRST
            )
            line = self._text(locale, message, police=police, ambulance=ambulance, country=where)
        if numbers.general is not None and numbers.general not in (police, ambulance):
            line += " " + self._text(locale, Msg.SAFETY_EMERGENCY_ALSO, number=numbers.general)
        if numbers.sms is not None:
            line += " " + self._text(locale, Msg.SAFETY_EMERGENCY_SMS, number=numbers.sms)
        return line

    def _resource_line(self, locale: str, resource: CrisisResource) -> str:
        line = self._text(
            locale,
            Msg.SAFETY_RESOURCE_LINE,
            name=resource.name,
            contact=resource.contact,
            hours=self._content.hours(locale, resource.hours),
        )
        return line if resource.url is None else f"{line} {resource.url}"

    def _directory_line(self, locale: str) -> str:
        directory = self._content.crisis(locale).fallback.directory
        return self._text(locale, Msg.SAFETY_DIRECTORY, name=directory.name, url=directory.url)

    def _misread_row(self, locale: str) -> tuple[Button, ...]:
        return (Button(self._text(locale, Msg.SAFETY_MISREAD_BUTTON), SOS_MISREAD),)

    def _text(self, locale: str, message: Msg, **values: str | int) -> str:
        return self._content.text(locale, message, **values)
