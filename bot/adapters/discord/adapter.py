"""The Discord adapter: discord.py's client on the shared event loop, DMs for everything
personal, slash commands and buttons answered through interactions, and every platform
error turned into one of the core's delivery errors.

Every call that counts toward Discord's limits (50 requests a second for the bot, 5
messages in 5 seconds in a channel) waits for room in its lane first (`bot/adapters/
lanes.py`), so a bulk of check-ins never holds up a reply, and discord.py's own route
buckets, which it keeps by the headers Discord sends, are never the ones to make a reply
wait. Interactions and their followups do not count toward the bot's limit, and go at
once."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import discord
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.adapters.discord import errors, outbound
from bot.adapters.discord.client import SteadyClient, intents
from bot.adapters.discord.commands import command_payloads
from bot.adapters.discord.inbound import PLATFORM, dm_edit_event, dm_event, private_address
from bot.adapters.discord.interactions import Interactions
from bot.adapters.discord.outbound import Editable, Poster, post_piece, poster
from bot.adapters.discord.render import NO_MENTIONS, text_pieces, view_for
from bot.adapters.lanes import Caps, Lanes, lane_of
from bot.adapters.sending import (
    Attempt,
    Background,
    once,
    patient,
    play_frames,
    post_pieces,
    reply_all,
)
from bot.content_pack.pack import ContentPack
from bot.coordination.send_budget import Lane, SendBudget
from bot.core.events import Address
from bot.core.platform import (
    DeliveryError,
    LoginRefused,
    SentMessage,
)
from bot.core.replies import Reply
from bot.engine.router import Router, SendFirst
from bot.logs import get_logger, log_event
from bot.storage.db import Database

log = get_logger("discord")

Result = TypeVar("Result")

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
    # Discord's limits, as the lanes keep them; None: `outbound.DISCORD_CAPS`.
    caps: Caps | None = None


class DiscordAdapter:
    platform = PLATFORM

    def __init__(
        self,
        config: DiscordConfig,
        router: Router,
        db: Database,
        content: ContentPack,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        budget: SendBudget | None = None,
    ) -> None:
        self._config = config
        self.router = router
        self.db = db
        self.content = content
        self._sleep = sleep
        self._rate_limited = router.services.metrics.adapter_rate_limited(PLATFORM)
        self.urgent_dropped = router.services.metrics.urgent_reply_undelivered(PLATFORM)
        self._client: SteadyClient | None = None
        self._gateway: asyncio.Task[None] | None = None
        self._dm_channels: dict[str, int] = {}  # user id -> DM channel id, as Discord gave it
        self._background = Background()
        caps = config.caps or outbound.DISCORD_CAPS
        self.lanes = Lanes(PLATFORM, caps, errors.asked_to_wait, budget, self._rate_limited)
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

    async def start(self, gateway: bool = True) -> None:
        """Log in, register the commands, and (with `gateway`) connect to the gateway,
        where users' messages, commands and presses arrive. A bot holds one gateway
        connection: with several workers only the leader connects, and the others send
        their scheduled messages over the HTTP API alone (`gateway=False`)."""
        self._point_at_endpoints()
        client = SteadyClient(
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
            if gateway:
                self._gateway = asyncio.create_task(client.connect(), name="discord-gateway")
                await self._until_ready()
        except BaseException:
            await self.stop()
            raise
        log_event(log, "discord.started", guilds=len(client.guilds), gateway=gateway)

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
        await self._background.cancel_all()
        await self.lanes.close()
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
        address = private_address(message.author.id)
        event = dm_event(message.author.id, message.content)
        await self.reply_all(address, await self.router.handle(event, self.first_to(address)))

    async def on_message_edit(self, message: discord.Message) -> None:
        """A DM the user changed: screened like a new one, but never answered otherwise.
        Discord also sends an update when it adds a link preview; nothing was edited then
        (no edit time), and the words were screened when they arrived."""
        if message.author.bot or message.guild is not None or not message.content:
            return
        if message.edited_at is None:
            return
        self.remember_dm(message.author.id, message.channel.id)
        address = private_address(message.author.id)
        event = dm_edit_event(message.author.id, message.content)
        await self.reply_all(address, await self.router.handle(event, self.first_to(address)))

    def remember_dm(self, user_id: int, channel_id: int | None) -> None:
        if channel_id is not None:
            self._dm_channels[str(user_id)] = channel_id

    async def reply_all(self, address: Address, replies: list[Reply]) -> None:
        await reply_all(
            address, replies, self.deliver, log, "discord.reply_dropped", self.urgent_dropped
        )

    def first_to(self, address: Address) -> SendFirst:
        """Urgent replies sent the moment the router has them."""
        return functools.partial(self.reply_all, address)

    async def deliver(self, address: Address, reply: Reply) -> None:
        """A reply to what the user just did, each of its calls tried patiently."""
        await self._send(address, reply, self.patient, lane_of(reply))

    @property
    def patient(self) -> Attempt:
        return patient(self._sleep, self._rate_limited)

    # Outbound ---------------------------------------------------------------------------

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        """A scheduled send, in the bulk lane: the outbox retries it, so its first call is
        tried once."""
        return await self._send(address, reply, once, Lane.BULK)

    async def _send(
        self, address: Address, reply: Reply, first: Attempt, lane: Lane
    ) -> SentMessage:
        target = private_address(address.user_id) if reply.private and address.is_group else address
        channel = await self._channel(target, first, lane)
        if reply.edit_of is not None:
            message = channel.get_partial_message(int(reply.edit_of))
            edit = functools.partial(self.edit, message, reply.text, view_for(reply), lane, target)
            await first(edit)
            return SentMessage(target, reply.edit_of)
        post = poster(channel.send, silent=reply.silent)
        # `protect` has no Discord equivalent (any message can be copied or forwarded),
        # so it is not sent; `silent` is Discord's "suppress notifications" flag.
        sent = await self.post(post, reply, first, lane, target)
        return SentMessage(target, str(sent.id))

    async def _channel(
        self, address: Address, first: Attempt, lane: Lane
    ) -> discord.PartialMessageable:
        """A guild channel by its id; a user's DM channel, opened once and remembered."""
        client = self.client
        if address.is_group:
            return client.get_partial_messageable(int(address.chat_id))
        channel_id = self._dm_channels.get(address.user_id)
        if channel_id is None:
            user_id = int(address.user_id)
            data = await first(
                lambda: self.call(lambda: client.http.start_private_message(user_id), lane)
            )
            channel_id = int(data["id"])
            self._dm_channels[address.user_id] = channel_id
        return client.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    async def post(
        self,
        post: Poster,
        reply: Reply,
        first: Attempt,
        lane: Lane | None = None,
        channel: Address | None = None,
    ) -> Editable:
        """Send one reply through `post`: its text in pieces of at most 2,000 characters,
        an image on the first piece, the buttons under the last; frames then play by
        editing the last piece. The first call is tried as `first` says. Each call waits
        in `lane` for room in `channel` (none: an interaction's followup, which goes at
        once)."""
        view = view_for(reply)
        pieces = text_pieces(reply.frames[0].text if reply.frames else reply.text)

        async def piece_out(number: int, piece: str) -> Editable:
            image = reply.image if number == 0 else None
            buttons = view if number == len(pieces) - 1 else None
            piece_call = functools.partial(post_piece, post, piece, buttons, image)
            return await self.call(piece_call, lane, channel)

        sent = await post_pieces(pieces, piece_out, first, self._sleep, self._rate_limited)
        if reply.frames:

            async def show(text: str) -> None:
                await self.patient(functools.partial(self.edit, sent, text, view, lane, channel))

            play_frames(self._background, reply, show, self._sleep, log, "discord.frames_stopped")
        return sent

    async def edit(
        self,
        message: Editable,
        text: str,
        view: discord.ui.View | None,
        lane: Lane | None = None,
        channel: Address | None = None,
    ) -> None:
        piece = text_pieces(text)[0]
        await self.call(
            lambda: message.edit(content=piece, view=view, allowed_mentions=NO_MENTIONS),
            lane,
            channel,
        )

    async def delete(self, message: SentMessage) -> bool:
        try:
            channel = await self._channel(message.address, once, Lane.INTERACTIVE)
            delete = channel.get_partial_message(int(message.message_id)).delete
            await self.call(delete, Lane.INTERACTIVE, message.address)
        except DeliveryError as error:
            log_event(log, "discord.delete_failed", logging.INFO, exc_info=error)
            return False
        return True

    async def call(
        self,
        request: Callable[[], Awaitable[Result]],
        lane: Lane | None = None,
        channel: Address | None = None,
    ) -> Result:
        """One call, with Discord's errors as the core's. In a `lane`, it first waits for
        room: in the bot's limit, and in `channel`'s when one is named."""
        timeout = self._config.request_timeout
        if lane is None:
            return await errors.call(request, timeout)
        chat_id = None if channel is None else channel.chat_id
        group = channel is not None and channel.is_group
        return await self.lanes.send(
            lane, chat_id, group, lambda: errors.call(request, timeout), self._sleep
        )
