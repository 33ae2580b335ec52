"""Telegram updates as core events. Anything we do not handle maps to None."""

from __future__ import annotations

from telegram import Message, Update
from telegram.constants import ChatType, MessageEntityType

from bot.core.events import Address, ButtonPressed, CommandIssued, Event, TextMessage

PLATFORM = "telegram"
_GROUPS = frozenset({ChatType.GROUP, ChatType.SUPERGROUP})


def address_of(update: Update) -> Address | None:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return None
    return Address(PLATFORM, str(chat.id), str(user.id), is_group=chat.type in _GROUPS)


def to_event(update: Update, bot_username: str) -> Event | None:
    address = address_of(update)
    if address is None:
        return None
    if update.callback_query is not None:
        return ButtonPressed(address, update.callback_query.data or "")
    language = update.effective_user.language_code if update.effective_user else None
    if update.edited_message is not None:
        # A changed message, or a changed caption: screened, never an answer or a command.
        words = _words(update.edited_message)
        return None if words is None else TextMessage(address, words, language, edited=True)
    message = update.message
    if message is None:
        return None
    if message.text is None:
        # A photo, video or file: what the user wrote under it is theirs like any text.
        caption = message.caption
        return None if not caption else TextMessage(address, caption, language_code=language)
    command = _command(message, bot_username)
    if command is not None:
        name, args = command
        return CommandIssued(address, name, args, language_code=language)
    if message.text.startswith("/") and _addressed_elsewhere(message, bot_username):
        return None  # "/start@other_bot" in a group is for someone else
    return TextMessage(address, message.text, language_code=language)


def _words(message: Message) -> str | None:
    """What the user wrote: the text, or the caption under their media."""
    return message.text or message.caption or None


def _command(message: Message, bot_username: str) -> tuple[str, str] | None:
    """`/name@bot args` as (name, args) when the command is ours (or names no bot)."""
    text = message.text or ""
    entity = next(iter(message.entities or ()), None)
    if entity is None or entity.type != MessageEntityType.BOT_COMMAND or entity.offset != 0:
        return None
    head = text[1 : entity.length]
    name, _, target = head.partition("@")
    if target and target.casefold() != bot_username.casefold():
        return None
    return name.casefold(), text[entity.length :].strip()


def _addressed_elsewhere(message: Message, bot_username: str) -> bool:
    head = (message.text or "").split(maxsplit=1)[0]
    _, _, target = head.partition("@")
    return bool(target) and target.casefold() != bot_username.casefold()
