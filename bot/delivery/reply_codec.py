"""A `Reply` as text and back, so a message waiting in the outbox table can be sent by
any worker, or by this one after a restart.

Only what differs from a default is written, as a JSON object with short keys: a
check-in is its text, its buttons and a flag or two. Decoding refuses what it does
not know, so a row written by a newer version is never sent half understood.

Buttons made from a template and a token (`TokenRows`: every check-in's) can be
written as a `Shape` instead: the reply's JSON with each button's data as the two
parts the token goes between, shared by every reply alike but for the token, and
stored once. A due minute's 10,000 check-ins are then a few dozen shapes and a token
each, not 10,000 copies of half a kilobyte of JSON written, marked and deleted.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, fields, replace
from operator import attrgetter
from typing import Any

from bot.core.replies import Button, Frame, Image, Reply, TokenRows

_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

_FLAGS = ("silent", "protect", "ephemeral", "private")
_KNOWN = frozenset({"t", "b", "e", "i", "f", "n", "g", "m", *_FLAGS})


class UnreadableReply(ValueError):
    """A stored reply this version cannot read."""


def encode_reply(reply: Reply) -> str:
    if reply.image or reply.frames or reply.group_notice or reply.group_fallback:
        return _compact(_as_object(reply))
    # The common case, written directly: a due minute encodes thousands of check-ins
    # whose texts and labels repeat (quoted once, then looked up) and whose button data
    # differ only in their tokens. The same JSON `_as_object` would give.
    parts = ['{"t":', _quoted(reply.text)]
    if reply.buttons:
        parts.append(',"b":[')
        parts.append(",".join("[" + ",".join(map(_button, row)) + "]" for row in reply.buttons))
        parts.append("]")
    for flag in _FLAGS:
        if getattr(reply, flag):
            parts.append(f',"{flag}":true')
    if reply.edit_of is not None:
        parts.append(',"e":' + _quote(reply.edit_of))
    if reply.command_menu is not None:
        parts.append(',"m":' + _quote(reply.command_menu))
    parts.append("}")
    return "".join(parts)


_quote = json.encoder.encode_basestring  # as the encoder above quotes, without ASCII escapes
_QUOTED: dict[str, str] = {}
_MOST_QUOTED = 4_096  # texts and labels of the pack, not everything ever sent


def _quoted(text: str) -> str:
    found = _QUOTED.get(text)
    if found is None:
        found = _quote(text)
        if len(_QUOTED) < _MOST_QUOTED:
            _QUOTED[text] = found
    return found


def _button(button: Button) -> str:
    label, data, opens = button
    end = "null]" if opens is None else _quote(opens) + "]"
    return "[" + _quoted(label) + "," + _quote(data) + "," + end


@dataclass(frozen=True, slots=True)
class Shape:
    """A reply but for its buttons' token: `text` decodes with the token as `fill`."""

    id: str  # from the text itself: every worker names the same shape alike
    text: str


_SHAPES: dict[tuple[Any, ...], Shape] = {}
_MOST_SHAPES = 4_096  # a pack's openings, locales and steps, not everything ever sent


# What else makes two replies with the same template different: every field but the
# buttons (read from the dataclass, so a field added to Reply is part of it too).
_SHAPE_KEY = attrgetter(*(field.name for field in fields(Reply) if field.name != "buttons"))


def shape_of(reply: Reply) -> tuple[Shape, str] | None:
    """The reply's shape and the token that fills it, for buttons made from a template;
    None for any other reply (encoded whole). A reply echoing someone's own words
    (`protect`) is never a shape: shapes are shared, and outlive a /forget by a day."""
    rows = reply.buttons
    if (
        type(rows) is not TokenRows
        or reply.protect
        or reply.image is not None
        or reply.frames
        or reply.group_notice is not None
        or reply.group_fallback is not None
    ):
        return None
    key = (rows.template, _SHAPE_KEY(reply))
    shape = _SHAPES.get(key)
    if shape is None:
        found = _as_object(replace(reply, buttons=()))
        found["b"] = [
            [[label, [head, tail], None] for label, head, tail in row] for row in rows.template
        ]
        text = _compact(found)
        shape = Shape(hashlib.sha256(text.encode()).hexdigest()[:32], text)
        if len(_SHAPES) < _MOST_SHAPES:
            _SHAPES[key] = shape
    return shape, rows.token


def decode_reply(text: str, fill: str | None = None) -> Reply:
    """A reply from its JSON, or from a shape's with the token it was stored with."""
    try:
        return _from_object(json.loads(text), fill)
    except (KeyError, TypeError, ValueError) as error:
        raise UnreadableReply(str(error)) from error


def _data(data: str | list[str], fill: str | None) -> str:
    if isinstance(data, str):
        return data
    if fill is None:
        raise ValueError("a shape's button data without the token to fill it")
    head, tail = data
    return f"{head}{fill}{tail}"


def _as_object(reply: Reply) -> dict[str, Any]:
    found: dict[str, Any] = {"t": reply.text}
    if reply.buttons:
        found["b"] = [[list(button) for button in row] for row in reply.buttons]
    for flag in _FLAGS:
        if getattr(reply, flag):
            found[flag] = True
    if reply.edit_of is not None:
        found["e"] = reply.edit_of
    if reply.image is not None:
        found["i"] = [base64.b64encode(reply.image.png).decode("ascii"), reply.image.filename]
    if reply.frames:
        found["f"] = [[frame.text, frame.seconds] for frame in reply.frames]
    if reply.group_notice is not None:
        found["n"] = _as_object(reply.group_notice)
    if reply.group_fallback is not None:
        found["g"] = _as_object(reply.group_fallback)
    if reply.command_menu is not None:
        found["m"] = reply.command_menu
    return found


def _from_object(found: dict[str, Any], fill: str | None = None) -> Reply:
    unknown = set(found) - _KNOWN
    if unknown:
        raise ValueError(f"unknown reply fields {sorted(unknown)}")
    image = found.get("i")
    return Reply(
        text=str(found["t"]),
        buttons=tuple(
            tuple(Button(label, _data(data, fill), opens) for label, data, opens in row)
            for row in found.get("b", ())
        ),
        edit_of=found.get("e"),
        image=None if image is None else Image(base64.b64decode(image[0]), str(image[1])),
        frames=tuple(Frame(str(text), float(seconds)) for text, seconds in found.get("f", ())),
        group_notice=None if "n" not in found else _from_object(found["n"]),
        group_fallback=None if "g" not in found else _from_object(found["g"]),
        command_menu=found.get("m"),
        **{flag: bool(found.get(flag, False)) for flag in _FLAGS},
    )
