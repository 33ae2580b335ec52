"""The Telegram adapter: PTB in manual lifecycle, polling or webhook, sending through PTB's
rate limiter, and every platform error turned into one of the core's delivery errors."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

import httpx
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeChat,
    CallbackQuery,
    Message,
    Update,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    NetworkError,
    TelegramError,
    TimedOut,
)
from telegram.error import RetryAfter as TelegramRetryAfter
from telegram.ext import AIORateLimiter, Application, ContextTypes, TypeHandler

from bot.adapters.base import (
    DeliveryError,
    DeliveryUncertain,
    LoginRefused,
    RecipientUnreachable,
    RetryAfter,
    SentMessage,
    TransientDeliveryError,
)
from bot.adapters.pacing import ChatPacer
from bot.adapters.retry import patiently
from bot.adapters.telegram.inbound import PLATFORM, to_event
from bot.adapters.telegram.render import MAX_CAPTION, escape, keyboard, text_pieces
from bot.content_pack.ids import Command, Msg
from bot.content_pack.pack import ContentPack
from bot.core.events import Address, ButtonPressed, CommandIssued
from bot.core.replies import Reply
from bot.core.router import Router, deep_linked
from bot.logs import get_logger, log_event
from bot.reminders.posting import chat_lost
from bot.storage import group_reminders, sent_messages
from bot.storage.db import Database
from bot.storage.sent_messages import SentRecord
from bot.storage.users import find_user, move_chat

log = get_logger("telegram")

Result = TypeVar("Result")

DELETE_WINDOW = timedelta(hours=48)  # Telegram lets a bot delete its messages this long
# Kept longer than that so /wipe can say how many older messages it could not delete.
RECORDS_KEPT = timedelta(days=30)
RECORD_FLUSH_SECONDS = 2.0
CALLBACK_ANSWER_WITHIN = 0.8
NETWORK_ATTEMPTS = 3
FRAME_MIN_SECONDS = 1.0  # at most one edit a second per chat
# Commands that change a group's settings: only its administrators may use them.
ADMIN_COMMANDS = frozenset({Command.REMINDER.value})
# Telegram's words when a bot may not post in a group (rights taken away, group gone):
# like a block, retrying cannot help.
_POSTING_REFUSED = (
    "not enough rights",
    "have no rights to send",
    "need administrator rights",
    "chat_write_forbidden",
    "chat_restricted",
    "chat not found",
)


@dataclass(frozen=True, slots=True)
class TelegramConfig:
    token: str
    base_url: str
    webhook_url: str | None = None
    webhook_secret: str | None = None
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    poll_timeout: int = 10
    request_timeout: float = 10.0  # seconds for an ordinary Bot API call to answer
    # Telegram refuses more than 20 messages a minute in one group.
    group_limit: int = 20
    group_window_seconds: float = 60.0


class TelegramAdapter:
    platform = PLATFORM

    def __init__(
        self,
        config: TelegramConfig,
        router: Router,
        db: Database,
        content: ContentPack,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._config = config
        self._router = router
        self._db = db
        self._content = content
        self._sleep = sleep
        self._application: Application | None = None  # type: ignore[type-arg]
        self._username = ""
        self._background: set[asyncio.Task[None]] = set()
        self._group_pacer = ChatPacer(config.group_limit, config.group_window_seconds, sleep)
        # Ids of messages sent in private chats, written in batches (for /wipe).
        self._unrecorded: list[SentRecord] = []
        # Updates whose handling is over, replies sent (or their failure handled): a
        # count that lets a caller wait for the bot to finish instead of guessing a time.
        self.updates_handled = 0

    @property
    def bot(self) -> Bot:
        if self._application is None:
            raise RuntimeError("the Telegram adapter is not started")
        bot: Bot = self._application.bot
        return bot

    @property
    def deep_link(self) -> str:
        return f"https://t.me/{self._username}"

    async def start(self) -> None:
        base = self._config.base_url.rstrip("/")
        application = (
            Application.builder()
            .token(self._config.token)
            .base_url(base)
            .base_file_url(base.removesuffix("/bot") + "/file/bot")
            # PTB's limiter keeps the overall rate; its group limiter would also count
            # admin checks and edits, so group messages are paced by our own pacer. It does
            # not retry a 429 itself (max_retries=0): it would hold every send of the bot
            # while it waits, where our callers wait only for the message that was refused.
            .rate_limiter(AIORateLimiter(max_retries=0, group_max_rate=0))
            .read_timeout(self._config.request_timeout)
            .write_timeout(self._config.request_timeout)
            .concurrent_updates(True)
            .build()
        )
        application.add_handler(TypeHandler(Update, self._handle))
        application.add_error_handler(self._on_error)
        self._application = application
        try:
            await application.initialize()
        except InvalidToken:
            with contextlib.suppress(Exception):  # close its HTTP sessions; nothing to undo
                await application.shutdown()
            raise LoginRefused("Telegram refused TELEGRAM_BOT_TOKEN") from None
        self._username = application.bot.username
        await self._set_commands()
        if self._config.webhook_url:
            await application.updater.start_webhook(  # type: ignore[union-attr]
                listen=self._config.webhook_listen,
                port=self._config.webhook_port,
                url_path=self._config.token.split(":", 1)[0],
                webhook_url=self._config.webhook_url,
                secret_token=self._config.webhook_secret,
            )
        else:
            await application.updater.start_polling(  # type: ignore[union-attr]
                timeout=self._config.poll_timeout, drop_pending_updates=False
            )
        await application.start()
        self._keep(self._flush_records_forever())
        log_event(log, "telegram.started", webhook=bool(self._config.webhook_url))

    async def stop(self) -> None:
        application = self._application
        if application is None:
            return
        # First no new updates (PTB finishes those in hand), then our own background work.
        if application.updater is not None and application.updater.running:
            await application.updater.stop()
        if application.running:
            await application.stop()
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        await self._flush_records()
        await application.shutdown()
        log_event(log, "telegram.stopped")

    async def _set_commands(self) -> None:
        """The command menu, in every language the pack has. Group admins also see the
        commands that change a group's settings; everyone else is not shown them."""
        for locale in self._content.locales:
            # One menu per bot, and discreet mode is every user's default: neutral words.
            described = self._content.command_descriptions(locale, discreet=True).items()
            everyone = [BotCommand(c.value, d) for c, d in described if c not in ADMIN_COMMANDS]
            admins = [BotCommand(c.value, d) for c, d in described]
            language = None if locale == self._content.default_locale else locale
            await self.bot.set_my_commands(everyone, language_code=language)
            await self.bot.set_my_commands(
                admins, scope=BotCommandScopeAllChatAdministrators(), language_code=language
            )

    async def _set_chat_menu(self, address: Address, full: bool) -> None:
        """The menu is one per bot and neutral; discreet mode is per user. Someone who
        turned it off gets the full descriptions in their own chat; turning it back on
        (or /forget) removes that chat's menu, so the neutral one shows again."""
        scope = BotCommandScopeChat(int(address.chat_id))
        try:
            if not full:
                await self.bot.delete_my_commands(scope=scope)
                return
            locale = await self._locale_of(address)
            described = self._content.command_descriptions(locale).items()
            commands = [BotCommand(c.value, d) for c, d in described if c not in ADMIN_COMMANDS]
            await self.bot.set_my_commands(commands, scope=scope)
        except TelegramError as error:  # the reply matters more than the menu's words
            log_event(log, "telegram.chat_menu_failed", logging.WARNING, exc_info=error)

    # Inbound ----------------------------------------------------------------------------

    async def _handle(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await self._on_update(update, context)
        self.updates_handled += 1  # a failure is counted once _on_error has dealt with it

    async def _on_update(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.message
        if message is not None and message.migrate_to_chat_id is not None:
            await self._follow_migration(str(message.chat.id), str(message.migrate_to_chat_id))
            return
        if _lost_the_group(update):
            await self._on_group_lost(str(update.effective_chat.id))  # type: ignore[union-attr]
            return
        event = to_event(update, self._username)
        if event is not None:
            event = deep_linked(event)  # a link's "/start wipe" is /wipe, answered here
        if event is None:
            if update.callback_query is not None:
                with contextlib.suppress(TelegramError):
                    await update.callback_query.answer()
            return
        if isinstance(event, ButtonPressed):
            await self._on_press(update, event)
            return
        if isinstance(event, CommandIssued) and event.name == "wipe" and not event.address.is_group:
            urgent = await self._router.screen(event)  # "/wipe <words>" is screened too
            if urgent:
                await self._reply_all(event.address, urgent)
            else:
                await self._wipe(event.address)
            return
        if isinstance(event, CommandIssued) and event.name in ADMIN_COMMANDS:
            if _posted_as_the_group(update):
                # An anonymous admin: Telegram shows a stand-in bot as the sender, whose id
                # is nobody's; only the group's admins can post as the group.
                event = replace(event, address=replace(event.address, user_id=""), admin=True)
            else:
                event = replace(event, admin=await self._is_admin(event.address))
        await self._reply_all(event.address, await self._router.handle(event))

    async def _on_group_lost(self, chat_id: str) -> None:
        """Removed from a group, or no longer allowed to write there: its reminders pause
        now, and whoever set each one up hears it privately, rather than at its next post."""
        notes = await chat_lost(self._router.services, PLATFORM, chat_id)
        log_event(log, "telegram.group_lost", reminders=len(notes))
        for note in notes:
            try:
                await self._patiently(self.send, note.address, note.reply)
            except DeliveryError as error:  # the admin never opened a private chat with us
                log_event(log, "telegram.admin_note_dropped", logging.INFO, exc_info=error)

    async def _is_admin(self, address: Address) -> bool:
        """Telegram's own word, asked each time: admins change, and we keep no list of them."""
        if not address.is_group:
            return False
        try:
            member = await self.bot.get_chat_member(int(address.chat_id), int(address.user_id))
        except TelegramError as error:
            log_event(log, "telegram.admin_check_failed", logging.WARNING, exc_info=error)
            return False  # unsure is not an admin: the group's settings stay as they are
        return member.status in {ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR}

    async def _reply_all(self, address: Address, replies: list[Reply]) -> None:
        """Each reply on its own: one that cannot be delivered does not stop the next."""
        for reply in replies:
            if reply.command_menu is not None and not address.is_group:
                await self._set_chat_menu(address, full=reply.command_menu == "full")
            try:
                await self._deliver(address, reply)
            except DeliveryError as error:
                log_event(log, "telegram.reply_dropped", logging.WARNING, exc_info=error)

    async def _deliver(self, address: Address, reply: Reply) -> None:
        """A reply to what the user just did, retried through rate limits and outages.

        A private reply asked for in a group goes to the user; the group then
        hears either that it was sent, or how to open a private chat to get it.
        """
        if not (reply.private and address.is_group):
            await self._patiently(self.send, address, reply)
            return
        try:
            await self._patiently(self.send, address, reply)
        except DeliveryError:
            if reply.group_fallback is not None:
                await self._patiently(self.send, address, reply.group_fallback)
            return
        if reply.group_notice is not None:
            await self._patiently(self.send, address, reply.group_notice)

    async def _patiently(
        self,
        send: Callable[[Address, Reply], Awaitable[SentMessage | None]],
        address: Address,
        reply: Reply,
    ) -> None:
        await patiently(lambda: send(address, reply), self._sleep)

    async def _on_press(self, update: Update, event: ButtonPressed) -> None:
        """Answer every press within a second, even when handling is slow or fails.

        A reply marked ephemeral (an expired button) becomes the press's own
        small notice instead of a message in the chat.
        """
        query = update.callback_query
        assert query is not None
        handling = asyncio.ensure_future(self._router.handle(event))
        try:
            replies = await asyncio.wait_for(asyncio.shield(handling), CALLBACK_ANSWER_WITHIN)
        except TimeoutError:
            await _answer(query)
            replies = await handling
        else:
            notice = replies[0].text if replies and replies[0].ephemeral else None
            await _answer(query, notice)
            if notice:
                replies = replies[1:]
        await self._reply_all(event.address, replies)

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        # Ids and kinds only: the update itself holds what the user wrote.
        error = context.error
        log_event(
            log,
            "telegram.update_failed",
            logging.ERROR,
            exc_info=error,
            update_id=update.update_id if isinstance(update, Update) else None,
        )
        try:
            if isinstance(update, Update) and update.callback_query is not None:
                with contextlib.suppress(TelegramError):
                    await update.callback_query.answer()
        finally:
            if isinstance(update, Update):
                self.updates_handled += 1

    # Outbound ---------------------------------------------------------------------------

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        target = address
        if reply.private and address.is_group:
            target = Address(PLATFORM, address.user_id, address.user_id)
        try:
            return await self._send(target, reply)
        except ChatMigrated as migrated:
            new_chat = str(migrated.new_chat_id)
            await self._follow_migration(target.chat_id, new_chat)
            return await self._send(replace(target, chat_id=new_chat), reply)

    async def _send(self, address: Address, reply: Reply) -> SentMessage | None:
        if reply.edit_of is not None:
            await self._edit(address, reply.edit_of, reply)
            return SentMessage(address, reply.edit_of)
        if reply.image is not None:
            photo = await self._call(lambda plain: self._send_photo(address, reply, plain))
            self._remember(address, str(photo.message_id))
            return SentMessage(address, str(photo.message_id))
        pieces = text_pieces(reply.frames[0].text if reply.frames else reply.text)
        message_id = ""
        for number, piece in enumerate(pieces):
            last = number == len(pieces) - 1  # buttons go under the last piece
            send_piece = functools.partial(
                self._call, functools.partial(self._send_text, address, reply, piece, last)
            )
            try:
                # Once a piece is out, the rest are retried one by one: a refusal of the
                # third piece never sends the first two again.
                message = await (
                    send_piece() if number == 0 else patiently(send_piece, self._sleep)
                )
            except DeliveryUncertain:
                if last:
                    raise
                continue  # most likely arrived: go on with the rest rather than start over
            message_id = str(message.message_id)
            self._remember(address, message_id)
        sent = SentMessage(address, message_id)
        if reply.frames:
            self._play(sent, reply)
        return sent

    async def _send_text(
        self, address: Address, reply: Reply, piece: str, with_buttons: bool, plain: bool
    ) -> Message:
        async with self._paced(address):
            return await self.bot.send_message(
                int(address.chat_id),
                _text(piece, plain),
                parse_mode=None if plain else ParseMode.HTML,
                reply_markup=keyboard(reply, self.deep_link) if with_buttons else None,
                disable_notification=reply.silent,
                protect_content=reply.protect,
            )

    async def _send_photo(self, address: Address, reply: Reply, plain: bool) -> Message:
        assert reply.image is not None
        async with self._paced(address):
            return await self.bot.send_photo(
                int(address.chat_id),
                photo=reply.image.png,
                filename=reply.image.filename,
                caption=_text(text_pieces(reply.text, MAX_CAPTION)[0], plain),
                parse_mode=None if plain else ParseMode.HTML,
                reply_markup=keyboard(reply, self.deep_link),
                disable_notification=reply.silent,
                protect_content=reply.protect,
            )

    def _paced(self, address: Address) -> AbstractAsyncContextManager[None]:
        """Group messages take their turn under Telegram's per-group limit; others go."""
        if address.is_group:
            return self._group_pacer.turn(address.chat_id)
        return nullcontext()

    async def _edit(self, address: Address, message_id: str, reply: Reply) -> None:
        try:
            await self._call(
                lambda plain: self.bot.edit_message_text(
                    _text(text_pieces(reply.text)[0], plain),
                    chat_id=int(address.chat_id),
                    message_id=int(message_id),
                    parse_mode=None if plain else ParseMode.HTML,
                    reply_markup=keyboard(reply, self.deep_link),
                )
            )
        except BadRequest as error:
            if "not modified" not in error.message.lower():
                raise

    def _play(self, sent: SentMessage, reply: Reply) -> None:
        """Count down in place: each frame edits the message, and the last shows the text."""

        async def play() -> None:
            frames = reply.frames
            try:
                for previous, frame in itertools.pairwise(frames):
                    await self._sleep(max(FRAME_MIN_SECONDS, previous.seconds))
                    await self._edit(sent.address, sent.message_id, replace(reply, text=frame.text))
                await self._sleep(max(FRAME_MIN_SECONDS, frames[-1].seconds))
                await self._edit(sent.address, sent.message_id, reply)
            except (TelegramError, DeliveryError) as error:
                # A deleted message, a blocked user, a long outage: the countdown just stops.
                log_event(log, "telegram.frames_stopped", logging.INFO, exc_info=error)

        self._keep(play())

    def _keep(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` in the background, cancelled when the adapter stops."""
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _remember(self, address: Address, message_id: str) -> None:
        """Note a message sent in a private chat, for /wipe (ids and times only)."""
        if not address.is_group:
            self._unrecorded.append(
                SentRecord(PLATFORM, address.user_id, address.chat_id, message_id, self._now())
            )

    def _now(self) -> datetime:
        return self._router.services.clock.now()

    async def _flush_records_forever(self) -> None:
        while True:
            await asyncio.sleep(RECORD_FLUSH_SECONDS)
            try:
                await self._flush_records()
            except Exception as error:  # try again next time; the records are kept
                log_event(log, "telegram.records_failed", logging.WARNING, exc_info=error)

    async def _flush_records(self) -> None:
        records = self._unrecorded[:]
        if not records:
            return
        async with self._db.transaction() as tx:
            await sent_messages.record(tx, records)
            await sent_messages.purge_older_than(tx, self._now() - RECORDS_KEPT)
        del self._unrecorded[: len(records)]  # only what was written: newer ones wait

    async def _wipe(self, address: Address) -> None:
        """/wipe: delete the bot's messages in this chat that Telegram still allows deleting,
        and say plainly how many could not be (older than 48 hours)."""
        await self._flush_records()
        mine = await sent_messages.tracked(self._db, PLATFORM, address.user_id, address.chat_id)
        cutoff = self._now() - DELETE_WINDOW
        deleted = kept = 0
        for message in mine:
            if message.sent_at <= cutoff:
                kept += 1
            elif await self.delete(SentMessage(address, message.message_id)):
                deleted += 1
            # else: already gone (the user deleted it), or Telegram refused this one: not
            # counted as "too old", which would be untrue.
        async with self._db.transaction() as tx:
            await sent_messages.forget_tracked(tx, [message.id for message in mine])
        locale = await self._locale_of(address)
        said = self._content.text(locale, Msg.WIPE_DONE, deleted=deleted)
        if kept:  # each count in its own sentence, so each agrees with its own number
            said = f"{said} {self._content.text(locale, Msg.WIPE_PARTLY, kept=kept)}"
        await self._send(address, Reply(said))

    async def _locale_of(self, address: Address) -> str:
        user = await find_user(self._db, PLATFORM, address.user_id)
        return user.locale if user is not None else self._content.default_locale

    async def delete(self, message: SentMessage) -> bool:
        try:
            return bool(
                await self.bot.delete_message(int(message.address.chat_id), int(message.message_id))
            )
        except TelegramError as error:
            log_event(log, "telegram.delete_failed", logging.INFO, exc_info=error)
            return False

    async def _call(self, request: Callable[[bool], Awaitable[Result]]) -> Result:
        """One Bot API call with Telegram's errors as the core's; formatting trouble falls
        back to plain text, network trouble is retried a few times with growing pauses."""
        plain = False
        for attempt in range(1, NETWORK_ATTEMPTS + 1):
            try:
                return await request(plain)
            except ChatMigrated:
                raise
            except Forbidden as error:
                raise RecipientUnreachable(error.message) from None
            except TelegramRetryAfter as error:
                raise RetryAfter(_seconds(error.retry_after)) from None
            except BadRequest as error:
                said = error.message.lower()
                if "can't parse entities" in said and not plain:
                    plain = True  # send the same words without formatting
                    continue
                if any(refusal in said for refusal in _POSTING_REFUSED):
                    raise RecipientUnreachable(error.message) from None
                raise
            except TimedOut as error:
                if not _never_sent(error):
                    raise DeliveryUncertain(type(error).__name__) from None
                if attempt == NETWORK_ATTEMPTS:
                    raise TransientDeliveryError(type(error).__name__) from None
                await self._sleep(0.5 * 2 ** (attempt - 1))
            except NetworkError as error:
                if attempt == NETWORK_ATTEMPTS:
                    raise TransientDeliveryError(type(error).__name__) from None
                await self._sleep(0.5 * 2 ** (attempt - 1))
        raise TransientDeliveryError("no attempt left")  # pragma: no cover

    async def _follow_migration(self, old_chat: str, new_chat: str) -> None:
        """A group became a supergroup: remember the new id so nothing is sent into the void,
        and the group's reminders carry on there."""
        async with self._db.transaction() as tx:
            await move_chat(tx, PLATFORM, old_chat, new_chat)
            await group_reminders.move_chat(tx, PLATFORM, old_chat, new_chat)
        log_event(log, "telegram.chat_migrated")


def _lost_the_group(update: Update) -> bool:
    """The bot's own membership changed so that it can no longer post in a group."""
    change = update.my_chat_member
    if change is None or change.chat.type not in {ChatType.GROUP, ChatType.SUPERGROUP}:
        return False
    member = change.new_chat_member
    if member.status in {ChatMemberStatus.LEFT, ChatMemberStatus.BANNED}:
        return True
    return member.status == ChatMemberStatus.RESTRICTED and not getattr(
        member, "can_send_messages", True
    )


def _posted_as_the_group(update: Update) -> bool:
    message = update.effective_message
    return (
        message is not None
        and message.sender_chat is not None
        and message.sender_chat.id == message.chat.id
    )


def _never_sent(error: TimedOut) -> bool:
    """A timeout waiting for a connection: the request never left, so trying again cannot
    deliver it twice. Any later timeout may have come after Telegram took the message."""
    cause = error.__cause__
    return (
        isinstance(cause, httpx.ConnectTimeout | httpx.PoolTimeout)
        or "pool timeout" in str(error).casefold()
    )


def _text(piece: str, plain: bool) -> str:
    return piece if plain else escape(piece)


def _seconds(retry_after: object) -> float:
    total = getattr(retry_after, "total_seconds", None)
    return float(total()) if callable(total) else float(retry_after)  # type: ignore[arg-type]


async def _answer(query: CallbackQuery, notice: str | None = None) -> None:
    """Stop the spinner. A press too old to answer (queued while we were down) still counts:
    what it asked for has been done, and its replies are sent."""
    with contextlib.suppress(TelegramError):
        await query.answer(text=notice[:200] if notice else None)
