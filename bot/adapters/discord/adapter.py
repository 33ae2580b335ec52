"""The Discord adapter: discord.py's client on the shared event loop, DMs for everything
personal, slash commands and buttons answered through interactions, and every platform
error turned into one of the core's delivery errors."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import itertools
import logging
import sys
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import discord
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.adapters.base import (
    DeliveryError,
    LoginRefused,
    SentMessage,
)
from bot.adapters.discord import errors
from bot.adapters.discord.commands import command_payloads
from bot.adapters.discord.inbound import PLATFORM, dm_edit_event, dm_event, private_address
from bot.adapters.discord.interactions import Interactions
from bot.adapters.discord.render import NO_MENTIONS, text_pieces, view_for
from bot.adapters.retry import patiently
from bot.content_pack.pack import ContentPack
from bot.core.events import Address
from bot.core.replies import Image, Reply
from bot.core.router import Router
from bot.logs import get_logger, log_event
from bot.storage.db import Database

log = get_logger("discord")

Result = TypeVar("Result")

FRAME_MIN_SECONDS = 1.0  # at most one edit a second per message
# discord.py waits out a 429 inside the call when it is at most this long (it never accepts
# less than 30 s); a longer one comes back to us as RetryAfter for the outbox to schedule.
LIBRARY_RATE_LIMIT_WAIT = 30.0


@dataclass(frozen=True, slots=True)
class DiscordConfig:
    token: str
    api_base_url: str = "https://discord.com/api/v10"
    gateway_url: str | None = None  # None: ask the API (GET /gateway/bot)
    request_timeout: float = 45.0  # seconds for one call, discord.py's own waits included
    ready_timeout: float = 60.0
    # discord.py fires "ready" this long after the last guild arrived on the gateway.
    guild_ready_timeout: float = 2.0


class Editable(Protocol):
    """A sent message we can change: a channel message or an interaction's webhook message."""

    id: int

    async def edit(self, *, content: str, view: Any, allowed_mentions: Any) -> Any: ...


Poster = Callable[[str, discord.ui.View | None, discord.File | None], Awaitable[Editable]]


class _Client(discord.Client):
    """discord.py's client with its events handed to the adapter."""

    def __init__(self, adapter: DiscordAdapter, **options: Any) -> None:
        super().__init__(**options)
        self._adapter = adapter

    async def on_message(self, message: discord.Message) -> None:
        try:
            await self._adapter.on_message(message)
        finally:
            if not message.author.bot:
                self._adapter.events_handled += 1

    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        # The raw event, since no message is kept in memory (max_messages=None) for the
        # plain one to compare with.
        try:
            await self._adapter.on_message_edit(payload.message)
        finally:
            if not payload.message.author.bot:
                self._adapter.events_handled += 1

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        try:
            await self._adapter.interactions.on_interaction(interaction)
        finally:
            self._adapter.events_handled += 1

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        # discord.py would print the traceback with the event's arguments: ids and kinds only.
        error = sys.exc_info()[1]
        log_event(log, "discord.event_failed", logging.ERROR, exc_info=error, handler=event_method)


def intents() -> discord.Intents:
    """Guilds (to know the channels commands come from) and DMs. DM content arrives without
    the privileged message-content intent, and nothing here needs members or presences."""
    chosen = discord.Intents.none()
    chosen.guilds = True
    chosen.dm_messages = True
    return chosen


