"""Replies out to Telegram: text in pieces, photos, edits, frames, each in its lane.

Each Bot API call is tried as the caller's `Attempt` says (see `bot/adapters/sending.py`
for who retries what); this module only shapes the calls. Every message and edit waits
for room by its lane (`bot/adapters/lanes.py`): the caller says which.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TypeVar

from telegram import Bot, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, TelegramError
from telegram.error import RetryAfter as TelegramRetryAfter

from bot.adapters.lanes import Caps, Lanes
from bot.adapters.retry import RateLimited, Sleep
from bot.adapters.sending import Attempt, Background, patient, play_frames, post_pieces
from bot.adapters.telegram import errors
from bot.adapters.telegram.inbound import PLATFORM
from bot.adapters.telegram.render import MAX_CAPTION, formatted, keyboard, text_pieces
from bot.coordination.send_budget import (
    TELEGRAM_GROUP,
    TELEGRAM_OVERALL,
    TELEGRAM_PRIVATE,
    Lane,
    SendBudget,
)
from bot.core.events import Address
from bot.core.platform import DeliveryError, SentMessage
from bot.core.replies import Reply
from bot.delivery.sent_log import SentLog
from bot.logs import get_logger, log_event

log = get_logger("telegram")

Result = TypeVar("Result")
OnChatMoved = Callable[[str, str], Awaitable[None]]

# Looked up when an adapter is made, so a bench can switch the limits off at run time.
TELEGRAM_CAPS = Caps(TELEGRAM_OVERALL, group=TELEGRAM_GROUP, private=TELEGRAM_PRIVATE)


def asked_to_wait(error: BaseException) -> float | None:
    """The seconds a 429 asks for; None for any other failure."""
    if isinstance(error, TelegramRetryAfter):
        return errors.seconds(error.retry_after)
    return None


class Outbound:
    def __init__(
        self,
        bot: Callable[[], Bot],
        deep_link: Callable[[], str],
        caps: Caps,
        sent_log: SentLog,
        background: Background,
        sleep: Sleep,
        on_chat_moved: OnChatMoved,
        rate_limited: RateLimited | None = None,
        budget: SendBudget | None = None,
    ) -> None:
        self._bot = bot
        self._deep_link = deep_link
        self._sent_log = sent_log
        self._background = background
        self._sleep = sleep
        self._on_chat_moved = on_chat_moved
        self._rate_limited = rate_limited
        self.lanes = Lanes(PLATFORM, caps, asked_to_wait, budget, rate_limited)

    async def send(self, address: Address, reply: Reply, first: Attempt, lane: Lane) -> SentMessage:
        """One reply in `lane`; its first Bot API call tried as `first` says. A private
        reply asked for in a group goes to the user's own chat; a group that became a
        supergroup is followed to its new id and the reply sent there."""
        target = address
        if reply.private and address.is_group:
            target = Address(PLATFORM, address.user_id, address.user_id)
        try:
            return await self._send(target, reply, first, lane)
        except ChatMigrated as migrated:
            new_chat = str(migrated.new_chat_id)
            await self._on_chat_moved(target.chat_id, new_chat)
            return await self._send(replace(target, chat_id=new_chat), reply, first, lane)

    async def _send(
        self, address: Address, reply: Reply, first: Attempt, lane: Lane
    ) -> SentMessage:
        if reply.edit_of is not None:
            await first(functools.partial(self._edit, address, reply.edit_of, reply))
            return SentMessage(address, reply.edit_of)
        if reply.image is not None:
            photo = await first(
                lambda: errors.call(functools.partial(self._send_photo, lane, address, reply))
            )
            self._sent_log.remember(address, str(photo.message_id))
            return SentMessage(address, str(photo.message_id))
        pieces = text_pieces(reply.frames[0].text if reply.frames else reply.text)

        async def post(number: int, piece: str) -> Message:
            with_buttons = number == len(pieces) - 1  # buttons go under the last piece
            message = await errors.call(
                functools.partial(self._send_text, lane, address, reply, piece, with_buttons)
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
        self,
        lane: Lane,
        address: Address,
        reply: Reply,
        piece: str,
        with_buttons: bool,
        plain: bool,
    ) -> Message:
        return await self._in_lane(
            lane,
            address,
            lambda: self._bot().send_message(
                int(address.chat_id),
                formatted(piece, plain),
                parse_mode=None if plain else ParseMode.HTML,
                reply_markup=keyboard(reply, self._deep_link()) if with_buttons else None,
                disable_notification=reply.silent,
                protect_content=reply.protect,
            ),
        )

    async def _send_photo(self, lane: Lane, address: Address, reply: Reply, plain: bool) -> Message:
        image = reply.image
        assert image is not None
        return await self._in_lane(
            lane,
            address,
            lambda: self._bot().send_photo(
                int(address.chat_id),
                photo=image.png,
                filename=image.filename,
                caption=formatted(text_pieces(reply.text, MAX_CAPTION)[0], plain),
                parse_mode=None if plain else ParseMode.HTML,
                reply_markup=keyboard(reply, self._deep_link()),
                disable_notification=reply.silent,
                protect_content=reply.protect,
            ),
        )

    async def _in_lane(
        self, lane: Lane, address: Address, call: Callable[[], Awaitable[Result]]
    ) -> Result:
        """One Bot API call once its lane has room, overall and in its chat."""
        return await self.lanes.send(lane, address.chat_id, address.is_group, call, self._sleep)

    async def _edit(self, address: Address, message_id: str, reply: Reply) -> None:
        """An edit goes at once, outside the lanes: Telegram counts messages sent toward its
        limits, not messages changed (nor does the fake, which keeps them as it does)."""
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
