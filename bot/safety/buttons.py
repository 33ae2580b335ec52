"""The data of a crisis reply's buttons, and the language they answer in.

The data is static: these presses need no token. All but the country choice change nothing;
the country choice stores what the user tapped, as /settings would.

A reply written in another language than the user's own (German words from an English app)
tags each of its buttons with that language ("sos:more/de"), so "More helplines", the
safety card and the check's answers come back in the language the person wrote in. A tag
adds at most a few bytes: the longest data, "sos:country:XX:danger/xx-xx", stays far
below Telegram's 64.
"""

from __future__ import annotations

from bot.safety.emergency_lines import ReplyKind

SAFETY_BUTTONS = "sos:"  # the prefix every button of a crisis reply starts with
SOS_SHOW = "sos:show"
SOS_MISREAD = "sos:misread"
SOS_MORE = "sos:more"  # + the kind of reply it sat under (ReplyKind's value)
SOS_CARD = "sos:card"
SOS_COUNTRY = "sos:country:"  # + ISO code + the kind of reply
DANGER_SUFFIX = ReplyKind.DANGER.value
# "My plan": the user's own safety plan, first under a crisis reply when they wrote one.
SOS_PLAN = "sos:plan"

# The check's buttons: "I'm safe right now", and "Show me help now" (crisis or danger
# first, as the words were).
CHECK_SAFE = "sos:safe"
CHECK_HELP = "sos:help"
CHECK_HELP_DANGER = "sos:help-danger"
CHECK_BUTTONS = frozenset({CHECK_SAFE, CHECK_HELP, CHECK_HELP_DANGER})

_LANGUAGE_TAG = "/"
_LONGEST_LANGUAGE = 8  # "pt-br", "zh-hant": codes are short; anything longer is no tag


def tagged(data: str, language: str | None) -> str:
    """The data, answering in `language` when pressed (None: the user's own locale)."""
    return data if language is None else f"{data}{_LANGUAGE_TAG}{language}"


def untagged(data: str) -> tuple[str, str | None]:
    """The data without its language, and the language (None when it carries none). The
    data comes from a press, so it is not trusted: an odd tag is no tag."""
    plain, mark, language = data.rpartition(_LANGUAGE_TAG)
    if not mark or not plain.startswith(SAFETY_BUTTONS):
        return data, None
    letters = language.replace("-", "")
    if not (0 < len(language) <= _LONGEST_LANGUAGE and letters.isascii() and letters.isalpha()):
        return data, None
    return plain, language.lower()


def of_kind(data: str) -> tuple[str, ReplyKind]:
    """The data without the kind of reply its button sat under, and that kind
    ("sos:more:danger": "sos:more", danger; "sos:more": a crisis)."""
    for kind in (ReplyKind.DANGER, ReplyKind.HELP):
        if data.endswith(kind.value):
            return data.removesuffix(kind.value), kind
    return data, ReplyKind.CRISIS
