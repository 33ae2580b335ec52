"""Dates, weekdays and numbers as the user's language and region write them (CLDR, through
Babel): "14 March" in Britain and "March 14" in the United States, "2,0" in Spanish.

The region is the best we know: the user's country when they gave one, else the region
of the language tag their app sent with this message ("en-GB"), else none (the
language's own default). A region Babel has no locale for is left out.
"""

from __future__ import annotations

import re
from datetime import datetime

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, get_day_names
from babel.numbers import format_decimal

from bot.content_pack.ids import SafetyMsg
from bot.content_pack.plurals import babel_locale
from bot.flows.context import FlowContext
from bot.scheduling.planner import user_zone
from bot.scheduling.rules import format_weekdays
from bot.storage.users import User

_WEEKDAY_WORDS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def regional_locale(locale: str, country: str | None, language_tag: str | None = None) -> str:
    """The Babel locale for dates and numbers: `en_GB` for an English speaker in the
    United Kingdom, `es_MX` in Mexico; the pack's locale alone where no region is known."""
    base = babel_locale(locale)
    region = country or _region_of(language_tag)
    if region is None or "_" in base:
        return base
    candidate = f"{base}_{region.upper()}"
    try:
        Locale.parse(candidate)
    except (UnknownLocaleError, ValueError):
        return base
    return candidate


def _region_of(tag: str | None) -> str | None:
    if not tag:
        return None
    parts = tag.replace("_", "-").split("-")
    region = next((part for part in parts[1:] if len(part) == 2 and part.isalpha()), None)
    return None if region is None else region.upper()


def user_locale(ctx: FlowContext, user: User | None) -> str:
    return regional_locale(ctx.locale, None if user is None else user.country, ctx.language_tag)


async def dates_locale(ctx: FlowContext) -> str:
    """`user_locale` for the user of this event."""
    return user_locale(ctx, await ctx.find_user())


def one_decimal(value: float, locale: str) -> str:
    """ "2.0", "2,0": an average as the locale writes a decimal."""
    return format_decimal(value, "0.0", locale=locale)


def format_local_date(user: User, instant: datetime, locale: str) -> str:
    """ "Tue 03 Mar", "mar 03 mar": the day and month named in the user's language (CLDR)."""
    return format_date(
        instant.astimezone(user_zone(user)), "EEE dd MMM", locale=babel_locale(locale)
    )


def shown_weekdays(ctx: FlowContext, days: frozenset[int]) -> str:
    """ "mon-fri" in the default locale; in others, CLDR's day names ("lun-vie"), which
    read back as the same days (bot/flows/parsing/days.py)."""
    short = format_weekdays(days)
    if ctx.locale == ctx.services.content.default_locale:
        return short
    if short == "daily":
        return ctx.text(SafetyMsg.HOURS_DAILY)
    names = get_day_names("abbreviated", locale=babel_locale(ctx.locale))
    return re.sub(r"[a-z]{3}", lambda word: str(names[_WEEKDAY_WORDS.index(word[0])]), short)


def format_local_moment(user: User, instant: datetime, locale: str) -> str:
    """ "Tue 09:00", "mar 09:00"."""
    local = instant.astimezone(user_zone(user))
    return f"{format_date(local, 'EEE', locale=babel_locale(locale))} {local:%H:%M}"
