"""Replies as Telegram messages: HTML-escaped text, inline keyboards, split to fit."""

from __future__ import annotations

import html

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.adapters.text_split import split_text, utf16_length
from bot.core.replies import Button, Reply

MAX_TEXT = 4096  # UTF-16 code units, counted after entities are parsed
MAX_CAPTION = 1024


def escape(text: str) -> str:
    """Every piece of text is the user's or the pack's plain text: nothing in it is markup."""
    return html.escape(text, quote=False)


def text_pieces(text: str, limit: int = MAX_TEXT) -> list[str]:
    """Plain-text pieces that fit; escaped later, since Telegram counts after parsing."""
    return split_text(text, limit, utf16_length)


def keyboard(reply: Reply, deep_link: str) -> InlineKeyboardMarkup | None:
    if not reply.buttons:
        return None
    return InlineKeyboardMarkup(
        [[_button(button, deep_link) for button in row] for row in reply.buttons]
    )


def _button(button: Button, deep_link: str) -> InlineKeyboardButton:
    if button.open_private is not None:
        return InlineKeyboardButton(button.label, url=f"{deep_link}?start={button.open_private}")
    return InlineKeyboardButton(button.label, callback_data=button.data)


def formatted(piece: str, plain: bool) -> str:
    """A piece as sent: escaped for HTML, or as it is when sent without formatting."""
    return piece if plain else escape(piece)
