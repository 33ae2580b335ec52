"""Plural forms by CLDR rules (through Babel): "1 day", "2 days", and an optional "=0"."""

from __future__ import annotations

from functools import lru_cache

from babel.core import Locale, UnknownLocaleError

EXACT_ZERO = "=0"
OTHER = "other"


class UnknownPluralRules(ValueError):
    pass


@lru_cache(maxsize=64)
def _locale(code: str) -> Locale:
    try:
        return Locale.parse(code.replace("-", "_"))
    except (UnknownLocaleError, ValueError) as error:
        raise UnknownPluralRules(f"no plural rules known for locale {code!r}") from error


def babel_locale(code: str) -> str:
    """The pack's locale code as Babel names it (`pt-BR` is `pt_BR`), for dates and names."""
    return code.replace("-", "_")


def categories(code: str) -> frozenset[str]:
    """Every CLDR plural category the locale uses ("other" always among them)."""
    return frozenset(_locale(code).plural_form.tags) | {OTHER}


def form_for(code: str, forms: dict[str, str], count: int) -> str:
    """The text for `count`: the "=0" form for nothing when given, else the CLDR category.
    A negative count (not a number at all) takes "other"."""
    if count < 0:
        return forms[OTHER]
    if count == 0 and EXACT_ZERO in forms:
        return forms[EXACT_ZERO]
    category = _locale(code).plural_form(abs(count))
    return forms.get(category, forms[OTHER])
