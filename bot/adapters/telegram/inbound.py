"""Telegram updates as what they mean to Steady: core events, or the few things about
a chat itself (moved to a new id, lost) that the adapter hands to their handlers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from telegram import Message, Update
from telegram.constants import ChatMemberStatus, ChatType, MessageEntityType

from bot.core.events import Address, ButtonPressed, CommandIssued, Event, TextMessage
from bot.engine.incoming import deep_linked

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
    language = update.effective_user.language_code if update.effective_user else None
    if update.callback_query is not None:
        return ButtonPressed(address, update.callback_query.data or "", language)
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


@dataclass(frozen=True, slots=True)
class ChatMoved:
    """A group became a supergroup, with a new chat id."""

    old_chat_id: str
    new_chat_id: str


@dataclass(frozen=True, slots=True)
class GroupLost:
    """The bot was removed from a group, or may no longer post there."""

    chat_id: str


@dataclass(frozen=True, slots=True)
class Unhandled:
    """An update that is nothing for Steady; a press among them still wants its answer."""


Inbound = Event | ChatMoved | GroupLost | Unhandled


def _chat_moved(update: Update, bot_username: str) -> Inbound | None:
    message = update.message
    if message is None or message.migrate_to_chat_id is None:
        return None
    return ChatMoved(str(message.chat.id), str(message.migrate_to_chat_id))


def _group_lost(update: Update, bot_username: str) -> Inbound | None:
    """The bot's own membership changed so that it can no longer post in a group."""
    change = update.my_chat_member
    if change is None or change.chat.type not in _GROUPS:
        return None
    member = change.new_chat_member
    lost = member.status in {ChatMemberStatus.LEFT, ChatMemberStatus.BANNED} or (
        member.status == ChatMemberStatus.RESTRICTED
        and not getattr(member, "can_send_messages", True)
    )
    return GroupLost(str(change.chat.id)) if lost else None


def _event(update: Update, bot_username: str) -> Inbound | None:
    event = to_event(update, bot_username)
    # A link's "/start wipe" is /wipe, answered like the command itself.
    return Unhandled() if event is None else deep_linked(event)


# Read in order; the first that recognises an update says what it is. The last one
# recognises everything (as Unhandled, at worst).
_TRANSLATIONS: tuple[Callable[[Update, str], Inbound | None], ...] = (
    _chat_moved,
    _group_lost,
    _event,
)


def translate(update: Update, bot_username: str) -> Inbound:
    for translation in _TRANSLATIONS:
        inbound = translation(update, bot_username)
        if inbound is not None:
            return inbound
    return Unhandled()  # pragma: no cover: _event recognises every update


def posted_as_the_group(update: Update) -> bool:
    """An anonymous admin: Telegram shows a stand-in bot as the sender, whose id is
    nobody's; only the group's admins can post as the group."""
    message = update.effective_message
    return (
        message is not None
        and message.sender_chat is not None
        and message.sender_chat.id == message.chat.id
    )
