"""Replies out to Telegram: text in pieces, photos, edits, frames, group pacing.

Each Bot API call is tried as the caller's `Attempt` says (see `bot/adapters/sending.py`
for who retries what); this module only shapes the calls.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace

from telegram import Bot, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, TelegramError

from bot.adapters.pacing import ChatPacer
from bot.adapters.retry import RateLimited, Sleep
from bot.adapters.sending import Attempt, Background, patient, play_frames, post_pieces
from bot.adapters.telegram import errors
from bot.adapters.telegram.inbound import PLATFORM
from bot.adapters.telegram.render import MAX_CAPTION, formatted, keyboard, text_pieces
from bot.coordination.send_budget import (
    TELEGRAM_GROUP,
    TELEGRAM_OVERALL,
    LocalBudget,
    SendBudget,
)
from bot.core.events import Address
from bot.core.platform import DeliveryError, SentMessage
from bot.core.replies import Reply
from bot.delivery.sent_log import SentLog
from bot.logs import get_logger, log_event

log = get_logger("telegram")

OnChatMoved = Callable[[str, str], Awaitable[None]]


class Outbound:
    def __init__(
        self,
        bot: Callable[[], Bot],
        deep_link: Callable[[], str],
        group_pacer: ChatPacer,
        sent_log: SentLog,
        background: Background,
        sleep: Sleep,
        on_chat_moved: OnChatMoved,
        rate_limited: RateLimited | None = None,
        budget: SendBudget | None = None,
    ) -> None:
        self._bot = bot
        self._deep_link = deep_link
        self._group_pacer = group_pacer
        self._sent_log = sent_log
        self._background = background
        self._sleep = sleep
        self._on_chat_moved = on_chat_moved
        self._rate_limited = rate_limited
        self._budget = budget or LocalBudget()

    async def send(self, address: Address, reply: Reply, first: Attempt) -> SentMessage:
        """One reply; its first Bot API call tried as `first` says. A private reply asked
        for in a group goes to the user's own chat; a group that became a supergroup is
        followed to its new id and the reply sent there."""
        target = address
        if reply.private and address.is_group:
            target = Address(PLATFORM, address.user_id, address.user_id)
        try:
            return await self._send(target, reply, first)
        except ChatMigrated as migrated:
            new_chat = str(migrated.new_chat_id)
            await self._on_chat_moved(target.chat_id, new_chat)
            return await self._send(replace(target, chat_id=new_chat), reply, first)

    async def _send(self, address: Address, reply: Reply, first: Attempt) -> SentMessage:
        if reply.edit_of is not None:
            await first(functools.partial(self._edit, address, reply.edit_of, reply))
            return SentMessage(address, reply.edit_of)
        if reply.image is not None:
            photo = await first(
                lambda: errors.call(functools.partial(self._send_photo, address, reply))
            )
            self._sent_log.remember(address, str(photo.message_id))
            return SentMessage(address, str(photo.message_id))
        pieces = text_pieces(reply.frames[0].text if reply.frames else reply.text)

        async def post(number: int, piece: str) -> Message:
            with_buttons = number == len(pieces) - 1  # buttons go under the last piece
            message = await errors.call(
                functools.partial(self._send_text, address, reply, piece, with_buttons)
            )
            self._sent_log.remember(address, str(message.message_id))
            return message

        last = await post_pieces(pieces, post, first, self._sleep, self._rate_limited)
        sent = SentMessage(address, str(last.message_id))
        if reply.frames:

            async def show(text: str) -> None:
                edit = functools.partial(
                    self._edit, address, sent.message_id, replace(reply, text=text)
                )
                await patient(self._sleep, self._rate_limited)(edit)

            play_frames(
                self._background,
                reply,
                show,
                self._sleep,
                log,
                "telegram.frames_stopped",
                stops_on=(TelegramError, DeliveryError),
            )
        return sent

    async def _send_text(
        self, address: Address, reply: Reply, piece: str, with_buttons: bool, plain: bool
    ) -> Message:
        async with self._paced(address):
            return await self._bot().send_message(
                int(address.chat_id),
                formatted(piece, plain),
                parse_mode=None if plain else ParseMode.HTML,
                reply_markup=keyboard(reply, self._deep_link()) if with_buttons else None,
                disable_notification=reply.silent,
                protect_content=reply.protect,
            )

    async def _send_photo(self, address: Address, reply: Reply, plain: bool) -> Message:
        assert reply.image is not None
        async with self._paced(address):
            return await self._bot().send_photo(
                int(address.chat_id),
                photo=reply.image.png,
                filename=reply.image.filename,
                caption=formatted(text_pieces(reply.text, MAX_CAPTION)[0], plain),
                parse_mode=None if plain else ParseMode.HTML,
                reply_markup=keyboard(reply, self._deep_link()),
                disable_notification=reply.silent,
                protect_content=reply.protect,
            )

    @asynccontextmanager
    async def _paced(self, address: Address) -> AsyncIterator[None]:
        """Group messages take their turn under Telegram's per-group limit; others go.
        With several workers each message is first counted in the shared budget too."""
        await self._budget.take(PLATFORM, TELEGRAM_OVERALL)
        if not address.is_group:
            yield
            return
        async with self._group_pacer.turn(address.chat_id):
            await self._budget.take(f"{PLATFORM} group {address.chat_id}", TELEGRAM_GROUP)
            yield

    async def _edit(self, address: Address, message_id: str, reply: Reply) -> None:
        try:
            await errors.call(
                lambda plain: self._bot().edit_message_text(
                    formatted(text_pieces(reply.text)[0], plain),
                    chat_id=int(address.chat_id),
                    message_id=int(message_id),
                    parse_mode=None if plain else ParseMode.HTML,
                    reply_markup=keyboard(reply, self._deep_link()),
                )
            )
        except BadRequest as error:
            if "not modified" not in error.message.lower():
                raise

    async def delete(self, message: SentMessage) -> bool:
        try:
            return bool(
                await self._bot().delete_message(
                    int(message.address.chat_id), int(message.message_id)
                )
            )
        except TelegramError as error:
            log_event(log, "telegram.delete_failed", logging.INFO, exc_info=error)
            return False
