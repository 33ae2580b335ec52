"""The safety screen: runs on every piece of free text before any flow sees it.

A crisis reply is built from the content pack alone: no database write, no
lock, no queue stands between the message and the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.content_pack.ids import Msg
from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import CountryResources, CrisisResource
from bot.core.replies import Button, Reply
from bot.safety.countries import country_name
from bot.safety.rules import Detection, Intent, ReplyLevel

# Static button data: these presses change nothing, so they need no token.
SOS_SHOW = "sos:show"
SOS_MISREAD = "sos:misread"
# The check's buttons, as static as the two above: "I'm safe right now", and "Show me help
# now" (crisis or danger first, as the words were).
CHECK_SAFE = "sos:safe"
CHECK_HELP = "sos:help"
CHECK_HELP_DANGER = "sos:help-danger"
CHECK_BUTTONS = frozenset({CHECK_SAFE, CHECK_HELP, CHECK_HELP_DANGER})


@dataclass(frozen=True, slots=True)
class ScreenResult:
    detection: Detection
    replies: tuple[Reply, ...]


class SafetyScreen:
    def __init__(self, content: ContentPack) -> None:
        self._content = content

    def detect(self, text: str, locale: str) -> Detection:
        return self._content.detector(locale).detect(text)

    def screen(
        self, text: str, locale: str, country: str | None, is_group: bool
    ) -> ScreenResult | None:
        """The replies that must go out first, or None when the text needs none: the full
        reply for crisis or danger, a short check when the words are softened by context."""
        detection = self.detect(text, locale)
        match detection.reply:
            case ReplyLevel.CRISIS | ReplyLevel.DANGER:
                danger_first = detection.reply is ReplyLevel.DANGER
                reply = self.full_reply(locale, country, danger_first=danger_first)
            case ReplyLevel.CHECK:
                reply = self.check_reply(locale, danger=Intent.CRISIS not in detection.intents)
            case _:
                return None
        return ScreenResult(detection, (self._in_private(locale, reply, is_group),))

    def full_reply(self, locale: str, country: str | None, danger_first: bool) -> Reply:
        """The intro, then every contact: the answer to crisis or danger said plainly."""
        resources = self.resources_reply(locale, country, danger_first=danger_first)
        intro = Msg.SAFETY_DANGER_INTRO if danger_first else Msg.SAFETY_CRISIS_INTRO
        return Reply(
            text=f"{self._text(locale, intro)}\n\n{resources.text}", buttons=resources.buttons
        )

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
        self, data: str, locale: str, country: str | None, is_group: bool
    ) -> list[Reply] | None:
        """A press on a check's button: the full reply, or a short acknowledgement."""
        if data == CHECK_SAFE:
            return [Reply(text=self._text(locale, Msg.SAFETY_CHECK_SAFE_REPLY))]
        if data in (CHECK_HELP, CHECK_HELP_DANGER):
            reply = self.full_reply(locale, country, danger_first=data == CHECK_HELP_DANGER)
            return [self._in_private(locale, reply, is_group)]
        return None

    def resources_reply(
        self, locale: str, country: str | None, danger_first: bool = False
    ) -> Reply:
        """Emergency line, the country's helplines, and the worldwide directory."""
        found = self._content.country_resources(locale, country)
        lines = [self._emergency_line(locale, found, country)]
        if found is not None:
            order = ("domestic_abuse", "crisis") if danger_first else ("crisis", "domestic_abuse")
            ranked = sorted(found.resources, key=lambda resource: order.index(resource.kind))
            lines += [self._resource_line(locale, resource) for resource in ranked]
        else:
            lines.append(self._text(locale, Msg.SAFETY_NO_COUNTRY))
        directory = self._content.crisis(locale).fallback.directory
        lines.append(
            self._text(locale, Msg.SAFETY_DIRECTORY, name=directory.name, url=directory.url)
        )
        button = Button(self._text(locale, Msg.SAFETY_MISREAD_BUTTON), SOS_MISREAD)
        return Reply(text="\n\n".join(lines), buttons=((button,),))

    def sos_replies(self, locale: str, country: str | None, is_group: bool) -> list[Reply]:
        """/sos: the resources, privately when asked in a group."""
        return [self._in_private(locale, self.resources_reply(locale, country), is_group)]

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

    def _emergency_line(
        self, locale: str, found: CountryResources | None, country: str | None
    ) -> str:
        if found is None:
            return self._text(locale, Msg.SAFETY_EMERGENCY_GENERIC)
        name = found.name or country_name(country or found.code)
        return self._text(locale, Msg.SAFETY_EMERGENCY, number=found.emergency_number, country=name)

    def _resource_line(self, locale: str, resource: CrisisResource) -> str:
        return self._text(
            locale,
            Msg.SAFETY_RESOURCE_LINE,
            name=resource.name,
            contact=resource.contact,
            hours=resource.hours,
            url=resource.url,
        )

    def _text(self, locale: str, message: Msg, **values: str | int) -> str:
        return self._content.text(locale, message, **values)
