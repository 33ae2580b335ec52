"""Reply languages: the crisis reply's words in languages the screen reads but the bot does
not otherwise speak.

Someone who writes "ich will nicht mehr leben" to a bot that speaks English and Spanish is
answered in German: the crisis and danger replies, the check, /sos and the buttons under
them. A reply language is a partial locale holding only those words (`REPLY_MESSAGES`), in
`content/replies/<language>.yaml`, written by us as carefully as any locale. Country names
come from CLDR (through Babel) unless the file names a country itself (a shorter name for a
button, a name that reads better in these sentences). The rest of the bot goes on in the
user's own locale.

The loader reads these files (bad placeholders, unknown ids and over-long button labels
are load errors, as in any locale); `steady content check` requires a complete file for
every language the screen reads (`missing_replies`). An incomplete file is never used for
a reply: a crisis reply half in one language and half in another helps nobody, so until
it is complete the user's own locale answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated

from babel.core import Locale
from babel.dates import get_day_names
from pydantic import Field, StringConstraints

from bot.content_pack.ids import GeneralMsg, Msg, PlanMsg, SafetyMsg
from bot.content_pack.plurals import babel_locale
from bot.content_pack.schema import MAX_BUTTON_LABEL_CHARS, CountryName, MessagesFile
from bot.content_pack.schema_base import CountryCode, ItemId

HelplineName = Annotated[str, StringConstraints(min_length=2, max_length=100)]

REPLIES_DIR = "replies"

# Every text of the crisis and danger replies, the check, /sos, "More helplines", the
# safety card and the notices around them: what a reply language must hold.
REPLY_MESSAGES: frozenset[Msg] = frozenset(
    {
        SafetyMsg.SAFETY_CRISIS_INTRO, SafetyMsg.SAFETY_DANGER_INTRO, SafetyMsg.SAFETY_EMERGENCY,
        SafetyMsg.SAFETY_EMERGENCY_GENERIC, SafetyMsg.SAFETY_RESOURCE_LINE,
        SafetyMsg.SAFETY_NO_COUNTRY,
        SafetyMsg.SAFETY_DIRECTORY, SafetyMsg.SAFETY_GROUP_PUBLIC, SafetyMsg.SAFETY_GROUP_FALLBACK,
        SafetyMsg.SAFETY_MISREAD_BUTTON, SafetyMsg.SAFETY_MISREAD_REPLY,
        SafetyMsg.SAFETY_SHOW_BUTTON,
        SafetyMsg.SAFETY_EMERGENCY_POLICE_FIRST, SafetyMsg.SAFETY_EMERGENCY_AMBULANCE_FIRST,
        SafetyMsg.SAFETY_EMERGENCY_ALSO, SafetyMsg.SAFETY_EMERGENCY_SMS, SafetyMsg.SAFETY_NOT_SURE,
        SafetyMsg.SAFETY_HOPE_CRISIS, SafetyMsg.SAFETY_HOPE_DANGER, SafetyMsg.SAFETY_MORE_BUTTON,
        SafetyMsg.SAFETY_MORE_INTRO, SafetyMsg.SAFETY_CARD_BUTTON, SafetyMsg.SAFETY_CARD,
        SafetyMsg.SAFETY_COUNTRY_SAVED, SafetyMsg.SAFETY_CHECK, SafetyMsg.SAFETY_CHECK_SAFE_BUTTON,
        SafetyMsg.SAFETY_CHECK_HELP_BUTTON, SafetyMsg.SAFETY_CHECK_SAFE_REPLY,
        GeneralMsg.GROUP_OPEN_PRIVATE,
        PlanMsg.PLAN_BUTTON, SafetyMsg.HOURS_DAILY, SafetyMsg.HOURS_VARY, SafetyMsg.HOURS_ALWAYS,
        SafetyMsg.SAFETY_OR,
        SafetyMsg.SAFETY_UNCONFIRMED, SafetyMsg.SAFETY_UNCONFIRMED_POLICE_FIRST,
        SafetyMsg.SAFETY_UNCONFIRMED_AMBULANCE_FIRST, SafetyMsg.SAFETY_UNCONFIRMED_FALLBACK,
        SafetyMsg.SAFETY_UNCONFIRMED_NEARBY, SafetyMsg.SAFETY_UNCONFIRMED_ALSO,
        SafetyMsg.SAFETY_LINE_LANGUAGES, SafetyMsg.SAFETY_LINE_UNCONFIRMED,
        SafetyMsg.CONTACT_EITHER,
        SafetyMsg.SAFETY_WIDE_NUMBERS, SafetyMsg.SAFETY_GLANCE, SafetyMsg.SAFETY_GLANCE_ONLY,
        SafetyMsg.SAFETY_GLANCE_EMERGENCY, SafetyMsg.SAFETY_GLANCE_EMERGENCY_TWO,
        SafetyMsg.SAFETY_GLANCE_UNCONFIRMED, SafetyMsg.SAFETY_GLANCE_HELPLINE,
        SafetyMsg.CONTACT_CALL,
        SafetyMsg.CONTACT_TEXT, SafetyMsg.CONTACT_CALL_OR_TEXT, SafetyMsg.CONTACT_TEXT_KEYWORD,
        SafetyMsg.CONTACT_WHATSAPP, SafetyMsg.CONTACT_CHAT, SafetyMsg.CONTACT_FREE,
        SafetyMsg.CONTACT_LANDLINE,
        SafetyMsg.CONTACT_OPTION, SafetyMsg.CONTACT_CALLBACK,
    }
)  # fmt: skip


class ReplyLanguageFile(MessagesFile):
    """`content/replies/<language>.yaml`: the reply's messages (ids of `REPLY_MESSAGES`
    only), the countries to offer first when the writer's country is unknown, names for
    countries where CLDR's do not serve (too long for a button), and helplines' names in
    this language by their id, where the data names a line in English words and the line
    has a name of its own in this language ("Suicide prevention line 109": "자살예방
    상담전화 109")."""

    likely_countries: list[CountryCode] = Field(min_length=1, max_length=8)
    countries: list[CountryName] = Field(default_factory=list)
    helplines: dict[ItemId, HelplineName] = Field(default_factory=dict)


@lru_cache(maxsize=64)
def _cldr(code: str) -> Locale:
    return Locale.parse(babel_locale(code))


def cldr_country_name(language: str, code: str) -> str | None:
    """The country's name in the language, as CLDR gives it."""
    name = _cldr(language).territories.get(code)
    return None if name is None else str(name)


def language_name(language: str, code: str) -> str:
    """A language's name in another, as CLDR gives it; its code where CLDR has none."""
    return str(_cldr(language).languages.get(code) or code)


@dataclass(frozen=True, slots=True)
class ReplyLanguage:
    code: str
    messages: Mapping[str, str]
    likely_countries: tuple[str, ...]
    country_names: Mapping[str, str]  # the file's own names, where CLDR's do not serve
    helpline_names: Mapping[str, str] = field(default_factory=dict)  # by helpline id

    @classmethod
    def of(cls, code: str, parsed: ReplyLanguageFile) -> ReplyLanguage:
        return cls(
            code=code,
            messages={
                key: value for key, value in parsed.messages.items() if isinstance(value, str)
            },
            likely_countries=tuple(parsed.likely_countries),
            country_names={country.code: country.name for country in parsed.countries},
            helpline_names=dict(parsed.helplines),
        )

    def missing(self) -> list[str]:
        """The reply's messages this language does not have yet."""
        return sorted(message.value for message in REPLY_MESSAGES - self._present())

    @property
    def complete(self) -> bool:
        return not REPLY_MESSAGES - self._present()

    def _present(self) -> set[Msg]:
        return {message for message in REPLY_MESSAGES if message.value in self.messages}

    def text(self, message: Msg, /, **values: str | int) -> str:
        """The message in this language (the loader checked its placeholders)."""
        template = self.messages[message.value]
        return template.format(**values) if values else template

    def country_name(self, code: str) -> str:
        """The country's name: the file's own, else CLDR's, else its code."""
        return self.country_names.get(code) or cldr_country_name(self.code, code) or code

    def day_names(self) -> list[str]:
        """Monday to Sunday, abbreviated, as CLDR writes them in this language."""
        names = get_day_names("abbreviated", locale=_cldr(self.code))
        return [str(names[day]) for day in range(7)]

    @property
    def right_to_left(self) -> bool:
        return bool(_cldr(self.code).character_order == "right-to-left")


def button_name_problems(language: ReplyLanguage, codes: list[str]) -> list[str]:
    """Countries whose name in this language is too long for a button: the file must give
    a shorter one (CLDR's "Sonderverwaltungsregion Hongkong" for Hong Kong)."""
    return [
        f"{code}: {language.country_name(code)!r} is over {MAX_BUTTON_LABEL_CHARS} characters"
        " for a button; name it in `countries`"
        for code in codes
        if len(language.country_name(code)) > MAX_BUTTON_LABEL_CHARS
    ]
