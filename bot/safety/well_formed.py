"""Text from a platform, made valid Unicode before anything reads, stores or echoes it.

A client can hand over a string that is not valid Unicode: a lone UTF-16
surrogate, left when an emoji was cut in half. Such a string cannot be encoded
as UTF-8, so it could be neither encrypted, nor stored, nor sent back, and the
user's whole message was lost behind "something went wrong". Each lone half
becomes U+FFFD (the replacement character) and every other character survives.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.core.events import ButtonPressed, CommandIssued, Event, TextMessage

_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """`text` with each lone surrogate replaced; a proper high-low pair becomes its character."""
    if _SURROGATE.search(text) is None:
        return text  # the usual case: nothing to copy
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def well_formed_event(event: Event) -> Event:
    """The same event with every piece of user-supplied text made well-formed."""
    match event:
        case TextMessage():
            return replace(event, text=well_formed(event.text))
        case CommandIssued():
            return replace(event, args=well_formed(event.args), name=well_formed(event.name))
        case ButtonPressed():
            return replace(event, data=well_formed(event.data))
    return event
