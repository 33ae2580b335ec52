"""What is typed or tapped at /dates' steps, read: a kind of day in words, the two readings
of a date such as "3/2" and the buttons that tell them apart, and the reply to a date that
could not be read.

The flow itself is `bot.flows.hard_dates`; reading a date from words is
`bot.flows.parsing.dates`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.content_pack.ids import DatesMsg, Msg
from bot.core.replies import Reply
from bot.flows.context import Choice, FlowContext
from bot.flows.parsing.dates import DateReading, last_day, month_name, read_date, show_date
from bot.flows.parsing.folding import fold
from bot.scheduling.hard_date_plan import DateRule
from bot.storage.flow_positions import FlowPosition
from bot.storage.hard_dates import DateKind

# The kind step's buttons; a kind typed in words is read against their labels.
KINDS = (
    (Choice(DateKind.ANNIVERSARY, DatesMsg.DATES_KIND_ANNIVERSARY),
     Choice(DateKind.BIRTHDAY, DatesMsg.DATES_KIND_BIRTHDAY)),
    (Choice(DateKind.HOLIDAY, DatesMsg.DATES_KIND_HOLIDAY),
     Choice(DateKind.LEGAL, DatesMsg.DATES_KIND_LEGAL)),
    (Choice(DateKind.CHILDREN, DatesMsg.DATES_KIND_CHILDREN),
     Choice(DateKind.OTHER, DatesMsg.DATES_KIND_OTHER)),
)  # fmt: skip
# Little words in the kinds' labels that name no kind ("A birthday", "Juzgado o trámite").
_LABEL_FILLER = frozenset({"a", "an", "the", "or", "and", "un", "una", "unas", "unos", "o", "y",
                           "el", "la", "los", "las", "de", "del"})  # fmt: skip
_SHORTEST_KIND_WORD = 4  # "visit" typed for "visita", "birthdays" for "birthday"


def typed_kind(ctx: FlowContext, text: str) -> str | None:
    """The kind whose label, in the user's language or in English, has a word typed
    ("court" for "Court or legal", "cumpleaños" for "Un cumpleaños"); None if no kind or
    two do."""
    typed = {word for word in fold(text).split() if word not in _LABEL_FILLER}
    found: set[str] = set()
    for choice in (choice for row in KINDS for choice in row):
        for locale in dict.fromkeys((ctx.locale, "en")):
            assert isinstance(choice.label, Msg)  # the kinds' labels are ours, in the pack
            label = ctx.services.content.text(locale, choice.label)
            words = {word for word in fold(label).split() if word not in _LABEL_FILLER}
            if any(_same_word(one, other) for one in typed for other in words):
                found.add(choice.value)
    return found.pop() if len(found) == 1 else None


def _same_word(typed: str, word: str) -> bool:
    if typed == word:
        return True
    short, long = sorted((typed, word), key=len)
    return len(short) >= _SHORTEST_KIND_WORD and long.startswith(short)


def held_year(position: FlowPosition) -> int | None:
    """The year typed with the date, if one was."""
    year = position.data.get("year")
    return year if isinstance(year, int) else None


def held_readings(position: FlowPosition) -> list[DateRule]:
    """The two readings of a date typed at the kind step, if one was."""
    held = position.data.get("readings")
    if not isinstance(held, str):
        return []
    readings = []
    for pair in held.split():  # "3-2 2-3": month and day of each, as the buttons carry them
        month_day = _month_day(pair)
        if month_day is not None:
            readings.append(DateRule(*month_day, held_year(position)))
    return readings


def which_rows(shown: str, readings: Sequence[DateRule]) -> list[list[Choice]]:
    """A button for each reading of a date that reads two ways, written as the user
    writes dates."""
    return [[Choice(f"{r.month}-{r.day}", show_date(r, shown))] for r in readings]


def tapped_reading(value: str, year: int | None) -> DateRule | None:
    """The reading a button of `which_rows` stands for, if it is a date (in that year, or
    in any year when there is none)."""
    month_day = _month_day(value)
    if month_day is None:
        return None
    month, day = month_day
    rule = read_date(f"{year or 2000}-{month}-{day}", "en").settled  # 2000 has a 29 February
    return None if rule is None else DateRule(rule.month, rule.day, year)


def _month_day(pair: str) -> tuple[int, int] | None:
    """ "3-2" as a button carries it: the month and the day, in ASCII digits."""
    month, _, day = pair.partition("-")
    if month.isascii() and month.isdigit() and day.isascii() and day.isdigit():
        return int(month), int(day)
    return None


def date_not_read(ctx: FlowContext, reading: DateReading) -> Reply:
    """Not a date: said so, and why when it is a day the month has not ("31/02")."""
    impossible = reading.no_such_day
    if impossible is None:
        return ctx.reply(DatesMsg.DATES_BAD_DATE)
    month = month_name(impossible.month, ctx.locale)
    month = month[:1].upper() + month[1:]  # it starts the sentence ("febrero solo tiene…")
    return ctx.reply(DatesMsg.DATES_NO_SUCH_DAY, month=month, last=last_day(impossible))
