"""The Telegram adapter: PTB in manual lifecycle, polling or webhook, every message sent in
its lane at Telegram's cap (`bot/adapters/lanes.py`). It translates only: updates in
(`inbound`), replies out (`outbound`), errors as the core's (`errors`); /wipe, a moved
group and a lost one are handled by their neutral handlers below the adapters."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import timedelta

from telegram import Bot, CallbackQuery, Update
from telegram.constants import ChatMemberStatus
from telegram.error import InvalidToken, TelegramError
from telegram.ext import Application, ContextTypes, TypeHandler

from bot.adapters.lanes import Caps, Lanes, lane_of
from bot.adapters.sending import Attempt, Background, once, patient, reply_all
from bot.adapters.telegram import outbound
from bot.adapters.telegram.inbound import (
    PLATFORM,
    ChatMoved,
    GroupLost,
    Inbound,
    Unhandled,
    posted_as_the_group,
    translate,
)
from bot.adapters.telegram.menu import ADMIN_COMMANDS, set_chat_menu, set_commands
from bot.adapters.telegram.outbound import Outbound
from bot.content_pack.commands import Command
from bot.content_pack.pack import ContentPack
from bot.coordination.send_budget import Lane, SendBudget
from bot.core.events import Address, ButtonPressed, CommandIssued, Event, TextMessage
from bot.core.platform import DeliveryError, LoginRefused, SentMessage
from bot.core.replies import Reply
from bot.delivery.sent_log import DeleteWindow, SentLog
from bot.engine.router import Router, SendFirst
from bot.logs import get_logger, log_event
from bot.reminders.chat_moves import follow_chat_move
from bot.reminders.posting import chat_lost
from bot.storage.db import Database
from bot.storage.users import find_user

log = get_logger("telegram")

# Telegram lets a bot delete its messages for 48 hours; records are kept longer, so
# /wipe can say how many older messages it could not delete.
DELETE_WINDOW = DeleteWindow(deletable=timedelta(hours=48), kept=timedelta(days=30))
CALLBACK_ANSWER_WITHIN = 0.8

Handler = Callable[[Update, Inbound], Awaitable[None]]
CommandHandler = Callable[[Update, CommandIssued], Awaitable[None]]


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
    # Telegram's limits, as the lanes keep them; None: `outbound.TELEGRAM_CAPS`.
    caps: Caps | None = None


class TelegramAdapter:
    platform = PLATFORM

    def __init__(
        self,
        config: TelegramConfig,
        router: Router,
        db: Database,
        content: ContentPack,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        budget: SendBudget | None = None,
    ) -> None:
        self._config = config
        self._router = router
        self._db = db
        self._content = content
        self._sleep = sleep
        self._rate_limited = router.services.metrics.adapter_rate_limited(PLATFORM)
        self._urgent_dropped = router.services.metrics.urgent_reply_undelivered(PLATFORM)
        self._application: Application | None = None  # type: ignore[type-arg]
        self._username = ""
        self._background = Background()
        self._sent_log = SentLog(db, router.services.clock, PLATFORM, DELETE_WINDOW)
        self._outbound = Outbound(
            lambda: self.bot,
            lambda: self.deep_link,
            config.caps or outbound.TELEGRAM_CAPS,
            self._sent_log,
            self._background,
            sleep,
            self._follow_chat_move,
            self._rate_limited,
            budget,
        )
        # What each kind of update is handed to (see inbound.translate); an event of a
        # kind not listed goes to the router as it is.
        self._handlers: dict[type, Handler] = {
            ChatMoved: self._on_chat_moved,
            GroupLost: self._on_group_lost,
            Unhandled: self._on_unhandled,
            ButtonPressed: self._on_press,
            CommandIssued: self._on_command,
            TextMessage: self._on_event,
        }
        # Commands the adapter answers or adds to before the router sees them.
        self._commands: dict[str, CommandHandler] = {Command.WIPE.value: self._on_wipe}
        self._commands.update(dict.fromkeys(ADMIN_COMMANDS, self._on_admin_command))
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

    # Lifecycle --------------------------------------------------------------------------

    async def start(self, poll: bool = True) -> None:
        """Log in and begin answering. In webhook mode every worker serves the webhook. In
        polling mode `poll=False` starts everything but the polling: a worker that is not
        the poller still sends (its replies to the webhook-less, its scheduled messages),
        and takes polling over with `start_polling` once it becomes the leader."""
        base = self._config.base_url.rstrip("/")
        application = (
            Application.builder()
            .token(self._config.token)
            .base_url(base)
            .base_file_url(base.removesuffix("/bot") + "/file/bot")
            # No PTB rate limiter: every message waits in its lane instead (Outbound), where
            # a reply goes before the check-ins queued ahead of it, as PTB's one queue
            # cannot do.
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
        await set_commands(self.bot, self._content)
        if self._config.webhook_url:
            await application.updater.start_webhook(  # type: ignore[union-attr]
                listen=self._config.webhook_listen,
                port=self._config.webhook_port,
                url_path=self._config.token.split(":", 1)[0],
                webhook_url=self._config.webhook_url,
                secret_token=self._config.webhook_secret,
            )
        elif poll:
            await self.start_polling()
        await application.start()
        self._background.keep(self._sent_log.flush_forever())
        log_event(log, "telegram.started", webhook=bool(self._config.webhook_url))

    async def start_polling(self) -> None:
        """Fetch updates from Telegram (one worker at a time may: a second is refused)."""
        application = self._application
        assert application is not None and application.updater is not None
        if not application.updater.running:
            await application.updater.start_polling(
                timeout=self._config.poll_timeout, drop_pending_updates=False
            )
            log_event(log, "telegram.polling_started")

    async def stop_polling(self) -> None:
        """Stop fetching updates; those in hand are still answered."""
        application = self._application
        updater = None if application is None else application.updater
        if updater is not None and updater.running:
            await updater.stop()
            log_event(log, "telegram.polling_stopped")

    async def stop(self) -> None:
        application = self._application
        if application is None:
            return
        # First no new updates (PTB finishes those in hand), then our own background work.
        if application.updater is not None and application.updater.running:
            await application.updater.stop()
        if application.running:
            await application.stop()
        await self._background.cancel_all()
        await self._outbound.lanes.close()
        await self._sent_log.flush()
        await application.shutdown()
        log_event(log, "telegram.stopped")

    # Inbound ----------------------------------------------------------------------------

    async def _handle(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        inbound = translate(update, self._username)
        await self._handlers.get(type(inbound), self._on_event)(update, inbound)
        self.updates_handled += 1  # a failure is counted once _on_error has dealt with it

    async def _on_event(self, update: Update, event: Inbound) -> None:
        assert isinstance(event, Event)
        replies = await self._router.handle(event, self._first_to(event.address))
        await self._reply_all(event.address, replies)

    async def _on_unhandled(self, update: Update, _: Inbound) -> None:
        if update.callback_query is not None:
            await _answer(update.callback_query)

    async def _on_command(self, update: Update, event: Inbound) -> None:
        assert isinstance(event, CommandIssued)
        await self._commands.get(event.name, self._on_event)(update, event)

    async def _on_wipe(self, update: Update, event: CommandIssued) -> None:
        if event.address.is_group:  # nothing of a group's is wiped: the core answers it
            await self._on_event(update, event)
            return
        urgent = await self._router.screen(event)  # "/wipe <words>" is screened too
        if urgent:
            await self._reply_all(event.address, urgent)
            return
        said = await self._sent_log.wipe(event.address, self._delete_one, self._content)
        await self._outbound.send(event.address, said, once, Lane.INTERACTIVE)

    async def _on_admin_command(self, update: Update, event: CommandIssued) -> None:
        if posted_as_the_group(update):
            event = replace(event, address=replace(event.address, user_id=""), admin=True)
        else:
            event = replace(event, admin=await self._is_admin(event.address))
        await self._on_event(update, event)

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

    async def _on_chat_moved(self, update: Update, moved: Inbound) -> None:
        assert isinstance(moved, ChatMoved)
        await self._follow_chat_move(moved.old_chat_id, moved.new_chat_id)

    async def _follow_chat_move(self, old_chat: str, new_chat: str) -> None:
        await follow_chat_move(self._db, PLATFORM, old_chat, new_chat)
        log_event(log, "telegram.chat_migrated")

    async def _on_group_lost(self, update: Update, lost: Inbound) -> None:
        """Removed from a group, or no longer allowed to write there: its reminders pause
        now, and whoever set each one up hears it privately, rather than at its next post."""
        assert isinstance(lost, GroupLost)
        notes = await chat_lost(self._router.services, PLATFORM, lost.chat_id)
        log_event(log, "telegram.group_lost", reminders=len(notes))
        for note in notes:
            try:
                await self._outbound.send(note.address, note.reply, self._patient(), Lane.BULK)
            except DeliveryError as error:  # the admin never opened a private chat with us
                log_event(log, "telegram.admin_note_dropped", logging.INFO, exc_info=error)

    async def _on_press(self, update: Update, event: Inbound) -> None:
        """Answer every press within a second, even when handling is slow or fails.

        A reply marked ephemeral (an expired button) becomes the press's own
        small notice instead of a message in the chat.
        """
        assert isinstance(event, ButtonPressed)
        query = update.callback_query
        assert query is not None
        handling = asyncio.ensure_future(self._router.handle(event, self._first_to(event.address)))
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
                await _answer(update.callback_query)
        finally:
            if isinstance(update, Update):
                self.updates_handled += 1

    # Replies ----------------------------------------------------------------------------

    async def _reply_all(self, address: Address, replies: list[Reply]) -> None:
        await reply_all(
            address, replies, self._deliver, log, "telegram.reply_dropped", self._urgent_dropped
        )

    def _first_to(self, address: Address) -> SendFirst:
        """Urgent replies sent the moment the router has them."""
        return functools.partial(self._reply_all, address)

    async def _deliver(self, address: Address, reply: Reply) -> None:
        """A reply to what the user just did, each of its calls tried patiently.

        A private reply asked for in a group goes to the user; the group then
        hears either that it was sent, or how to open a private chat to get it.
        """
        if reply.command_menu is not None and not address.is_group:
            await self._set_chat_menu(address, full=reply.command_menu == "full")
        patient_call = self._patient()
        lane = lane_of(reply)
        if not (reply.private and address.is_group):
            await self._outbound.send(address, reply, patient_call, lane)
            return
        try:
            await self._outbound.send(address, reply, patient_call, lane)
        except DeliveryError:
            if reply.group_fallback is not None:
                await self._outbound.send(address, reply.group_fallback, patient_call, lane)
            return
        if reply.group_notice is not None:
            await self._outbound.send(address, reply.group_notice, patient_call, lane)

    def _patient(self) -> Attempt:
        return patient(self._sleep, self._rate_limited)

    async def _set_chat_menu(self, address: Address, full: bool) -> None:
        try:
            locale = await self._locale_of(address) if full else None
            await set_chat_menu(self.bot, self._content, address.chat_id, locale, full)
        except TelegramError as error:  # the reply matters more than the menu's words
            log_event(log, "telegram.chat_menu_failed", logging.WARNING, exc_info=error)

    async def _locale_of(self, address: Address) -> str:
        user = await find_user(self._db, PLATFORM, address.user_id)
        return user.locale if user is not None else self._content.default_locale

    # Outbound: the adapter contract -------------------------------------------------------

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        """A scheduled send, in the bulk lane: the outbox retries it, so its first call is
        tried once."""
        return await self._outbound.send(address, reply, once, Lane.BULK)

    @property
    def lanes(self) -> Lanes:
        return self._outbound.lanes

    async def delete(self, message: SentMessage) -> bool:
        return await self._outbound.delete(message)

    async def _delete_one(self, address: Address, message_id: str) -> bool:
        return await self.delete(SentMessage(address, message_id))


async def _answer(query: CallbackQuery, notice: str | None = None) -> None:
    """Stop the spinner. A press too old to answer (queued while we were down) still counts:
    what it asked for has been done, and its replies are sent."""
    with contextlib.suppress(TelegramError):
        await query.answer(text=notice[:200] if notice else None)
