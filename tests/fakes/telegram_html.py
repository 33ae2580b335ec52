"""Telegram's HTML dialect as the fake Bot API reads it: the plain text and the entities
of a message sent with ``parse_mode=HTML``, and Telegram's own error texts when it
cannot be read. A module of its own, so the fake's server code and this parser can each
be read without the other."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit Telegram measures text and entity offsets in."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


ALLOWED_HTML_TAGS: Final = frozenset(
    {
        "b",
        "strong",
        "i",
        "em",
        "u",
        "ins",
        "s",
        "strike",
        "del",
        "span",
        "tg-spoiler",
        "a",
        "code",
        "pre",
        "blockquote",
        "tg-emoji",
    }
)
_SIMPLE_TAG_TYPES: Final = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
}
_NAMED_ENTITIES: Final = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY: Final = re.compile(r"&(?:#(\d+)|#[xX]([0-9A-Fa-f]+)|([A-Za-z]+))(;?)")
_SPACE: Final = " \t\r\n\f\v"
_INVALID_SURROGATE: Final = (
    "Text contains invalid Unicode characters after decoding HTML entities, "
    "check for unmatched surrogate code units"
)


class HtmlParseError(Exception):
    """The text after "can't parse entities: " in Telegram's 400 answer."""


@dataclass
class _OpenTag:
    name: str
    attributes: dict[str, str]
    utf16_offset: int
    chunk_index: int


