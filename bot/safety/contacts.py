"""How to reach a helpline, told in a language its entry is not written in.

Helpline entries say how to reach a line in their own locale's words ("Call free on
0800 111 0 111, or chat online"). English and Spanish replies show those words as written.
A reply in another language (German, Arabic ...) shows the same facts in its own words:
the entry's English contact is read into parts (call these numbers, text this keyword to
that number, chat online, free of charge, then choose option 4) and each part is written
with the reply language's own pattern. A contact this reading does not fully understand is
shown as written, never guessed at: the numbers in it are what matters, and they are there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from bot.content_pack.ids import SafetyMsg
from bot.safety.reply_words import ReplyWords

# A number as entries write it: digits with spaces or dashes between them, and * or #
# for short codes ("*4141", "*120*7867#", "9-8-8", "0 800 500 335").
NUMBER = r"[*#]?\d(?:[\d\-*#]|\s(?=\d))*"
_NUMBER = re.compile(NUMBER)
_NUMBERS = re.compile(rf"({NUMBER}(?: \(landline\))?)((?: or {NUMBER}(?: \(landline\))?)*)")
_LANDLINE = " (landline)"
_OPTION = re.compile(r" and choose option (\d{1,2})(?: for [a-z ]+)?", re.IGNORECASE)
_SEPARATOR = re.compile(r",? or |, ")


class Way(Enum):
    CALL = SafetyMsg.CONTACT_CALL
    TEXT = SafetyMsg.CONTACT_TEXT
    CALL_OR_TEXT = SafetyMsg.CONTACT_CALL_OR_TEXT
    WHATSAPP = SafetyMsg.CONTACT_WHATSAPP


# How entries begin a part, in the order tried (the longer first), with the way it opens
# and whether it says the call is free. "free on" continues a call ("Call 116 123, or free
# on 0 800 500 335").
_OPENINGS: tuple[tuple[re.Pattern[str], Way, bool], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), way, free)
    for pattern, way, free in (
        ("free call or text ", Way.CALL_OR_TEXT, True),
        ("call or text ", Way.CALL_OR_TEXT, False),
        ("call free on ", Way.CALL, True),
        ("free on ", Way.CALL, True),
        ("call ", Way.CALL, False),
        ("text ", Way.TEXT, False),
        ("whatsapp ", Way.WHATSAPP, False),
    )
)
# A keyword is written in capitals ("Text HOME to 741741"), so this one is case-sensitive.
_TEXT_KEYWORD = re.compile(rf"[Tt]ext ([A-Z][A-Z0-9]*) to ({NUMBER})")
_CHAT = re.compile("chat online", re.IGNORECASE)
_CALLBACK = re.compile(rf"dial ({NUMBER}) to be called back", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Numbers:
    way: Way
    numbers: tuple[str, ...]
    landline: tuple[bool, ...]
    free: bool = False
    option: str | None = None  # "then choose option 4"


@dataclass(frozen=True, slots=True)
class TextKeyword:
    keyword: str
    number: str


@dataclass(frozen=True, slots=True)
class Chat:
    pass


@dataclass(frozen=True, slots=True)
class Callback:
    number: str


Part = Numbers | TextKeyword | Chat | Callback


@lru_cache(maxsize=1024)
def parse(contact: str) -> tuple[Part, ...] | None:
    """The parts of an English contact, or None where any of it is not understood."""
    parts: list[Part] = []
    position = 0
    while True:
        found = _part_at(contact, position)
        if found is None:
            return None
        part, position = found
        parts.append(part)
        if position == len(contact):
            return tuple(parts)
        separator = _SEPARATOR.match(contact, position)
        if separator is None:
            return None
        position = separator.end()


def _part_at(contact: str, position: int) -> tuple[Part, int] | None:
    keyword = _TEXT_KEYWORD.match(contact, position)
    if keyword is not None:
        return TextKeyword(keyword.group(1), keyword.group(2)), keyword.end()
    chat = _CHAT.match(contact, position)
    if chat is not None:
        return Chat(), chat.end()
    callback = _CALLBACK.match(contact, position)
    if callback is not None:
        return Callback(callback.group(1)), callback.end()
    for opening, way, free in _OPENINGS:
        start = opening.match(contact, position)
        if start is None:
            continue
        listed = _NUMBERS.match(contact, start.end())
        if listed is None:
            return None
        written = [listed.group(1), *listed.group(2).split(" or ")[1:]]
        end = listed.end()
        option = _OPTION.match(contact, end)
        if option is not None:
            end = option.end()
        part = Numbers(
            way,
            tuple(number.removesuffix(_LANDLINE) for number in written),
            tuple(number.endswith(_LANDLINE) for number in written),
            free,
            None if option is None else option.group(1),
        )
        return part, end
    return None


def render(words: ReplyWords, contact: str) -> str:
    """The contact in the reply's language: written from its parts, or as it stands when
    it was not understood (in right-to-left text, kept in its own order)."""
    parts = parse(contact)
    if parts is None:
        return words.ltr(contact)
    told = [_part(words, part) for part in parts]
    joined = told[0]
    for part in told[1:]:
        joined = words.text(SafetyMsg.CONTACT_EITHER, first=joined, second=part)
    return joined


def _part(words: ReplyWords, part: Part) -> str:
    match part:
        case Numbers():
            listed = words.either(
                [
                    words.text(SafetyMsg.CONTACT_LANDLINE, number=words.ltr(number))
                    if landline
                    else words.ltr(number)
                    for number, landline in zip(part.numbers, part.landline, strict=True)
                ]
            )
            if part.free:
                listed = words.text(SafetyMsg.CONTACT_FREE, numbers=listed)
            told = words.text(part.way.value, numbers=listed)
            if part.option is None:
                return told
            return words.text(SafetyMsg.CONTACT_OPTION, contact=told, option=part.option)
        case TextKeyword():
            return words.text(
                SafetyMsg.CONTACT_TEXT_KEYWORD,
                keyword=words.ltr(part.keyword),
                number=words.ltr(part.number),
            )
        case Chat():
            return words.text(SafetyMsg.CONTACT_CHAT)
        case Callback():
            return words.text(SafetyMsg.CONTACT_CALLBACK, number=words.ltr(part.number))


def first_number(contact: str) -> str | None:
    """The first number a contact names, in whatever language it is written."""
    found = _NUMBER.search(contact)
    return None if found is None else found.group(0)
