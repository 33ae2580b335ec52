"""What a crisis reply must show first, checked the same way by every test of its order: a
number to dial within the first 25 words; a crisis names a 24/7 crisis line and the
emergency number together in its first two lines; danger puts the emergency number first
and an abuse line next; /sos shows a crisis line and an abuse line among its first three
lines; every button within Telegram's limits."""

from __future__ import annotations

import re

from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import MAX_BUTTON_LABEL_CHARS, CrisisResource
from bot.core.replies import Reply

ALWAYS = "24/7"
TELEGRAM_DATA_BYTES = 64
# Written without spaces between words: two of their characters count as a word (a word
# of Chinese or Japanese is one to three characters), a name in Latin letters as one.
UNSPACED = frozenset({"ja", "zh"})
_HAN_AND_KANA = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
_WORDS_OR_SIGNS = re.compile(rf"[{_HAN_AND_KANA}]|[^\s{_HAN_AND_KANA}\u3000-\u303f\uff00-\uffef]+")


def helplines(content: ContentPack, code: str, language: str) -> list[CrisisResource]:
    """Every helpline the reply's data lists for the country: a locale's own, else the
    default locale's (which the replies in other languages read too)."""
    found = content.country_resources(language, code)
    return [] if found is None else list(found.resources)


def lines_of(reply: Reply) -> list[str]:
    return [line for line in reply.text.splitlines() if line.strip()]


def first_number_within(text: str, language: str, limit: int = 25) -> bool:
    match = re.search(r"\d", text)
    assert match is not None, text
    before = text[: match.start()].replace("\u2066", "").replace("\u2069", "")
    if language in UNSPACED:
        found = _WORDS_OR_SIGNS.findall(before)
        signs = sum(1 for part in found if len(part) == 1 and re.match(f"[{_HAN_AND_KANA}]", part))
        return signs / 2 + (len(found) - signs) <= limit
    return len(before.split()) <= limit


def emergency_numbers(content: ContentPack, code: str) -> set[str]:
    numbers = content.emergency[code]
    return {numbers.police_number, numbers.ambulance_number}


def name_in(content: ContentPack, language: str, resource: CrisisResource) -> str:
    """The helpline's name as a reply in `language` gives it."""
    own = content.reply_languages.get(language)
    return (None if own is None else own.helpline_names.get(resource.id)) or resource.name


def named_on(
    content: ContentPack, language: str, line: str, resources: list[CrisisResource]
) -> CrisisResource | None:
    """The helpline a line of the reply gives, by its name at the start of the line (or
    right after the line's direction mark)."""
    bare = line.lstrip("\u2066\u2069")
    return next((r for r in resources if bare.startswith(name_in(content, language, r))), None)


def has_number(line: str, number: str) -> bool:
    return re.search(rf"(?<![\d-]){re.escape(number)}(?![\d-])", line) is not None


def check_buttons(reply: Reply) -> None:
    """Within Telegram's limits: 64 bytes of data (the language tag included), a label a
    phone shows whole."""
    for button in reply.flat_buttons:
        assert len(button.data.encode()) <= TELEGRAM_DATA_BYTES, button.data
        assert len(button.label) <= MAX_BUTTON_LABEL_CHARS, button.label


def check_crisis(content: ContentPack, reply: Reply, code: str, language: str) -> None:
    check_buttons(reply)
    assert first_number_within(reply.text, language), (language, code, reply.text)
    top = "\n".join(lines_of(reply)[:2])
    assert any(has_number(top, number) for number in emergency_numbers(content, code)), code
    resources = helplines(content, code, language)
    always = [r for r in resources if r.kind == "crisis" and r.hours == ALWAYS]
    if always:
        lead = next((line for line in always if name_in(content, language, line) in top), None)
        assert lead is not None, (language, code, top)
        assert re.search(r"\d", lead.contact) is None or any(
            has_number(top, number) for number in re.findall(r"[\d][\d -]*\d", lead.contact)
        ), (language, code)


def check_danger(content: ContentPack, reply: Reply, code: str, language: str) -> None:
    check_buttons(reply)
    assert first_number_within(reply.text, language), (language, code)
    body = lines_of(reply)[1:]
    assert any(has_number(body[0], number) for number in emergency_numbers(content, code)), code
    resources = helplines(content, code, language)
    named = [found for line in body if (found := named_on(content, language, line, resources))]
    if any(r.kind == "domestic_abuse" for r in resources):
        assert named[0].kind == "domestic_abuse", (language, code)
        assert named_on(content, language, body[1], resources) is named[0], (language, code)


def check_sos(content: ContentPack, reply: Reply, code: str, language: str) -> None:
    check_buttons(reply)
    assert first_number_within(reply.text, language), (language, code)
    first_three = lines_of(reply)[:3]
    assert any(has_number(first_three[0], number) for number in emergency_numbers(content, code)), (
        code
    )
    resources = helplines(content, code, language)
    kinds = {
        found.kind
        for line in first_three
        if (found := named_on(content, language, line, resources)) is not None
    }
    for kind in ("crisis", "domestic_abuse"):
        if any(r.kind == kind for r in resources):
            assert kind in kinds, (language, code, kind)