class DiscordAdapter:
    platform = PLATFORM

    def __init__(
        self,
        config: DiscordConfig,
        router: Router,
        db: Database,
        content: ContentPack,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._config = config
        self.router = router
        self.db = db
        self.content = content
        self._sleep = sleep
        self._client: _Client | None = None
        self._gateway: asyncio.Task[None] | None = None
        self._dm_channels: dict[str, int] = {}  # user id -> DM channel id, as Discord gave it
        self._background: set[asyncio.Task[None]] = set()
        self._saved_endpoints: tuple[str, yarl.URL] | None = None
        self.interactions = Interactions(self)
        # People's messages and interactions whose handling is over (replies sent): a
        # count that lets a caller wait for the bot to finish instead of guessing a time.
        self.events_handled = 0

    @property
    def client(self) -> discord.Client:
        if self._client is None:
            raise RuntimeError("the Discord adapter is not started")
        return self._client

    # Lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        self._point_at_endpoints()
        client = _Client(
            self,
            intents=intents(),
            allowed_mentions=NO_MENTIONS,
            max_ratelimit_timeout=LIBRARY_RATE_LIMIT_WAIT,
            guild_ready_timeout=self._config.guild_ready_timeout,
            chunk_guilds_at_startup=False,
            member_cache_flags=discord.MemberCacheFlags.none(),
            max_messages=None,  # keep no copy of what users write in memory
        )
        self._client = client
        try:
            try:
                await client.login(self._config.token)
            except discord.LoginFailure:
                raise LoginRefused("Discord refused DISCORD_BOT_TOKEN") from None
            if self._config.gateway_url is None:
                _, url, _ = await client.http.get_bot_gateway()
                DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)
            await self._sync_commands()
            self._gateway = asyncio.create_task(client.connect(), name="discord-gateway")
            await self._until_ready()
        except BaseException:
            await self.stop()
            raise
        log_event(log, "discord.started", guilds=len(client.guilds))

    def _point_at_endpoints(self) -> None:
        """discord.py builds every URL from `Route.BASE` and, for a plain (unsharded) client,
        connects to `DiscordWebSocket.DEFAULT_GATEWAY` without asking the API: both are
        class attributes, so they are set here (never at import) and put back on stop."""
        self._saved_endpoints = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
        Route.BASE = self._config.api_base_url.rstrip("/")
        if self._config.gateway_url is not None:
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self._config.gateway_url)

    async def _sync_commands(self) -> None:
        client = self.client
        application_id = client.application_id
        assert application_id is not None  # login read it from the application
        payloads = command_payloads(self.content)
        await errors.call(
            lambda: client.http.bulk_upsert_global_commands(application_id, payloads),
            self._config.request_timeout,
        )

    async def _until_ready(self) -> None:
        assert self._gateway is not None
        ready = asyncio.ensure_future(self.client.wait_until_ready())
        done, _ = await asyncio.wait(
            {ready, self._gateway},
            timeout=self._config.ready_timeout,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if ready in done:
            return
        ready.cancel()
        if self._gateway in done:
            self._gateway.result()  # raises what ended the connection (a bad token, intents)
        raise TimeoutError("the Discord gateway did not become ready")

    async def stop(self) -> None:
        client = self._client
        if client is None:
            return
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        await client.close()
        if self._gateway is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._gateway
        if self._saved_endpoints is not None:
            Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = self._saved_endpoints
            self._saved_endpoints = None
        self._client = None
        self._gateway = None
        log_event(log, "discord.stopped")

    # Inbound ----------------------------------------------------------------------------

    async def on_message(self, message: discord.Message) -> None:
        """A DM from a person. Our own messages, other bots and guild talk are not ours
        to answer (and guild content never reaches us without the privileged intent)."""
        if message.author.bot or message.guild is not None or not message.content:
            return
        self.remember_dm(message.author.id, message.channel.id)
        replies = await self.router.handle(dm_event(message.author.id, message.content))
        await self.reply_all(private_address(message.author.id), replies)

    async def on_message_edit(self, message: discord.Message) -> None:
        """A DM the user changed: screened like a new one, but never answered otherwise.
        Discord also sends an update when it adds a link preview; nothing was edited then
        (no edit time), and the words were screened when they arrived."""
        if message.author.bot or message.guild is not None or not message.content:
            return
        if message.edited_at is None:
            return
        self.remember_dm(message.author.id, message.channel.id)
        replies = await self.router.handle(dm_edit_event(message.author.id, message.content))
        await self.reply_all(private_address(message.author.id), replies)

    def remember_dm(self, user_id: int, channel_id: int | None) -> None:
        if channel_id is not None:
            self._dm_channels[str(user_id)] = channel_id

    async def reply_all(self, address: Address, replies: list[Reply]) -> None:
        """Each reply on its own: one that cannot be delivered does not stop the next."""
        for reply in replies:
            try:
                await self.deliver(address, reply)
            except DeliveryError as error:
                log_event(log, "discord.reply_dropped", logging.WARNING, exc_info=error)

    async def deliver(self, address: Address, reply: Reply) -> None:
        """A reply to what the user just did, retried through rate limits and outages."""
        await self.patiently(lambda: self.send(address, reply))

    async def patiently(self, attempt: Callable[[], Awaitable[Result]]) -> Result:
        return await patiently(attempt, self._sleep)

    # Outbound ---------------------------------------------------------------------------

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        target = private_address(address.user_id) if reply.private and address.is_group else address
        channel = await self._channel(target)
        if reply.edit_of is not None:
            message = channel.get_partial_message(int(reply.edit_of))
            await self.edit(message, reply.text, view_for(reply))
            return SentMessage(target, reply.edit_of)
        sent = await self.post(self._channel_poster(channel, reply.silent), reply)
        return SentMessage(target, str(sent.id))

    async def _channel(self, address: Address) -> discord.PartialMessageable:
        """A guild channel by its id; a user's DM channel, opened once and remembered."""
        client = self.client
        if address.is_group:
            return client.get_partial_messageable(int(address.chat_id))
        channel_id = self._dm_channels.get(address.user_id)
        if channel_id is None:
            user_id = int(address.user_id)
            data = await self.call(lambda: client.http.start_private_message(user_id))
            channel_id = int(data["id"])
            self._dm_channels[address.user_id] = channel_id
        return client.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    def _channel_poster(self, channel: discord.PartialMessageable, silent: bool) -> Poster:
        async def post(
            content: str, view: discord.ui.View | None, file: discord.File | None
        ) -> Editable:
            # `protect` has no Discord equivalent (any message can be copied or forwarded),
            # so it is not sent; `silent` is Discord's "suppress notifications" flag.
            extra: dict[str, Any] = {}
            if view is not None:
                extra["view"] = view
            if file is not None:
                extra["file"] = file
            message: Editable = await channel.send(
                content, allowed_mentions=NO_MENTIONS, silent=silent, **extra
            )
            return message

        return post

    async def post(self, poster: Poster, reply: Reply) -> Editable:
        """Send one reply through `poster`: its text in pieces of at most 2,000 characters,
        an image on the first piece, the buttons under the last; frames then play by
        editing the last piece."""
        view = view_for(reply)
        pieces = text_pieces(reply.frames[0].text if reply.frames else reply.text)
        sent: Editable | None = None
        for number, piece in enumerate(pieces):
            image = reply.image if number == 0 else None
            buttons = view if number == len(pieces) - 1 else None
            sent = await self.call(functools.partial(_post_piece, poster, piece, buttons, image))
        assert sent is not None  # text_pieces never returns nothing
        if reply.frames:
            self._play(sent, reply, view)
        return sent

    async def edit(self, message: Editable, text: str, view: discord.ui.View | None) -> None:
        piece = text_pieces(text)[0]
        await self.call(
            lambda: message.edit(content=piece, view=view, allowed_mentions=NO_MENTIONS)
        )

    def _play(self, message: Editable, reply: Reply, view: discord.ui.View | None) -> None:
        """Count down in place: each frame edits the message, and the last shows the text."""

        async def play() -> None:
            frames = reply.frames
            try:
                for previous, frame in itertools.pairwise(frames):
                    await self._sleep(max(FRAME_MIN_SECONDS, previous.seconds))
                    await self.edit(message, frame.text, view)
                await self._sleep(max(FRAME_MIN_SECONDS, frames[-1].seconds))
                await self.edit(message, reply.text, view)
            except DeliveryError as error:
                # A deleted message, an expired interaction, a long outage: it just stops.
                log_event(log, "discord.frames_stopped", logging.INFO, exc_info=error)

        self.keep(play())

    def keep(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` in the background, cancelled when the adapter stops."""
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def delete(self, message: SentMessage) -> bool:
        try:
            channel = await self._channel(message.address)
            await self.call(channel.get_partial_message(int(message.message_id)).delete)
        except DeliveryError as error:
            log_event(log, "discord.delete_failed", logging.INFO, exc_info=error)
            return False
        return True

    async def call(self, request: Callable[[], Awaitable[Result]]) -> Result:
        return await errors.call(request, self._config.request_timeout)


async def _post_piece(
    poster: Poster, piece: str, view: discord.ui.View | None, image: Image | None
) -> Editable:
    # A fresh File for every attempt: a file object is read once when it is sent.
    file = None if image is None else discord.File(io.BytesIO(image.png), filename=image.filename)
    return await poster(piece, view, file)
