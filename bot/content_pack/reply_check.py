"""`steady content check`: a complete crisis reply in every language the screen reads.

Whoever writes about wanting to die, or about danger, in a language the screen reads is
answered in that language (bot/content_pack/reply_languages.py). So every such language
needs every text of the reply: a locale in its messages, any other language in
`content/replies/<language>.yaml`.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.content_pack.findings import Finding
from bot.content_pack.pack import ContentPack
from bot.content_pack.reply_languages import REPLIES_DIR, REPLY_MESSAGES, ReplyLanguage

# Languages the screen is being taught to read, whose rules arrive in content/detection/
# separately: their replies are required now, so that a rule file never lands without the
# words to answer it.
ADDED_SCREEN_LANGUAGES = ("ar", "el", "id", "ja", "ko", "ro", "sv", "tl", "uk", "vi", "zh")


def checked_languages(pack: ContentPack) -> list[str]:
    """Every language the check holds to a complete reply: the screened ones, and every
    reply file there is (a variant such as Hindi in Latin letters included)."""
    return sorted({*screened_languages(pack), *pack.reply_languages})


def screened_languages(pack: ContentPack) -> list[str]:
    """Every language the screen reads: the pack's locales, its detection files, and the
    languages being added."""
    detected = [file.locale for file in pack.languages]
    return sorted({*pack.locales, *detected, *ADDED_SCREEN_LANGUAGES})


def check_crisis_replies(pack: ContentPack) -> list[Finding]:
    """A finding for every screened language without a complete crisis reply, and for a
    helpline a reply language names that the data does not list (its name would never
    be shown)."""
    messages = {locale: content.messages for locale, content in pack.locales.items()}
    found = [
        Finding(f"{REPLIES_DIR}/{language}", problem)
        for language, problem in missing_replies(
            checked_languages(pack), messages, pack.reply_languages
        )
    ]
    listed = {
        resource.id
        for country in pack.crisis(pack.default_locale).countries
        for resource in country.resources
    }
    for code, language in sorted(pack.reply_languages.items()):
        found += [
            Finding(f"{REPLIES_DIR}/{code}.yaml", f"helplines: {line} is not a helpline's id")
            for line in sorted(set(language.helpline_names) - listed)
        ]
    return found


def missing_replies(
    languages: list[str],
    locales: Mapping[str, Mapping[str, object]],
    replies: Mapping[str, ReplyLanguage],
) -> list[tuple[str, str]]:
    """(language, what is missing) for each language without a complete crisis reply: a
    locale must hold every reply message (the default locale always does), any other
    language needs a complete reply file."""
    found: list[tuple[str, str]] = []
    for language in languages:
        if language in locales:
            lacking = sorted(m.value for m in REPLY_MESSAGES if m.value not in locales[language])
        elif language in replies:
            lacking = replies[language].missing()
        else:
            found.append((language, f"no crisis reply: {REPLIES_DIR}/{language}.yaml is missing"))
            continue
        if lacking:
            found.append((language, f"the crisis reply lacks {', '.join(lacking)}"))
    return found
