"""Replies as Discord messages: escaped text cut to fit, and buttons as inert components."""

from __future__ import annotations

import discord

from bot.adapters.text_split import split_text, utf16_length
from bot.core.replies import Button, Reply

MAX_CONTENT = 2000
MAX_CUSTOM_ID = 100
MAX_LABEL = 80
MAX_PER_ROW = 5
MAX_ROWS = 5
OPEN_PREFIX = "steady:open:"
# Discord refuses a button without a custom_id; the core never sends one, but a press of
# this placeholder reaches the router like any stale button rather than failing the send.
EMPTY_DATA = "steady:none"

# Nothing Steady sends may ping anyone, whatever the text says.
NO_MENTIONS = discord.AllowedMentions.none()


def escape(text: str) -> str:
    """Every piece of text is the user's or the pack's plain text: nothing in it is markup,
    and "@everyone" or "<@id>" in it must not even look like a mention."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(text))


def _escaped_length(text: str) -> int:
    # UTF-16 units: never more than Discord's own count, so a piece that fits here fits there.
    return utf16_length(escape(text))


def text_pieces(text: str, limit: int = MAX_CONTENT) -> list[str]:
    """Escaped pieces of at most `limit`, cut between paragraphs or sentences."""
    pieces = [escape(piece) for piece in split_text(text, limit, _escaped_length)]
    return [piece[:limit] for piece in pieces if piece.strip()] or [escape(text)[:limit]]


def open_custom_id(command: str) -> str:
    return f"{OPEN_PREFIX}{command}"[:MAX_CUSTOM_ID]


def opened_command(custom_id: str) -> str | None:
    """The command an "open privately" button runs, or None for any other button."""
    if not custom_id.startswith(OPEN_PREFIX):
        return None
    return custom_id.removeprefix(OPEN_PREFIX) or None


def custom_id_of(button: Button) -> str:
    if button.open_private is not None:
        return open_custom_id(button.open_private)
    return (button.data or EMPTY_DATA)[:MAX_CUSTOM_ID]


def component_rows(reply: Reply) -> list[list[Button]]:
    """The reply's rows, each cut into rows of at most five (Discord's limit), at most five
    rows in all; a keyboard bigger than 25 buttons loses its last ones."""
    rows: list[list[Button]] = []
    for row in reply.buttons:
        for start in range(0, len(row), MAX_PER_ROW):
            rows.append(list(row[start : start + MAX_PER_ROW]))
    return rows[:MAX_ROWS]


def view_for(reply: Reply) -> discord.ui.View | None:
    """The buttons as a view that only renders them.

    The view is stopped before it is sent, so discord.py does not keep it in its view
    store: presses are answered from the custom_id alone (in `on_interaction`), which is
    what makes a button still work after a restart, and keeps nothing in memory.
    """
    rows = component_rows(reply)
    if not rows:
        return None
    view = discord.ui.View(timeout=None)
    seen: set[str] = set()
    for number, row in enumerate(rows):
        for button in row:
            custom_id = custom_id_of(button)
            if custom_id in seen:
                continue  # Discord refuses two buttons with one custom_id in a message
            seen.add(custom_id)
            view.add_item(
                discord.ui.Button(
                    label=button.label[:MAX_LABEL],
                    custom_id=custom_id,
                    style=discord.ButtonStyle.primary
                    if button.open_private
                    else discord.ButtonStyle.secondary,
                    row=number,
                )
            )
    view.stop()
    return view
