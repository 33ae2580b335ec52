"""What the core asks an adapter to show. Text is plain: adapters escape it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple


class Button(NamedTuple):
    """A tap target. `data` comes back in the press; `open_private`, when set, makes the
    button open the user's private chat with the bot at that start payload instead.

    A named tuple, not a frozen dataclass: as immutable, and made in a third of the
    time (a due minute makes nine for each of thousands of check-ins).
    """

    label: str
    data: str
    open_private: str | None = None


# (label, the data before the token, the data after it) per button, row by row.
ButtonTemplate = tuple[tuple[tuple[str, str, str], ...], ...]


class TokenRows(tuple[tuple[Button, ...], ...]):
    """Button rows made from a template and one user's token, remembering both.

    The rows are the buttons as any other rows are. Kept beside them, the template and
    the token let the outbox store a due minute's thousands of check-ins, alike but
    for their tokens, as one shared shape and a token each (bot/delivery/reply_codec.py).
    """

    template: ButtonTemplate
    token: str

    def __new__(
        cls, rows: tuple[tuple[Button, ...], ...], template: ButtonTemplate, token: str
    ) -> TokenRows:
        made = super().__new__(cls, rows)
        made.template = template
        made.token = token
        return made

    def __reduce__(self) -> tuple[type[TokenRows], tuple[Any, ...]]:
        # Copied or pickled with its template and token (a tuple's own would drop them).
        return (TokenRows, (tuple(self), self.template, self.token))


@dataclass(frozen=True, slots=True)
class Image:
    """A picture to send with a reply's text as its caption."""

    png: bytes
    filename: str


@dataclass(frozen=True, slots=True)
class Frame:
    """One state of a live message (a breathing countdown), shown for `seconds`."""

    text: str
    seconds: float


@dataclass(frozen=True, slots=True)
class Reply:
    """One message to send.

    silent:    deliver without a notification sound.
    protect:   the message echoes the user's own words; forbid forwarding/saving where possible.
    ephemeral: only the addressed user may see it (where the platform can do that).
    edit_of:   id of an earlier message to replace instead of sending a new one.
    image:     a picture; `text` becomes its caption where the platform can show images.
    frames:    a live sequence for platforms that can edit: the message shows each frame in
               turn (edited in place, at most once a second) and ends showing `text`.
               Elsewhere `text` alone is sent, so it must read well on its own.
    private:   in a group, send this to the user privately instead of to the group.
    group_notice:   with `private`, what to say in the group once the private message is sent.
    group_fallback: with `private`, what to say in the group if it cannot be sent (the user
               never opened a private chat with the bot): typically a link to open one.
    command_menu: "full" or "discreet": this user's own command menu should now describe
               commands in full, or neutrally again (where a platform has per-chat menus).
    urgent:    a crisis or danger reply (and /sos, its buttons): sent before anything else
               waiting, in room nothing else may take.
    """

    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()
    silent: bool = False
    protect: bool = False
    ephemeral: bool = False
    edit_of: str | None = None
    image: Image | None = None
    frames: tuple[Frame, ...] = ()
    private: bool = False
    group_notice: Reply | None = None
    group_fallback: Reply | None = None
    command_menu: str | None = None
    urgent: bool = False

    @property
    def flat_buttons(self) -> tuple[Button, ...]:
        return tuple(button for row in self.buttons for button in row)
