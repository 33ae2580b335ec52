"""Which language a crisis reply is written in.

Someone in crisis is answered in the words they used, not their phone's setting: "ich will
nicht mehr leben" from an app set to English gets the German reply, though the rest of the
bot goes on in English. /sos carries no words, so it follows the app's language where the
bot could not (a German phone on a bot that speaks English and Spanish).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Mapping

from bot.content_pack.pack import ContentPack
from bot.safety.reply_words import speaks
from bot.safety.rules import SAFETY_INTENTS, Detection
from bot.safety.text_language import Vocabularies


def written_language(
    content: ContentPack,
    rule_languages: Mapping[str, str],
    detection: Detection,
    locale: str,
    app_language: str | None = None,
    vocabularies: Vocabularies | None = None,
) -> str:
    """The language to answer `detection` in (`_language`), in the script it was written
    in where the reply has that script too: Hindi typed in Latin letters ("mujhe marna
    hai") is answered in Latin letters (`hi-latn`), which people who read Urdu and not
    Devanagari can read as well. With `vocabularies`, the message's other words may
    overrule the language of the rule that matched (bot/safety/text_language.py)."""
    chosen = _language(content, rule_languages, detection, locale, app_language)
    named = getattr(detection, "language", None)  # a learned stage's word decides
    learned = isinstance(named, str) and speaks(content, named.lower())
    if vocabularies is not None and not learned and _safety_matches(detection):
        # A word may match another language's rule: the other words say which it is in.
        familiar = [locale, *_candidates(app_language)]
        chosen = vocabularies.preferred(detection.normalised, chosen, familiar)
    latin = f"{chosen}-latn"
    if chosen not in content.locales and speaks(content, latin) and _in_latin(detection):
        return latin
    return chosen


def _safety_matches(detection: Detection) -> bool:
    return any(match.intent in SAFETY_INTENTS for match in detection.matches)


def _in_latin(detection: Detection) -> bool:
    """Whether most letters of the text are Latin ones."""
    letters = [char for char in detection.normalised if char.isalpha()]
    latin = sum(1 for char in letters if unicodedata.name(char, "").startswith("LATIN"))
    return bool(letters) and latin * 2 > len(letters)


def _language(
    content: ContentPack,
    rule_languages: Mapping[str, str],
    detection: Detection,
    locale: str,
    app_language: str | None = None,
) -> str:
    """The language to answer `detection` in: the user's locale, unless the words were
    written in another language a crisis reply can be written in.

    A learned stage may name the text's language (`detection.language`); where it does
    and a reply speaks it, that decides. Otherwise the rules that matched do: their
    languages are those of the files they are written in. When the words match rules of
    several languages ("suicidio" is Spanish, Italian and Portuguese), the app's language
    decides among them, then the language with the most matches; a tie keeps the locale."""
    learned = getattr(detection, "language", None)
    if isinstance(learned, str) and speaks(content, learned.lower()):
        return learned.lower()
    counts = Counter(
        rule_languages[match.rule_id]
        for match in detection.matches
        if match.intent in SAFETY_INTENTS and match.rule_id in rule_languages
    )
    if not counts or locale in counts:
        return locale
    spoken = {language: count for language, count in counts.items() if speaks(content, language)}
    if len(spoken) == 1:
        return next(iter(spoken))
    app = _candidates(app_language)
    for candidate in app:
        if candidate in spoken:
            return candidate
    ranked = sorted(spoken.items(), key=lambda item: -item[1])
    if len(ranked) >= 2 and ranked[0][1] > ranked[1][1]:
        return ranked[0][0]
    return locale


def asked_language(content: ContentPack, locale: str, app_language: str | None) -> str:
    """The language of a reply nobody wrote words for (/sos): the user's locale, unless it
    is only the default the bot fell back to while their app is set to a language a crisis
    reply speaks. A locale someone has (their app's, or one they chose) stays theirs."""
    if locale != content.default_locale:
        return locale
    for candidate in _candidates(app_language):
        if candidate in content.locales:
            return locale
        if speaks(content, candidate):
            return candidate
    return locale


def _candidates(app_language: str | None) -> list[str]:
    """ "pt-BR": pt-br, then pt."""
    if not app_language:
        return []
    code = app_language.strip().lower().replace("_", "-")
    return list(dict.fromkeys([code, code.split("-", 1)[0]]))