class _HtmlParser:
    """Telegram's HTML dialect, following tdlib's parse_html (its error texts included).

    With ``strict`` the parser also rejects what Telegram lets through silently: a bare "&" or
    ">" and unknown entities such as "&foo;" (Telegram keeps those as literal text). They are
    almost always an escaping bug in the bot, which is the thing these tests exist to find.
    """

    def __init__(self, source: str, *, strict: bool) -> None:
        self.src = source
        self.strict = strict
        self.chunks: list[str] = []
        self.utf16 = 0
        self.stack: list[_OpenTag] = []
        self.entities: list[dict[str, Any]] = []

    def parse(self) -> tuple[str, list[dict[str, Any]]]:
        i = 0
        while i < len(self.src):
            char = self.src[i]
            if char == "&":
                decoded, i = self._entity(i)
                self._emit(decoded)
            elif char == "<":
                i = self._tag(i)
            else:
                if char == ">" and self.strict:
                    raise HtmlParseError(f'Unescaped ">" at byte offset {self._byte(i)}')
                self._emit(char)
                i += 1
        if self.stack:
            raise HtmlParseError(
                f'Can\'t find end tag corresponding to start tag "{self.stack[-1].name}"'
            )
        for entity in self.entities:
            entity.pop("_language", None)
        self.entities.sort(key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.chunks), self.entities

    def _byte(self, index: int) -> int:
        # Telegram reports positions as byte offsets into the UTF-8 source.
        return len(self.src[:index].encode("utf-8", "surrogatepass"))

    def _emit(self, text: str) -> None:
        self.chunks.append(text)
        self.utf16 += utf16_len(text)

    def _entity(self, i: int) -> tuple[str, int]:
        match = _ENTITY.match(self.src, i)
        decoded: str | None = None
        if match and (match[1] or match[2]):
            code = int(match[1], 10) if match[1] else int(match[2], 16)
            if 0xD800 <= code <= 0xDFFF:
                raise HtmlParseError(_INVALID_SURROGATE)
            if 0 < code < 0x10FFFF:
                decoded = chr(code)
        elif match:
            decoded = _NAMED_ENTITIES.get(match[3])
        if match and decoded is not None and (match[4] or not self.strict):
            return decoded, match.end()
        if self.strict:
            where = f"at byte offset {self._byte(i)}"
            if match and decoded is not None:
                raise HtmlParseError(f'HTML entity "{match[0]}" must end with ";" {where}')
            if match and match[4]:
                raise HtmlParseError(f'Unsupported HTML entity "{match[0]}" {where}')
            raise HtmlParseError(f'Unescaped "&" {where}')
        return "&", i + 1

    def _tag(self, begin: int) -> int:
        if begin + 1 < len(self.src) and self.src[begin + 1] == "/":
            return self._end_tag(begin)
        return self._start_tag(begin)

    def _start_tag(self, begin: int) -> int:
        src = self.src
        j = begin + 1
        while j < len(src) and src[j] not in _SPACE and src[j] != ">":
            j += 1
        if j >= len(src):
            raise HtmlParseError(f"Unclosed start tag at byte offset {self._byte(begin)}")
        name = src[begin + 1 : j].lower()
        if name not in ALLOWED_HTML_TAGS:
            raise HtmlParseError(
                f'Unsupported start tag "{name}" at byte offset {self._byte(begin)}'
            )
        attributes, j = self._attributes(name, begin, j)
        if name == "span" and attributes.get("class") != "tg-spoiler":
            raise HtmlParseError(
                f'Tag "span" must have class "tg-spoiler" at byte offset {self._byte(begin)}'
            )
        self.stack.append(_OpenTag(name, attributes, self.utf16, len(self.chunks)))
        return j + 1

    def _attributes(self, tag: str, begin: int, j: int) -> tuple[dict[str, str], int]:
        src = self.src
        where = f'the tag "{tag}" at byte offset {self._byte(begin)}'
        attributes: dict[str, str] = {}
        while True:
            while j < len(src) and src[j] in _SPACE:
                j += 1
            if j >= len(src):
                raise HtmlParseError(f"Unclosed start tag at byte offset {self._byte(begin)}")
            if src[j] == ">":
                return attributes, j
            name_begin = j
            while j < len(src) and src[j] not in _SPACE and src[j] not in "=>":
                j += 1
            name = src[name_begin:j].lower()
            if not name:
                raise HtmlParseError(f"Empty attribute name in {where}")
            while j < len(src) and src[j] in _SPACE:
                j += 1
            if tag == "blockquote" and name == "expandable" and (j >= len(src) or src[j] != "="):
                attributes[name] = ""  # the one value-less attribute Telegram knows
                continue
            if j >= len(src) or src[j] != "=":
                raise HtmlParseError(
                    f"Expected equal sign in declaration of an attribute of {where}"
                )
            j += 1
            while j < len(src) and src[j] in _SPACE:
                j += 1
            if j >= len(src):
                raise HtmlParseError(
                    f'Unclosed start tag "{tag}" at byte offset {self._byte(begin)}'
                )
            attributes[name], j = self._attribute_value(j)
            if j >= len(src):
                raise HtmlParseError(f"Unclosed start tag at byte offset {self._byte(begin)}")

    def _attribute_value(self, j: int) -> tuple[str, int]:
        src = self.src
        if src[j] in "\"'":
            quote = src[j]
            j += 1
            value: list[str] = []
            while j < len(src) and src[j] != quote:
                if src[j] == "&":
                    decoded, j = self._entity(j)
                    value.append(decoded)
                else:
                    value.append(src[j])
                    j += 1
            return "".join(value), j + 1 if j < len(src) else j
        start = j
        while j < len(src) and ((src[j].isascii() and src[j].isalnum()) or src[j] in ".-"):
            j += 1
        if j < len(src) and src[j] not in _SPACE and src[j] != ">":
            raise HtmlParseError(f"Unexpected end of name token at byte offset {self._byte(start)}")
        return src[start:j].lower(), j

    def _end_tag(self, begin: int) -> int:
        src = self.src
        if not self.stack:
            raise HtmlParseError(f"Unexpected end tag at byte offset {self._byte(begin)}")
        j = begin + 2
        while j < len(src) and src[j] not in _SPACE and src[j] != ">":
            j += 1
        end_name = src[begin + 2 : j].lower()
        while j < len(src) and src[j] in _SPACE:
            j += 1
        if j >= len(src) or src[j] != ">":
            raise HtmlParseError(f"Unclosed end tag at byte offset {self._byte(begin)}")
        open_tag = self.stack[-1]
        # "</>" closes whatever is open, as in Telegram.
        if end_name and end_name != open_tag.name:
            raise HtmlParseError(
                f"Unmatched end tag at byte offset {self._byte(begin)}, "
                f'expected "</{open_tag.name}>", found "</{end_name}>"'
            )
        self.stack.pop()
        self._close(open_tag)
        return j + 1

    def _close(self, tag: _OpenTag) -> None:
        length = self.utf16 - tag.utf16_offset
        if length <= 0:
            return  # Telegram drops empty entities
        entity: dict[str, Any] = {"type": "", "offset": tag.utf16_offset, "length": length}
        if tag.name in _SIMPLE_TAG_TYPES:
            entity["type"] = _SIMPLE_TAG_TYPES[tag.name]
        elif tag.name == "a":
            url = tag.attributes.get("href") or "".join(self.chunks[tag.chunk_index :])
            if "://" not in url and not url.startswith("tg:"):
                url = f"http://{url}"
            entity.update(type="text_link", url=url)
        elif tag.name == "blockquote":
            expandable = "expandable" in tag.attributes
            entity["type"] = "expandable_blockquote" if expandable else "blockquote"
        elif tag.name == "tg-emoji":
            emoji_id = tag.attributes.get("emoji-id", "")
            if not emoji_id.isdigit() or int(emoji_id) == 0:
                raise HtmlParseError("Invalid custom emoji identifier specified")
            entity.update(type="custom_emoji", custom_emoji_id=emoji_id)
        elif tag.name == "code":
            entity["type"] = "code"
            language = tag.attributes.get("class", "")
            if language.startswith("language-") and len(language) > len("language-"):
                entity["_language"] = language.removeprefix("language-")
        else:  # pre: <pre><code class="language-x"> becomes one pre entity with a language
            entity["type"] = "pre"
            last = self.entities[-1] if self.entities else None
            if (
                last is not None
                and last["type"] == "code"
                and (last["offset"], last["length"]) == (entity["offset"], length)
                and "_language" in last
            ):
                self.entities.pop()
                entity["language"] = last["_language"]
        self.entities.append(entity)


def parse_html(source: str, *, strict: bool = True) -> tuple[str, list[dict[str, Any]]]:
    """Plain text and entities of Telegram-HTML ``source``; raises HtmlParseError."""
    return _HtmlParser(source, strict=strict).parse()


def trim_entities(text: str, entities: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Telegram strips leading and trailing whitespace and clips entities to match."""
    left = text.lstrip()
    shift = utf16_len(text) - utf16_len(left)
    trimmed = left.rstrip()
    total = utf16_len(trimmed)
    clipped = []
    for entity in entities:
        if not isinstance(entity, dict):
            continue
        start = max(int(entity.get("offset", 0)) - shift, 0)
        end = min(int(entity.get("offset", 0)) + int(entity.get("length", 0)) - shift, total)
        if end > start:
            clipped.append({**entity, "offset": start, "length": end - start})
    return trimmed, clipped
