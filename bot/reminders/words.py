"""The words of /reminder in each language the bot speaks.

An admin types them after /reminder (/recordatorio). Every form works in every group, so
an admin whose app is in English can manage a group that reads Spanish, and the other way
round; replies and help name the forms of the group's language. Words are matched without
case or accents ("anadir" is "añadir"), as people type them on any keyboard.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from bot.content_pack.schema import Theme
from bot.flows.parsing.days import read_days
from bot.scheduling.rules import format_weekdays


class Action(StrEnum):
    ADD = "add"
    LIST = "list"
    PAUSE = "pause"
    RESUME = "resume"
    DELETE = "delete"


@dataclass(frozen=True, slots=True)
class ReminderWords:
    """How one language says the words: the form shown first, then others people type."""

    actions: Mapping[Action, tuple[str, ...]]
    theme: tuple[str, ...]
    text: tuple[str, ...]
    themes: Mapping[Theme, str]  # the one word for each theme
    days: Mapping[str, str]  # "mon" -> "lun", "daily" -> "diario": how days are shown
    # The names of Discord's /reminder options in this language ("time" -> "hora"); a
    # chosen option still arrives under its own name.
    options: Mapping[str, str]

    def action(self, action: Action) -> str:
        return self.actions[action][0]

    def theme_word(self, theme: str) -> str:
        return self.themes.get(Theme(theme), theme) if theme in _THEME_IDS else theme

    def theme_names(self) -> str:
        return ", ".join(self.themes[theme] for theme in Theme)

    def weekdays(self, days: frozenset[int]) -> str:
        """ "mon-fri" in this language ("lun-vie"), in a form the reader reads back."""
        return re.sub(r"[a-z]+", lambda m: self.days.get(m[0], m[0]), format_weekdays(days))


_THEME_IDS = frozenset(theme.value for theme in Theme)

ENGLISH = ReminderWords(
    actions={
        Action.ADD: ("add", "new"),
        Action.LIST: ("list", "ls"),
        Action.PAUSE: ("pause",),
        Action.RESUME: ("resume", "unpause"),
        Action.DELETE: ("delete", "remove"),
    },
    theme=("theme",),
    text=("text",),
    themes={theme: theme.value for theme in Theme},
    days={},
    options={},
)

SPANISH = ReminderWords(
    actions={
        Action.ADD: ("añadir", "agregar", "nuevo", "crear"),
        Action.LIST: ("lista", "listar", "ver"),
        Action.PAUSE: ("pausar", "pausa"),
        Action.RESUME: ("reanudar", "activar", "seguir"),
        Action.DELETE: ("borrar", "eliminar", "quitar"),
    },
    theme=("tema",),
    text=("texto",),
    # One word each, the way an admin would name the subject of a group's posts.
    themes={
        Theme.CLOSURE: "respuestas",
        Theme.GUILT: "culpa",
        Theme.DISCOMFORT: "inquietud",
        Theme.BOND_FORMING: "vínculo",
        Theme.TWO_TRUTHS: "sentimientos_mezclados",
        Theme.GRIEF: "duelo",
        Theme.WHOLE_PICTURE: "recuerdos",
        Theme.PAUSE: "pausa",
        Theme.COST: "necesidades",
        Theme.PATTERNS: "costumbres",
        Theme.BODY: "cuerpo",
        Theme.BOUNDARIES: "pasos",
        Theme.REBUILD: "vida_propia",
        Theme.SUPPORT: "apoyo",
        Theme.LAYERS: "intentos",
        Theme.STILL_THERE: "sigo_ahí",
        Theme.HARD_DATES: "fechas",
        Theme.ANGER: "rabia",
        Theme.NUMBNESS: "vacío",
        Theme.LONELINESS: "soledad",
        Theme.SELF_DOUBT: "dudas",
        Theme.SHARED_CONTACT: "contacto",
        Theme.PROMISES: "promesas",
        Theme.CHECKING: "mirar",
        Theme.FLASHBACKS: "recuerdos_intensos",
        Theme.SLEEP: "sueño",
        Theme.DISBELIEVED: "no_me_creen",
        Theme.DATING: "citas",
        Theme.PRACTICAL: "práctico",
    },
    days={
        "daily": "diario",
        "mon": "lun",
        "tue": "mar",
        "wed": "mié",
        "thu": "jue",
        "fri": "vie",
        "sat": "sáb",
        "sun": "dom",
    },
    options={
        "time": "hora",
        "timezone": "zona_horaria",
        "days": "días",
        "theme": "tema",
        "text": "texto",
        "number": "número",
    },
)

WORDS: dict[str, ReminderWords] = {"en": ENGLISH, "es": SPANISH}


def words_for(locale: str) -> ReminderWords:
    return WORDS.get(locale, ENGLISH)


def folded(word: str) -> str:
    """Lower case, accents dropped, "-" as "_": how typed words are compared."""
    plain = unicodedata.normalize("NFKD", word.strip().casefold())
    return "".join(c for c in plain if not unicodedata.combining(c)).replace("-", "_")


def _every(pick: Callable[[ReminderWords], tuple[str, ...]]) -> frozenset[str]:
    return frozenset(folded(form) for words in WORDS.values() for form in pick(words))


ACTION_WORDS: dict[str, Action] = {
    folded(form): action
    for words in WORDS.values()
    for action, forms in words.actions.items()
    for form in forms
}
THEME_KEYWORDS = _every(lambda words: words.theme)
TEXT_KEYWORDS = _every(lambda words: words.text)
THEME_WORDS: dict[str, str] = {
    folded(word): theme.value for words in WORDS.values() for theme, word in words.themes.items()
}

# Single words for sets of days that the phrase reader (flows/parsing/days.py) reads only
# as several words ("entre semana", "fines de semana"): a reminder line splits on spaces.
_DAY_WORDS = {
    "laborables": "weekdays",
    "entresemana": "weekdays",
    "entre_semana": "weekdays",
    "finde": "weekends",
    "findes": "weekends",
    "fines_de_semana": "weekends",
    "todos_los_dias": "daily",
}


def read_reminder_days(word: str) -> frozenset[int] | None:
    """ "mon-fri", "lun-vie", "mié,vie", "laborables", "diario" ... or None."""
    return read_days(_DAY_WORDS.get(folded(word), word))
