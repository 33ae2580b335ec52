"""A strict, in-process fake of Discord's HTTP API (v10) and gateway for end-to-end tests.

The real discord.py talks to this server over real HTTP and a real websocket, so the tests
exercise discord.py's request encoding, its rate-limit handling and its gateway parsing as
well as our own code::

    async with FakeDiscord() as dc:
        guild = dc.guild(name="Harbour")
        room = dc.channel(guild.id, "general")
        dc.member(guild.id, ANA, permissions=dc.ordinary_permissions)
        ...  # point discord.py at dc.api_url and dc.gateway_url, then
        dc.user_runs_command(ANA, "checkin", channel_id=room.id)
        await dc.wait_for("POST /webhooks/{application_id}/{token}")

It is as strict as Discord where Discord is strict, with Discord's JSON error shape
(``{"message", "code", "errors"}``) and codes: over-long content (> 2000 characters), a
custom_id over 100 characters, more than 5 buttons in a row or 5 rows, an empty message,
an unknown route (404), a missing or wrong token (401), a DM to someone who closed their DMs
(50007), a channel the bot may not see (50001) or write to (50013), and an interaction
answered twice (40060) or later than 3 seconds (10062). The gateway refuses privileged
intents that were not enabled (close code 4014), as Discord does.

How discord.py 2.7 talks to it (worth knowing when reading ``calls``):

* REST calls go to ``Route.BASE + path``; JSON bodies, or ``multipart/form-data`` with a
  ``payload_json`` part and ``files[n]`` parts when a file is attached.
* Interaction callbacks (``POST /interactions/{id}/{token}/callback?with_response=1``) and
  followups (``/webhooks/{application_id}/{token}``) carry no Authorization header.
* A 429 is retried inside discord.py only when the answer has a ``Via`` header (without one
  it assumes a Cloudflare ban and raises at once); it sleeps the body's ``retry_after``.
* The gateway URL gets ``?v=10&encoding=json&compress=zlib-stream``: every frame is then
  one zlib stream, each message ending in a sync flush, as Discord sends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from aiohttp import BodyPartReader, WSMsgType, web

from tests.fakes.flood_limits import DiscordRateLimits, Refusal
from tests.fakes.local_server import LocalServer, ServedFake

API_VERSION: Final = 10
MAX_CONTENT: Final = 2000
MAX_CUSTOM_ID: Final = 100
MAX_BUTTON_LABEL: Final = 80
MAX_ROWS: Final = 5
MAX_PER_ROW: Final = 5
MAX_GLOBAL_COMMANDS: Final = 100
MAX_COMMAND_DESCRIPTION: Final = 100
MAX_OPTIONS: Final = 25
ACK_WINDOW_SECONDS: Final = 3.0
TOKEN_LIFETIME_SECONDS: Final = 15 * 60
HEARTBEAT_INTERVAL_MS: Final = 41_250
DISCORD_EPOCH_MS: Final = 1_420_070_400_000

# Message flags
SUPPRESS_EMBEDS: Final = 1 << 2
EPHEMERAL: Final = 1 << 6
LOADING: Final = 1 << 7
SUPPRESS_NOTIFICATIONS: Final = 1 << 12
_SENDABLE_FLAGS: Final = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS
_INTERACTION_FLAGS: Final = _SENDABLE_FLAGS | EPHEMERAL

# Gateway intents
INTENT_GUILDS: Final = 1 << 0
INTENT_GUILD_MEMBERS: Final = 1 << 1
INTENT_GUILD_PRESENCES: Final = 1 << 8
INTENT_GUILD_MESSAGES: Final = 1 << 9
INTENT_DIRECT_MESSAGES: Final = 1 << 12
# Gateway events that carry something a person did, each answered by one handler call.
PEOPLES_EVENTS: Final = frozenset({"MESSAGE_CREATE", "MESSAGE_UPDATE", "INTERACTION_CREATE"})
INTENT_MESSAGE_CONTENT: Final = 1 << 15
PRIVILEGED_INTENTS: Final = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT

# Permissions
ADMINISTRATOR: Final = 1 << 3
MANAGE_CHANNELS: Final = 1 << 4
VIEW_CHANNEL: Final = 1 << 10
SEND_MESSAGES: Final = 1 << 11
EMBED_LINKS: Final = 1 << 14
ATTACH_FILES: Final = 1 << 15
READ_MESSAGE_HISTORY: Final = 1 << 16
USE_APPLICATION_COMMANDS: Final = 1 << 31
ORDINARY_MEMBER: Final = (
    VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS | ATTACH_FILES | READ_MESSAGE_HISTORY
) | USE_APPLICATION_COMMANDS
BOT_DEFAULT: Final = (
    VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS | ATTACH_FILES | READ_MESSAGE_HISTORY
)

# Interaction types and callback types
PING, APPLICATION_COMMAND, MESSAGE_COMPONENT = 1, 2, 3
CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL = 4, 5, 6, 7, 9
_CALLBACKS_FOR: Final = {
    APPLICATION_COMMAND: frozenset({CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL}),
    MESSAGE_COMPONENT: frozenset(
        {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL}
    ),
}

# Application command option types
SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, BOOLEAN = 1, 2, 3, 4, 5
_OPTION_VALUE_TYPES: Final = {STRING: str, INTEGER: int, BOOLEAN: bool}

_COMMAND_NAME: Final = re.compile(r"^[-_\w]{1,32}$")
_DISCORD_LOCALES: Final = frozenset(
    {
        "id",
        "da",
        "de",
        "en-GB",
        "en-US",
        "es-ES",
        "es-419",
        "fr",
        "hr",
        "it",
        "lt",
        "hu",
        "nl",
        "no",
        "pl",
        "pt-BR",
        "ro",
        "fi",
        "sv-SE",
        "vi",
        "tr",
        "cs",
        "el",
        "bg",
        "ru",
        "uk",
        "hi",
        "th",
        "zh-CN",
        "ja",
        "zh-TW",
        "ko",
    }
)
_MENTION_EVERYONE: Final = re.compile(r"@(everyone|here)\b")
_USER_MENTION: Final = re.compile(r"<@!?(\d{17,20})>")


def now_iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


# --------------------------------------------------------------------------- errors


class DiscordError(Exception):
    """An error answer in Discord's shape: HTTP status, JSON code and message."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        errors: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.headers = headers or {}
        self.extra = extra or {}

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code, **self.extra}
        if self.errors:
            body["errors"] = self.errors
        return body


def _invalid(path: str, code: str, message: str) -> DiscordError:
    """50035 Invalid Form Body, with the field path Discord reports (``a.0.b``)."""
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path.split(".")):
        errors = {part: errors}
    return DiscordError(400, 50035, "Invalid Form Body", errors)


UNAUTHORIZED: Final = (401, 0, "401: Unauthorized")
NOT_FOUND: Final = (404, 0, "404: Not Found")
METHOD_NOT_ALLOWED: Final = (405, 0, "405: Method Not Allowed")
UNKNOWN_CHANNEL: Final = (404, 10003, "Unknown Channel")
UNKNOWN_MESSAGE: Final = (404, 10008, "Unknown Message")
UNKNOWN_USER: Final = (404, 10013, "Unknown User")
UNKNOWN_WEBHOOK: Final = (404, 10015, "Unknown Webhook")
UNKNOWN_INTERACTION: Final = (404, 10062, "Unknown interaction")
MISSING_ACCESS: Final = (403, 50001, "Missing Access")
OTHER_AUTHOR: Final = (403, 50005, "Cannot edit a message authored by another user")
EMPTY_MESSAGE: Final = (400, 50006, "Cannot send an empty message")
CANNOT_DM: Final = (403, 50007, "Cannot send messages to this user")
MISSING_PERMISSIONS: Final = (403, 50013, "Missing Permissions")
INVALID_WEBHOOK_TOKEN: Final = (401, 50027, "Invalid Webhook Token")
ALREADY_ACKNOWLEDGED: Final = (400, 40060, "Interaction has already been acknowledged.")


def _error(spec: tuple[int, int, str]) -> DiscordError:
    return DiscordError(*spec)


# --------------------------------------------------------------------------- recorded state


@dataclass
class UploadedFile:
    field_name: str
    filename: str
    data: bytes


@dataclass
class RecordedCall:
    """One HTTP request, in arrival order. ``route`` is the template, e.g.
    ``POST /channels/{channel_id}/messages``; ``body`` the decoded JSON payload."""

    route: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    files: list[UploadedFile]
    authorized: bool
    time: float
    status: int | None = None
    response: Any = None
    arrived: float = 0.0  # the monotonic clock's reading on arrival (seconds)

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def code(self) -> int | None:
        return self.response.get("code") if isinstance(self.response, dict) else None


@dataclass
class FakeUser:
    id: int
    username: str
    bot: bool = False
    dms_open: bool = True

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": None if self.bot else self.username.title(),
            "avatar": None,
            "public_flags": 0,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass
class FakeChannel:
    id: int
    type: int  # 0 a guild text channel, 1 a DM
    name: str | None = None
    guild_id: int | None = None
    recipient_id: int | None = None
    bot_permissions: int = BOT_DEFAULT

    def to_json(self, users: dict[int, FakeUser]) -> dict[str, Any]:
        if self.type == 1:
            assert self.recipient_id is not None
            return {
                "id": str(self.id),
                "type": 1,
                "last_message_id": None,
                "flags": 0,
                "recipients": [users[self.recipient_id].to_json()],
            }
        return {
            "id": str(self.id),
            "type": 0,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }


@dataclass
class FakeGuild:
    id: int
    name: str
    owner_id: int
    channel_ids: list[int] = field(default_factory=list)
    member_permissions: dict[int, int] = field(default_factory=dict)


@dataclass
class StoredMessage:
    """A message as Discord holds it now. Ephemeral ones live in their channel but only
    ``visible_to`` sees them."""

    id: int
    channel_id: int
    author_id: int
    content: str
    timestamp: float
    flags: int = 0
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[UploadedFile] = field(default_factory=list)
    allowed_mentions: dict[str, Any] | None = None
    mention_everyone: bool = False
    mentions: list[int] = field(default_factory=list)
    interaction_id: int | None = None
    visible_to: int | None = None
    previous_contents: list[str] = field(default_factory=list)
    deleted: bool = False
    edited_at: float | None = None  # unix seconds of the author's last edit

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def silent(self) -> bool:
        return bool(self.flags & SUPPRESS_NOTIFICATIONS)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    @property
    def original_content(self) -> str:
        return self.previous_contents[0] if self.previous_contents else self.content

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [button for row in self.components for button in row.get("components", [])]

    def button(self, label: str) -> dict[str, Any]:
        for button in self.buttons:
            if button.get("label") == label:
                return button
        raise AssertionError(f"no button {label!r} on message {self.id}: {self.buttons}")


@dataclass
class InteractionState:
    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    guild_id: int | None
    data: dict[str, Any]
    created: float  # on the fake's monotonic clock
    message_id: int | None = None  # the message a pressed button is on
    callback_type: int | None = None
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None


@dataclass
class Fault:
    """An armed failure for calls to ``route`` (a template such as
    ``POST /channels/{channel_id}/messages``; None: any route but the login ones)."""

    error: DiscordError | None
    route: str | None
    channel_id: int | None
    remaining: int | None
    stall_seconds: float = 0.0
    hits: int = 0

    def matches(self, call: RecordedCall) -> bool:
        if self.remaining == 0:
            return False
        if self.route is None and call.route in _LOGIN_ROUTES:
            return False
        if self.route is not None and self.route != call.route:
            return False
        return self.channel_id is None or call.params.get("channel_id") == str(self.channel_id)


_LOGIN_ROUTES: Final = frozenset(
    {"GET /users/@me", "GET /oauth2/applications/@me", "GET /gateway/bot", "GET /gateway"}
)


# --------------------------------------------------------------------------- gateway


@dataclass
class GatewaySession:
    session_id: str
    intents: int
    seq: int = 0
    sent: list[dict[str, Any]] = field(default_factory=list)  # dispatches, for RESUME
    connection: _Connection | None = None


class _Connection:
    """One websocket. Frames go out through a queue so test code can push events without
    awaiting, and their order is kept."""

    def __init__(self, ws: web.WebSocketResponse, compress: bool) -> None:
        self.ws = ws
        self.outgoing: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._zlib = zlib.compressobj() if compress else None
        self.session: GatewaySession | None = None
        self.writer = asyncio.create_task(self._write())

    def push(self, payload: dict[str, Any]) -> None:
        self.outgoing.put_nowait(payload)

    async def _write(self) -> None:
        while (payload := await self.outgoing.get()) is not None:
            text = json.dumps(payload)
            if self.ws.closed:
                return
            if self._zlib is None:
                await self.ws.send_str(text)
            else:
                data = self._zlib.compress(text.encode()) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)

    async def close(self, code: int) -> None:
        self.outgoing.put_nowait(None)
        with contextlib.suppress(Exception):
            await self.writer
        await self.ws.close(code=code)


# --------------------------------------------------------------------------- the server

Handler = Callable[[RecordedCall, dict[str, str]], Any]


@dataclass(frozen=True)
class _Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    handler: Handler
    needs_auth: bool

    @property
    def name(self) -> str:
        return f"{self.method} {self.template}"


class FakeDiscord(ServedFake):
    """A strict Discord API and gateway on 127.0.0.1, inside the test's event loop.

    Test-side API, in short:

    * ``api_url`` (give it to ``Route.BASE``), ``gateway_url``, ``token``, ``application_id``,
      ``bot``; ``clock`` (unix seconds, timestamps) and ``monotonic`` (the 3-second and
      15-minute interaction windows) are injectable.
    * World: ``guild(name)``, ``channel(guild_id, name)``, ``member(guild_id, user_id,
      permissions=...)``, ``user(user_id)``, ``close_dms(user)`` / ``open_dms(user)``,
      ``remove_permission(channel_id, permission)``.
    * Users act: ``user_sends_dm``, ``user_edits_dm``, ``user_sends_in_channel``,
      ``user_runs_command``, ``user_presses`` (each pushes a gateway event and returns what
      it made); ``link_preview_added`` (a MESSAGE_UPDATE that edits nothing).
    * Inspect: ``calls``, ``calls_to(route)``, ``await wait_for(route_or_predicate)``,
      ``messages_in(channel)``, ``dm_of(user)``, ``ephemeral_responses_to(user)``,
      ``interactions``, ``commands``, ``unanswered_interactions()``, ``identifies``.
    * Rate limits, with ``rate_limits=True``: 50 requests a second for the bot (not
      interactions), 5 messages in 5 seconds per channel and route, with Discord's
      ``X-RateLimit-*`` headers on every answer and its 429s (``rate_limited`` counts them).
    * Faults: ``inject_rate_limit(route, retry_after)``, ``inject_error``,
      ``inject_server_error``, ``inject_stall``, ``clear_faults()``; on the gateway,
      ``drop_connection()`` (the client should RESUME).
    """

    def __init__(
        self,
        *,
        token: str = "MTAwMDAwMDAwMDAwMDAwMDAx.fake.discord-bot-token",
        application_id: int = 1_000_000_000_000_000_001,
        allowed_privileged_intents: int = 0,
        heartbeat_interval_ms: int = HEARTBEAT_INTERVAL_MS,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        rate_limits: bool = False,
    ) -> None:
        self.token = token
        self.application_id = application_id
        self.allowed_privileged_intents = allowed_privileged_intents
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.clock = clock
        self.monotonic = monotonic
        self.bot = FakeUser(application_id, "steady", bot=True)
        # Off by default, so tests about something else may call as fast as they like.
        self.limits = DiscordRateLimits(clock, monotonic) if rate_limits else None

        self.calls: list[RecordedCall] = []
        # Dispatches of what people did (not the bot's own messages), for tests to wait
        # until the bot has handled as many.
        self.peoples_events = 0
        self.users: dict[int, FakeUser] = {self.bot.id: self.bot}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self.messages: dict[int, StoredMessage] = {}
        self.interactions: dict[int, InteractionState] = {}
        self.commands: list[dict[str, Any]] = []
        self.faults: list[Fault] = []
        self.sessions: dict[str, GatewaySession] = {}
        self.identifies: list[dict[str, Any]] = []
        self.gateway_closes: list[int] = []  # close codes the fake sent
        self.client_closes: list[int | None] = []  # close codes of connections that ended
        self.internal_errors: list[Exception] = []

        self._ids = itertools.count(1)
        self._call_event = asyncio.Event()
        self._closing = asyncio.Event()
        self._connections: set[_Connection] = set()
        self._server = LocalServer("FakeDiscord")
        self._routes = self._route_table()

    # ------------------------------------------------------------------ lifecycle

    @property
    def url(self) -> str:
        return self._server.url

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self._server.port}/gateway"

    @property
    def ordinary_permissions(self) -> int:
        return ORDINARY_MEMBER

    async def start(self) -> None:
        app = web.Application(client_max_size=25 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        await self._server.start(app)

    async def close(self) -> None:
        self._closing.set()
        for connection in list(self._connections):
            await connection.close(1001)
        await self._server.close()

    # ------------------------------------------------------------------ world

    def _snowflake(self) -> int:
        millis = int(self.clock() * 1000) - DISCORD_EPOCH_MS
        return (max(millis, 0) << 22) | (next(self._ids) & 0x3FFFFF)

    def user(self, user_id: int, username: str | None = None) -> FakeUser:
        if user_id not in self.users:
            self.users[user_id] = FakeUser(user_id, username or f"user{user_id % 10_000}")
        return self.users[user_id]

    def guild(self, name: str = "Harbour", owner_id: int | None = None) -> FakeGuild:
        guild_id = self._snowflake()
        owner = owner_id if owner_id is not None else self._snowflake()
        self.user(owner)
        guild = FakeGuild(guild_id, name, owner, member_permissions={owner: ADMINISTRATOR})
        self.guilds[guild_id] = guild
        session = self.connected_session
        if session is not None and session.intents & INTENT_GUILDS:
            self._dispatch("GUILD_CREATE", self._guild_json(guild))
        return guild

    def channel(self, guild_id: int, name: str = "general") -> FakeChannel:
        channel = FakeChannel(self._snowflake(), 0, name=name, guild_id=guild_id)
        self.channels[channel.id] = channel
        self.guilds[guild_id].channel_ids.append(channel.id)
        session = self.connected_session
        if session is not None and session.intents & INTENT_GUILDS:
            self._dispatch("CHANNEL_CREATE", channel.to_json(self.users))
        return channel

    def member(self, guild_id: int, user_id: int, permissions: int = ORDINARY_MEMBER) -> FakeUser:
        user = self.user(user_id)
        self.guilds[guild_id].member_permissions[user_id] = permissions
        return user

    def close_dms(self, user_id: int) -> None:
        """From now on messages to this user's DMs fail with 50007, as when they turned off
        direct messages from server members."""
        self.user(user_id).dms_open = False

    def open_dms(self, user_id: int) -> None:
        self.user(user_id).dms_open = True

    def remove_permission(self, channel_id: int, permission: int = SEND_MESSAGES) -> None:
        """Take a permission from the bot in this channel (50013 / 50001 from then on)."""
        self.channels[channel_id].bot_permissions &= ~permission

    def dm_channel(self, user_id: int) -> FakeChannel:
        """The DM channel between the bot and this user (made on first use, as Discord does)."""
        self.user(user_id)
        if user_id not in self.dm_channels:
            channel = FakeChannel(self._snowflake(), 1, recipient_id=user_id)
            self.channels[channel.id] = channel
            self.dm_channels[user_id] = channel.id
        return self.channels[self.dm_channels[user_id]]

    def _member_permissions(self, guild: FakeGuild, user_id: int) -> int:
        permissions = guild.member_permissions.get(user_id, 0)
        if user_id == guild.owner_id or permissions & ADMINISTRATOR:
            return (1 << 50) - 1  # every permission, as Discord computes for admins
        return permissions

    # ------------------------------------------------------------------ inspecting

    def calls_to(self, route: str) -> list[RecordedCall]:
        return [call for call in self.calls if call.route == route]

    def messages_in(self, channel_id: int) -> list[StoredMessage]:
        """What everyone in the channel sees: its messages, without ephemeral ones."""
        return [
            m
            for m in self.messages.values()
            if m.channel_id == channel_id and not m.ephemeral and not m.deleted
        ]

    def dm_of(self, user_id: int) -> list[StoredMessage]:
        """The bot's messages in its DM with this user (none if it was never opened)."""
        channel_id = self.dm_channels.get(user_id)
        if channel_id is None:
            return []
        return [m for m in self.messages_in(channel_id) if m.author_id == self.bot.id]

    def dm_texts(self, user_id: int) -> list[str]:
        return [m.content for m in self.dm_of(user_id)]

    def ephemeral_responses_to(self, user_id: int) -> list[StoredMessage]:
        return [
            m
            for m in self.messages.values()
            if m.ephemeral and m.visible_to == user_id and not m.deleted
        ]

    def unanswered_interactions(self) -> list[InteractionState]:
        """Interactions never acknowledged, or deferred with a "thinking" message left."""
        return [
            i
            for i in self.interactions.values()
            if not i.acknowledged
            or (i.original_message_id is not None and self.messages[i.original_message_id].loading)
        ]

    async def wait_for(
        self,
        predicate: Callable[[RecordedCall], bool] | str,
        timeout: float = 30.0,  # noqa: ASYNC109 - the test-facing API
        *,
        since: int = 0,
    ) -> RecordedCall:
        """The first answered call (from index ``since``) matching; a str matches a route."""

        def matches(call: RecordedCall) -> bool:
            return call.route == predicate if isinstance(predicate, str) else predicate(call)

        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for call in self.calls[since:]:
                if call.status is not None and matches(call):
                    return call
            remaining = deadline - loop.time()
            if remaining <= 0:
                seen = [(c.route, c.status) for c in self.calls[since:]]
                raise TimeoutError(f"no matching call within {timeout}s; calls: {seen}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._call_event.wait(), remaining)

    async def wait_until_connected(self, timeout: float = 30.0) -> GatewaySession:  # noqa: ASYNC109
        async with asyncio.timeout(timeout):
            while self.connected_session is None:  # noqa: ASYNC110 - set from several places
                await asyncio.sleep(0.01)
        assert self.connected_session is not None
        return self.connected_session

    # ------------------------------------------------------------------ faults

    def inject_error(
        self,
        route: str | None,
        status: int,
        code: int,
        message: str,
        *,
        channel_id: int | None = None,
        times: int | None = 1,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
        stall_seconds: float = 0.0,
    ) -> Fault:
        """Answer the next ``times`` matching calls with this error (None: until cleared)."""
        error = DiscordError(status, code, message, headers=headers, extra=extra)
        return self._arm(Fault(error, route, channel_id, times, stall_seconds))

    def inject_rate_limit(
        self,
        route: str,
        retry_after: float,
        *,
        channel_id: int | None = None,
        times: int | None = 1,
        is_global: bool = False,
    ) -> Fault:
        """A 429 with the headers Discord sends (``Via`` included: discord.py only retries
        a 429 that came through Discord's proxy)."""
        headers = {
            "Retry-After": str(max(1, round(retry_after))),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": f"{self.clock() + retry_after:.3f}",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Bucket": "fakebucket" + str(abs(hash(route)) % 10_000),
            "X-RateLimit-Scope": "global" if is_global else "user",
            "Via": "1.1 google",
        }
        extra = {"retry_after": retry_after, "global": is_global}
        return self.inject_error(
            route,
            429,
            0,
            "You are being rate limited.",
            channel_id=channel_id,
            times=times,
            headers=headers,
            extra=extra,
        )

    def inject_server_error(
        self, route: str | None, status: int = 503, *, times: int | None = 1
    ) -> Fault:
        return self.inject_error(route, status, 0, f"{status}: Service Unavailable", times=times)

    def inject_stall(self, route: str | None, seconds: float, *, times: int | None = 1) -> Fault:
        """Hold matching calls for ``seconds``, then answer them normally."""
        return self._arm(Fault(None, route, None, times, seconds))

    def _arm(self, fault: Fault) -> Fault:
        known = {r.name for r in self._routes}
        if fault.route is not None and fault.route not in known:
            raise ValueError(f"{fault.route!r} is not a route this fake implements")
        if fault.remaining is not None and fault.remaining < 1:
            raise ValueError("times must be >= 1, or None for 'until clear_faults()'")
        self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        self.faults.clear()

    # ------------------------------------------------------------------ users act

    def user_sends_dm(self, user_id: int, text: str) -> StoredMessage:
        """The user writes to the bot in their DM; MESSAGE_CREATE goes to the bot when it
        asked for DIRECT_MESSAGES (content included: DMs need no privileged intent)."""
        channel = self.dm_channel(user_id)
        message = self._store(channel.id, user_id, text)
        session = self._require_session()
        if session.intents & INTENT_DIRECT_MESSAGES:
            self._dispatch("MESSAGE_CREATE", self._message_json(message))
        return message

    def user_edits_dm(self, user_id: int, message: StoredMessage, text: str) -> StoredMessage:
        """The user changes a DM they sent. Discord sends MESSAGE_UPDATE with the whole
        message as it now is, `edited_timestamp` set (DMs need no privileged intent)."""
        if message.author_id != user_id or message.deleted:
            raise LookupError(f"user {user_id} has no live message {message.id} to edit")
        message.previous_contents.append(message.content)
        message.content = text
        message.edited_at = self.clock()
        self._dispatch_dm_update(message)
        return message

    def link_preview_added(self, message: StoredMessage) -> StoredMessage:
        """Discord resolved a link in the message: MESSAGE_UPDATE again, nothing edited
        (no new `edited_timestamp`), the content as it was."""
        self._dispatch_dm_update(message)
        return message

    def _dispatch_dm_update(self, message: StoredMessage) -> None:
        session = self._require_session()
        if session.intents & INTENT_DIRECT_MESSAGES:
            self._dispatch("MESSAGE_UPDATE", self._message_json(message))

    def user_sends_in_channel(self, user_id: int, channel_id: int, text: str) -> StoredMessage:
        """A message in a guild channel: sent to the bot only with GUILD_MESSAGES, and with
        empty content unless it has MESSAGE_CONTENT (or is mentioned), as Discord does."""
        channel = self.channels[channel_id]
        message = self._store(channel.id, user_id, text)
        session = self._require_session()
        if session.intents & INTENT_GUILD_MESSAGES:
            data = self._message_json(message)
            mentioned = f"<@{self.bot.id}>" in text
            if not session.intents & INTENT_MESSAGE_CONTENT and not mentioned:
                data["content"] = ""
            data["member"] = self._member_json(channel.guild_id, user_id, with_user=False)
            self._dispatch("MESSAGE_CREATE", data)
        return message

    def user_runs_command(
        self,
        user_id: int,
        name: str,
        options: list[dict[str, Any]] | None = None,
        channel_id: int | None = None,
        locale: str = "en-US",
        *,
        permission_override: bool = False,
    ) -> InteractionState:
        """A slash command, checked against what the bot registered (as the Discord client
        only offers registered commands, their options and permissions).

        ``permission_override``: a server admin let everyone use the command (Server
        Settings, Integrations), so its default_member_permissions no longer hide it.

        ``options`` as Discord sends them: ``[{"name": "add", "type": 1, "options": [...]}]``
        for a subcommand, ``{"name", "type", "value"}`` for a value. ``channel_id`` None
        means the user's DM with the bot.
        """
        command = next((c for c in self.commands if c["name"] == name), None)
        if command is None:
            raise ValueError(f"/{name} is not registered; registered: {self.command_names}")
        guild_id = self.channels[channel_id].guild_id if channel_id is not None else None
        contexts = command.get("contexts") or [0, 1, 2]
        if (0 if guild_id else 1) not in contexts:
            raise ValueError(f"/{name} is not offered in this context ({contexts})")
        if guild_id is not None and not permission_override:
            required = int(command.get("default_member_permissions") or 0)
            held = self._member_permissions(self.guilds[guild_id], user_id)
            if required and held & required != required:
                raise ValueError(f"the Discord client does not offer /{name} to this member")
        _check_options(command.get("options", []), options or [], f"/{name}")
        data: dict[str, Any] = {"id": command["id"], "name": name, "type": 1}
        if options:
            data["options"] = options
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
        return self._interaction(APPLICATION_COMMAND, user_id, channel_id, data, locale=locale)

    def user_presses(
        self,
        user_id: int,
        message: StoredMessage,
        custom_id: str,
        *,
        forged: bool = False,
        locale: str = "en-US",
    ) -> InteractionState:
        """A press on a button of ``message``. Unless ``forged``, the button must be on it:
        a real client can only press what is shown."""
        if not forged and custom_id not in {b.get("custom_id") for b in message.buttons}:
            raise ValueError(f"message {message.id} has no button {custom_id!r}")
        if message.ephemeral and message.visible_to != user_id:
            raise ValueError("only the user an ephemeral message was for can see its buttons")
        channel = self.channels[message.channel_id]
        data = {"custom_id": custom_id, "component_type": 2}
        channel_id = channel.id if channel.type == 0 else None
        if channel.type == 1 and channel.recipient_id != user_id:
            raise ValueError("a DM's buttons can only be pressed by its recipient")
        return self._interaction(
            MESSAGE_COMPONENT, user_id, channel_id, data, message=message, locale=locale
        )

    @property
    def command_names(self) -> list[str]:
        return [c["name"] for c in self.commands]

    def _interaction(
        self,
        kind: int,
        user_id: int,
        channel_id: int | None,
        data: dict[str, Any],
        *,
        message: StoredMessage | None = None,
        locale: str,
    ) -> InteractionState:
        self.user(user_id)
        channel = self.channels[channel_id] if channel_id is not None else self.dm_channel(user_id)
        token = f"aW50ZXJhY3Rpb24{next(self._ids)}-{self._snowflake()}"
        state = InteractionState(
            id=self._snowflake(),
            token=token,
            type=kind,
            user_id=user_id,
            channel_id=channel.id,
            guild_id=channel.guild_id,
            data=data,
            created=self.monotonic(),
            message_id=message.id if message is not None else None,
        )
        payload: dict[str, Any] = {
            "id": str(state.id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "token": token,
            "version": 1,
            "locale": locale,
            "channel_id": str(channel.id),
            "channel": channel.to_json(self.users),
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(channel.guild_id)}
            if channel.guild_id
            else {"1": str(user_id)},
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if channel.guild_id is not None:
            guild = self.guilds[channel.guild_id]
            payload["guild_id"] = str(guild.id)
            payload["guild"] = {"id": str(guild.id), "locale": "en-US", "features": []}
            payload["guild_locale"] = "en-US"
            payload["member"] = self._member_json(guild.id, user_id)
            payload["app_permissions"] = str(channel.bot_permissions)
            payload["context"] = 0
        else:
            payload["user"] = self.users[user_id].to_json()
            payload["app_permissions"] = str(BOT_DEFAULT)
            payload["context"] = 1
        if message is not None:
            payload["message"] = self._message_json(message)
        self.interactions[state.id] = state
        self._require_session()
        self._dispatch("INTERACTION_CREATE", payload)
        return state

    # ------------------------------------------------------------------ gateway side

    @property
    def connected_session(self) -> GatewaySession | None:
        return next((s for s in self.sessions.values() if s.connection is not None), None)

    def _require_session(self) -> GatewaySession:
        session = self.connected_session or next(iter(self.sessions.values()), None)
        if session is None:
            raise RuntimeError("no bot has identified on the gateway: nobody would get this")
        return session

    def _dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a DISPATCH to the live session; while it is away (awaiting RESUME) the event
        waits in its backlog, as Discord keeps it for a resuming client."""
        session = self._require_session()
        session.seq += 1
        if event in PEOPLES_EVENTS and data.get("author", {}).get("id") != str(self.bot.id):
            self.peoples_events += 1
        frame = {"op": 0, "t": event, "s": session.seq, "d": data}
        session.sent.append(frame)
        if session.connection is not None:
            session.connection.push(frame)

    def drop_connection(self) -> None:
        """Cut the live websocket without a clean close (code 4000): the client resumes."""
        session = self.connected_session
        if session is None or session.connection is None:
            raise RuntimeError("no connected session to drop")
        connection, session.connection = session.connection, None
        self.gateway_closes.append(4000)
        asyncio.get_running_loop().create_task(connection.close(4000))

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoclose=False)
        query = request.query
        compress = query.get("compress")
        await ws.prepare(request)
        if query.get("v") != str(API_VERSION) or query.get("encoding") != "json":
            self.gateway_closes.append(4012)
            await ws.close(code=4012, message=b"Invalid API version")
            return ws
        if compress not in (None, "zlib-stream"):
            self.gateway_closes.append(4002)
            await ws.close(code=4002, message=b"Error while decoding payload.")
            return ws
        connection = _Connection(ws, compress == "zlib-stream")
        self._connections.add(connection)
        connection.push({"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
        try:
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    await self._close(connection, 4002, "Error while decoding payload.")
                    break
                try:
                    payload = json.loads(frame.data)
                    if not await self._on_gateway_payload(connection, payload):
                        break
                except Exception as exc:
                    self.internal_errors.append(exc)
                    break
        finally:
            self._connections.discard(connection)
            self.client_closes.append(ws.close_code)
            session = connection.session
            if session is not None and session.connection is connection:
                session.connection = None
                if ws.close_code in (1000, 1001):
                    # A clean close from the client ends the session: no RESUME after it.
                    self.sessions.pop(session.session_id, None)
            await connection.close(1000)
        return ws

    async def _close(self, connection: _Connection, code: int, reason: str) -> None:
        self.gateway_closes.append(code)
        connection.outgoing.put_nowait(None)
        with contextlib.suppress(Exception):
            await connection.writer
        await connection.ws.close(code=code, message=reason.encode())

    async def _on_gateway_payload(self, connection: _Connection, payload: Any) -> bool:
        op = payload.get("op") if isinstance(payload, dict) else None
        data = payload.get("d") if isinstance(payload, dict) else None
        if op == 1:
            connection.push({"op": 11})
            return True
        if op == 2:
            return await self._identify(connection, data or {})
        if op == 6:
            return await self._resume(connection, data or {})
        if connection.session is None:
            await self._close(connection, 4003, "Not authenticated.")
            return False
        if op in (3, 4, 8):  # presence, voice state, request members: accepted, ignored
            return True
        await self._close(connection, 4001, "Unknown opcode.")
        return False

    async def _identify(self, connection: _Connection, data: dict[str, Any]) -> bool:
        self.identifies.append(data)
        if connection.session is not None:
            await self._close(connection, 4005, "Already authenticated.")
            return False
        if data.get("token") != self.token:
            await self._close(connection, 4004, "Authentication failed.")
            return False
        intents = data.get("intents")
        if not isinstance(intents, int) or intents < 0:
            await self._close(connection, 4013, "Invalid intent(s).")
            return False
        if intents & PRIVILEGED_INTENTS & ~self.allowed_privileged_intents:
            await self._close(connection, 4014, "Disallowed intent(s).")
            return False
        session = GatewaySession(f"fake-session-{next(self._ids)}", intents)
        self.sessions[session.session_id] = session
        session.connection = connection
        connection.session = session
        ready = {
            "v": API_VERSION,
            "user": {**self.bot.to_json(), "verified": True, "mfa_enabled": False, "flags": 0},
            "guilds": [{"id": str(g), "unavailable": True} for g in self.guilds],
            "session_id": session.session_id,
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "user_settings": {},
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
        }
        self._dispatch("READY", ready)
        if intents & INTENT_GUILDS:
            for guild in self.guilds.values():
                self._dispatch("GUILD_CREATE", self._guild_json(guild))
        return True

    async def _resume(self, connection: _Connection, data: dict[str, Any]) -> bool:
        session = self.sessions.get(str(data.get("session_id")))
        if data.get("token") != self.token:
            await self._close(connection, 4004, "Authentication failed.")
            return False
        if session is None or session.connection is not None:
            connection.push({"op": 9, "d": False})  # invalid session: identify afresh
            return True
        seq = int(data.get("seq") or 0)
        session.connection = connection
        connection.session = session
        for frame in session.sent:
            if frame["s"] > seq:
                connection.push(frame)
        self._dispatch("RESUMED", {})
        return True

    # ------------------------------------------------------------------ JSON shapes

    def _guild_json(self, guild: FakeGuild) -> dict[str, Any]:
        channels = [self.channels[c].to_json(self.users) for c in guild.channel_ids]
        for channel in channels:
            channel.pop("guild_id", None)  # Discord omits it inside GUILD_CREATE
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "owner_id": str(guild.owner_id),
            "unavailable": False,
            "large": False,
            "member_count": len(guild.member_permissions) + 1,
            "joined_at": now_iso(self.clock()),
            "roles": [
                {
                    "id": str(guild.id),
                    "name": "@everyone",
                    "permissions": str(ORDINARY_MEMBER),
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
            "channels": channels,
            "members": [self._member_json(guild.id, self.bot.id)],
            "threads": [],
            "emojis": [],
            "stickers": [],
            "features": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "voice_states": [],
            "presences": [],
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "system_channel_id": None,
            "afk_channel_id": None,
            "afk_timeout": 300,
        }

    def _member_json(
        self, guild_id: int | None, user_id: int, *, with_user: bool = True
    ) -> dict[str, Any]:
        assert guild_id is not None
        guild = self.guilds[guild_id]
        data: dict[str, Any] = {
            "roles": [],
            "joined_at": now_iso(self.clock()),
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
            "avatar": None,
            "premium_since": None,
            "communication_disabled_until": None,
            "permissions": str(self._member_permissions(guild, user_id)),
        }
        if with_user:
            data["user"] = self.users[user_id].to_json()
        return data

    def _message_json(self, message: StoredMessage) -> dict[str, Any]:
        channel = self.channels[message.channel_id]
        data: dict[str, Any] = {
            "id": str(message.id),
            "channel_id": str(message.channel_id),
            "author": self.users[message.author_id].to_json(),
            "content": message.content,
            "timestamp": now_iso(message.timestamp),
            "edited_timestamp": None if message.edited_at is None else now_iso(message.edited_at),
            "tts": False,
            "mention_everyone": message.mention_everyone,
            "mentions": [self.users[u].to_json() for u in message.mentions if u in self.users],
            "mention_roles": [],
            "attachments": [
                {
                    "id": str(message.id + index),
                    "filename": upload.filename,
                    "size": len(upload.data),
                    "url": f"{self.url}/attachments/{message.id}/{upload.filename}",
                    "proxy_url": f"{self.url}/attachments/{message.id}/{upload.filename}",
                }
                for index, upload in enumerate(message.attachments)
            ],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "flags": message.flags,
            "components": message.components,
        }
        if channel.guild_id is not None:
            data["guild_id"] = str(channel.guild_id)
        if message.interaction_id is not None:
            data["webhook_id"] = str(self.application_id)
            data["application_id"] = str(self.application_id)
        return data

    def _store(self, channel_id: int, author_id: int, content: str, **fields: Any) -> StoredMessage:
        message = StoredMessage(
            self._snowflake(), channel_id, author_id, content, self.clock(), **fields
        )
        self.messages[message.id] = message
        return message

    # ------------------------------------------------------------------ HTTP plumbing

    def _route_table(self) -> list[_Route]:
        table = [
            ("GET", "/users/@me", self._get_me, True),
            ("GET", "/oauth2/applications/@me", self._get_application, True),
            ("GET", "/applications/@me", self._get_application, True),
            ("GET", "/gateway", self._get_gateway, False),
            ("GET", "/gateway/bot", self._get_gateway_bot, True),
            ("GET", "/applications/{application_id}/commands", self._get_commands, True),
            ("PUT", "/applications/{application_id}/commands", self._put_commands, True),
            ("POST", "/users/@me/channels", self._open_dm, True),
            ("POST", "/channels/{channel_id}/messages", self._create_message, True),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self._edit_message, True),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_message, True),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self._callback, False),
            ("POST", "/webhooks/{application_id}/{token}", self._followup, False),
            (
                "GET",
                "/webhooks/{application_id}/{token}/messages/{message_id}",
                self._get_webhook_message,
                False,
            ),
            (
                "PATCH",
                "/webhooks/{application_id}/{token}/messages/{message_id}",
                self._edit_webhook_message,
                False,
            ),
            (
                "DELETE",
                "/webhooks/{application_id}/{token}/messages/{message_id}",
                self._delete_webhook_message,
                False,
            ),
        ]
        routes = []
        for method, template, handler, needs_auth in table:
            parts = [
                f"(?P<{part[1:-1]}>[^/]+)" if part.startswith("{") else re.escape(part)
                for part in template.split("/")
            ]
            pattern = re.compile("^" + "/".join(parts) + "$")
            routes.append(_Route(method, template, pattern, handler, needs_auth))
        return routes

    def _match(self, method: str, path: str) -> tuple[_Route, dict[str, str]]:
        prefix = f"/api/v{API_VERSION}"
        if not path.startswith(prefix + "/"):
            raise _error(NOT_FOUND)
        tail = path[len(prefix) :]
        found_path = False
        for route in self._routes:
            match = route.pattern.match(tail)
            if match is None:
                continue
            found_path = True
            if route.method == method:
                return route, match.groupdict()
        raise _error(METHOD_NOT_ALLOWED if found_path else NOT_FOUND)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        call = RecordedCall(
            route=f"{request.method} ?",
            path=request.path,
            params={},
            query=dict(request.query),
            body=None,
            files=[],
            authorized=request.headers.get("Authorization") == f"Bot {self.token}",
            time=self.clock(),
            arrived=self.monotonic(),
        )
        self.calls.append(call)
        headers: dict[str, str] = {}
        try:
            route, params = self._match(request.method, request.path)
            call.route, call.params = route.name, params
            if route.needs_auth and not call.authorized:
                raise _error(UNAUTHORIZED)
            headers = self._rate_limited(route, params)
            call.body, call.files = await _read_body(request)
            await self._apply_faults(call)
            result = route.handler(call, params)
            if asyncio.iscoroutine(result):
                result = await result
            status, body = (204, None) if result is None else (200, result)
        except DiscordError as exc:
            status, body, headers = exc.status, exc.body(), headers | exc.headers
        except Exception as exc:
            # A bug in the fake must not pass for a Discord outage; close() re-raises it.
            self.internal_errors.append(exc)
            status, body = 500, {"message": f"FakeDiscord internal error: {exc!r}", "code": 0}
        call.status, call.response = status, body
        self._call_event.set()
        self._call_event = asyncio.Event()
        if body is None:
            return web.Response(status=204, headers=headers)
        # Exactly "application/json", as Discord sends it: discord.py compares the header
        # for equality and treats anything else (a charset suffix too) as plain text.
        return web.Response(
            body=json.dumps(body).encode(),
            status=status,
            headers={**headers, "Content-Type": "application/json"},
        )

    @property
    def rate_limited(self) -> int:
        """429s the rate limits gave (not the injected ones)."""
        return 0 if self.limits is None else self.limits.refused

    def _rate_limited(self, route: _Route, params: dict[str, str]) -> dict[str, str]:
        """The rate-limit headers for this request, or Discord's 429 for it."""
        if self.limits is None:
            return {}
        # The bot's token counts toward its limit; an interaction's token does not.
        found = self.limits.check(route.name, route.needs_auth, params.get("channel_id"))
        if isinstance(found, Refusal):
            body = {"retry_after": found.retry_after, "global": found.is_global}
            raise DiscordError(
                429, 0, "You are being rate limited.", headers=found.headers, extra=body
            )
        return found

    async def _apply_faults(self, call: RecordedCall) -> None:
        fault = next((f for f in self.faults if f.matches(call)), None)
        if fault is None:
            return
        fault.hits += 1
        if fault.remaining is not None:
            fault.remaining -= 1
            if fault.remaining == 0:
                self.faults.remove(fault)
        if fault.stall_seconds:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), fault.stall_seconds)
        if fault.error is not None:
            raise fault.error

    # ------------------------------------------------------------------ REST handlers

    def _get_me(self, call: RecordedCall, params: dict[str, str]) -> Any:
        return {**self.bot.to_json(), "verified": True, "mfa_enabled": False, "flags": 0}

    def _get_application(self, call: RecordedCall, params: dict[str, str]) -> Any:
        owner = {"id": "1000000000000000999", "username": "owner", "discriminator": "0"}
        return {
            "id": str(self.application_id),
            "name": "Steady",
            "icon": None,
            "description": "",
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": {**owner, "global_name": None, "avatar": None, "public_flags": 0},
            "verify_key": "0" * 64,
            "team": None,
            "flags": 0,
            "interactions_endpoint_url": None,
            "bot": self.bot.to_json(),
        }

    def _get_gateway(self, call: RecordedCall, params: dict[str, str]) -> Any:
        return {"url": self.gateway_url}

    def _get_gateway_bot(self, call: RecordedCall, params: dict[str, str]) -> Any:
        limit = {"total": 1000, "remaining": 999, "reset_after": 14_400_000, "max_concurrency": 1}
        return {"url": self.gateway_url, "shards": 1, "session_start_limit": limit}

    def _check_application(self, params: dict[str, str]) -> None:
        if params["application_id"] != str(self.application_id):
            raise _error(MISSING_ACCESS)

    def _get_commands(self, call: RecordedCall, params: dict[str, str]) -> Any:
        self._check_application(params)
        return self.commands

    def _put_commands(self, call: RecordedCall, params: dict[str, str]) -> Any:
        self._check_application(params)
        payload = call.body
        if not isinstance(payload, list):
            raise _invalid("_errors", "BASE_TYPE_ARRAY", "Must be an array.")
        if len(payload) > MAX_GLOBAL_COMMANDS:
            raise _invalid("_errors", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
        names: set[str] = set()
        names_by_locale: set[tuple[str, str]] = set()
        stored = []
        for index, command in enumerate(payload):
            _check_command(command, f"{index}")
            if command["name"] in names:
                raise _invalid(f"{index}.name", "APPLICATION_COMMANDS_DUPLICATE_NAME", "dup")
            names.add(command["name"])
            # Within one locale, the names people see must differ too.
            for locale, local in (command.get("name_localizations") or {}).items():
                if (locale, local) in names_by_locale:
                    raise _invalid(
                        f"{index}.name_localizations.{locale}",
                        "APPLICATION_COMMANDS_DUPLICATE_NAME",
                        "dup",
                    )
                names_by_locale.add((locale, local))
            stored.append(
                {
                    **command,
                    "id": str(self._snowflake()),
                    "application_id": str(self.application_id),
                    "version": str(self._snowflake()),
                    "type": command.get("type", 1),
                }
            )
        self.commands = stored
        return stored

    def _open_dm(self, call: RecordedCall, params: dict[str, str]) -> Any:
        body = call.body if isinstance(call.body, dict) else {}
        try:
            user_id = int(body.get("recipient_id"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise _invalid(
                "recipient_id", "NUMBER_TYPE_COERCE", "Value is not snowflake."
            ) from None
        if user_id not in self.users or user_id == self.bot.id:
            raise _error(UNKNOWN_USER)
        return self.dm_channel(user_id).to_json(self.users)

    def _writable_channel(self, channel_id: str, files: bool) -> FakeChannel:
        channel = self.channels.get(int(channel_id)) if channel_id.isdigit() else None
        if channel is None:
            raise _error(UNKNOWN_CHANNEL)
        if channel.type == 1:
            assert channel.recipient_id is not None
            if not self.users[channel.recipient_id].dms_open:
                raise _error(CANNOT_DM)
            return channel
        if not channel.bot_permissions & VIEW_CHANNEL:
            raise _error(MISSING_ACCESS)
        if not channel.bot_permissions & SEND_MESSAGES:
            raise _error(MISSING_PERMISSIONS)
        if files and not channel.bot_permissions & ATTACH_FILES:
            raise _error(MISSING_PERMISSIONS)
        return channel

    def _create_message(self, call: RecordedCall, params: dict[str, str]) -> Any:
        channel = self._writable_channel(params["channel_id"], bool(call.files))
        fields = _message_fields(call.body, call.files, _SENDABLE_FLAGS)
        message = self._store(channel.id, self.bot.id, **fields)
        return self._message_json(message)

    def _own_message(self, channel_id: str, message_id: str) -> StoredMessage:
        message = self.messages.get(int(message_id)) if message_id.isdigit() else None
        if message is None or str(message.channel_id) != channel_id:
            if not channel_id.isdigit() or int(channel_id) not in self.channels:
                raise _error(UNKNOWN_CHANNEL)
            raise _error(UNKNOWN_MESSAGE)
        if message.deleted or message.ephemeral:
            raise _error(UNKNOWN_MESSAGE)  # an ephemeral message is not in the channel
        return message

    def _edit_message(self, call: RecordedCall, params: dict[str, str]) -> Any:
        message = self._own_message(params["channel_id"], params["message_id"])
        if message.author_id != self.bot.id:
            raise _error(OTHER_AUTHOR)
        self._apply_edit(message, call.body, call.files)
        return self._message_json(message)

    def _delete_message(self, call: RecordedCall, params: dict[str, str]) -> Any:
        message = self._own_message(params["channel_id"], params["message_id"])
        if message.author_id != self.bot.id and self.channels[message.channel_id].type == 1:
            raise _error(MISSING_PERMISSIONS)  # in a DM a bot may delete only its own
        message.deleted = True
        return None

    def _apply_edit(self, message: StoredMessage, body: Any, files: list[UploadedFile]) -> None:
        """An edit: fields left out keep their value; the result must still be a valid,
        non-empty message."""
        body = body if isinstance(body, dict) else {}
        content = body.get("content", message.content)
        components = body.get("components", message.components)
        fields = _message_fields(
            {**body, "content": content or "", "components": components or []},
            files or message.attachments,
            _INTERACTION_FLAGS,
        )
        if fields["content"] != message.content:
            message.previous_contents.append(message.content)
        message.content = fields["content"]
        message.components = fields["components"]
        message.flags &= ~LOADING
        if files:
            message.attachments = fields["attachments"]

    def _interaction_for(self, interaction_id: str, token: str) -> InteractionState:
        state = self.interactions.get(int(interaction_id)) if interaction_id.isdigit() else None
        if state is None or state.token != token:
            raise _error(UNKNOWN_INTERACTION)
        return state

    def _callback(self, call: RecordedCall, params: dict[str, str]) -> Any:
        state = self._interaction_for(params["interaction_id"], params["token"])
        if state.acknowledged:
            raise _error(ALREADY_ACKNOWLEDGED)
        if self.monotonic() - state.created > ACK_WINDOW_SECONDS:
            raise _error(UNKNOWN_INTERACTION)  # the 3 seconds are over: Discord forgot it
        body = call.body if isinstance(call.body, dict) else {}
        kind = body.get("type")
        if kind not in _CALLBACKS_FOR[state.type]:
            raise _invalid("type", "BASE_TYPE_CHOICES", f"Value must be one of {{...}}: {kind}")
        data = body.get("data") or {}
        message: StoredMessage | None = None
        if kind == CHANNEL_MESSAGE:
            fields = _message_fields(data, call.files, _INTERACTION_FLAGS)
            message = self._interaction_message(state, fields)
            state.original_message_id = message.id
        elif kind == DEFERRED_CHANNEL_MESSAGE:
            flags = int(data.get("flags") or 0)
            if flags & ~_INTERACTION_FLAGS:
                raise _invalid("data.flags", "MESSAGE_FLAGS_INVALID", "Invalid flags")
            message = self._store(
                state.channel_id,
                self.bot.id,
                "",
                flags=(flags & EPHEMERAL) | LOADING,
                interaction_id=state.id,
                visible_to=state.user_id if flags & EPHEMERAL else None,
            )
            state.original_message_id = message.id
        elif kind == UPDATE_MESSAGE:
            assert state.message_id is not None  # only components may update
            message = self.messages[state.message_id]
            self._apply_edit(message, data, call.files)
        if kind in {UPDATE_MESSAGE, DEFERRED_UPDATE}:
            # As on Discord: after a component's update, @original is the message the
            # button is on, so editing or deleting @original acts on it.
            state.original_message_id = state.message_id
        state.callback_type = kind
        if call.query.get("with_response") not in ("1", "true", "True"):
            return None
        response: dict[str, Any] = {
            "interaction": {
                "id": str(state.id),
                "type": state.type,
                "response_message_loading": kind == DEFERRED_CHANNEL_MESSAGE,
                "response_message_ephemeral": bool(message and message.ephemeral),
            }
        }
        if message is not None:
            response["interaction"]["response_message_id"] = str(message.id)
            response["resource"] = {"type": kind, "message": self._message_json(message)}
        return response

    def _interaction_message(
        self, state: InteractionState, fields: dict[str, Any]
    ) -> StoredMessage:
        ephemeral = bool(fields["flags"] & EPHEMERAL)
        return self._store(
            state.channel_id,
            self.bot.id,
            interaction_id=state.id,
            visible_to=state.user_id if ephemeral else None,
            **fields,
        )

    def _webhook_interaction(self, params: dict[str, str]) -> InteractionState:
        if params["application_id"] != str(self.application_id):
            raise _error(UNKNOWN_WEBHOOK)
        state = next((i for i in self.interactions.values() if i.token == params["token"]), None)
        if state is None or not state.acknowledged:
            raise _error(UNKNOWN_WEBHOOK)  # no followup before the first response
        if self.monotonic() - state.created > TOKEN_LIFETIME_SECONDS:
            raise _error(INVALID_WEBHOOK_TOKEN)
        return state

    def _followup(self, call: RecordedCall, params: dict[str, str]) -> Any:
        state = self._webhook_interaction(params)
        fields = _message_fields(call.body, call.files, _INTERACTION_FLAGS)
        original = (
            self.messages[state.original_message_id]
            if state.original_message_id is not None
            else None
        )
        if original is not None and original.loading:
            # The first followup after a deferral fills in the "thinking" message, keeping
            # the deferral's ephemerality whatever the followup's own flags say.
            original.content = fields["content"]
            original.components = fields["components"]
            original.attachments = fields["attachments"]
            original.allowed_mentions = fields["allowed_mentions"]
            original.mention_everyone = fields["mention_everyone"]
            original.mentions = fields["mentions"]
            original.flags = (original.flags & EPHEMERAL) | (fields["flags"] & ~EPHEMERAL)
            message = original
        else:
            message = self._interaction_message(state, fields)
        state.followup_ids.append(message.id)
        if call.query.get("wait") not in ("1", "true", "True"):
            return None
        return self._message_json(message)

    def _webhook_message(self, params: dict[str, str]) -> StoredMessage:
        state = self._webhook_interaction(params)
        wanted = params["message_id"]
        if wanted == "@original":
            message_id = state.original_message_id
        else:
            message_id = int(wanted) if wanted.isdigit() else None
            if message_id != state.original_message_id and message_id not in state.followup_ids:
                message_id = None
        message = self.messages.get(message_id) if message_id is not None else None
        if message is None or message.deleted:
            raise _error(UNKNOWN_MESSAGE)
        return message

    def _get_webhook_message(self, call: RecordedCall, params: dict[str, str]) -> Any:
        return self._message_json(self._webhook_message(params))

    def _edit_webhook_message(self, call: RecordedCall, params: dict[str, str]) -> Any:
        message = self._webhook_message(params)
        self._apply_edit(message, call.body, call.files)
        return self._message_json(message)

    def _delete_webhook_message(self, call: RecordedCall, params: dict[str, str]) -> Any:
        self._webhook_message(params).deleted = True
        return None


# --------------------------------------------------------------------------- validation


async def _read_body(request: web.Request) -> tuple[Any, list[UploadedFile]]:
    if not request.body_exists:
        return None, []
    if request.content_type == "application/json":
        try:
            return json.loads(await request.read()), []
        except ValueError:
            raise DiscordError(400, 50109, "The request body contains invalid JSON.") from None
    if request.content_type == "multipart/form-data":
        body: Any = None
        files: list[UploadedFile] = []
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if not isinstance(part, BodyPartReader):
                raise _invalid("_errors", "MULTIPART_NESTED", "Nested multipart is not accepted")
            name = part.name or ""
            data = await part.read()
            if name == "payload_json":
                body = json.loads(data)
            elif name.startswith("files["):
                files.append(UploadedFile(name, part.filename or "", bytes(data)))
            else:
                raise _invalid(name, "UNKNOWN_FIELD", f"Unknown multipart field {name!r}")
        return body, files
    raise DiscordError(400, 50035, "Invalid Form Body", {"_errors": ["unsupported Content-Type"]})


def _message_fields(body: Any, files: list[UploadedFile], allowed_flags: int) -> dict[str, Any]:
    """Validate a message payload as Discord does; the stored fields if it passes."""
    body = body if isinstance(body, dict) else {}
    content = body.get("content") or ""
    if not isinstance(content, str):
        raise _invalid("content", "BASE_TYPE_STRING", "Must be a string.")
    if len(content) > MAX_CONTENT:
        raise _invalid("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")
    flags = int(body.get("flags") or 0)
    if flags & ~allowed_flags:
        raise _invalid("flags", "MESSAGE_FLAGS_INVALID", "Invalid message flags")
    components = body.get("components") or []
    _check_components(components)
    embeds = body.get("embeds") or []
    if not content.strip() and not embeds and not files:
        raise _error(EMPTY_MESSAGE)
    allowed = body.get("allowed_mentions")
    parse = ["users", "roles", "everyone"] if allowed is None else list(allowed.get("parse", []))
    if not set(parse) <= {"users", "roles", "everyone"}:
        raise _invalid("allowed_mentions.parse", "BASE_TYPE_CHOICES", "Invalid parse value")
    users = [int(u) for u in (allowed or {}).get("users", [])]
    mentioned = [int(u) for u in _USER_MENTION.findall(content)]
    return {
        "content": content,
        "flags": flags,
        "components": components,
        "attachments": list(files),
        "allowed_mentions": allowed,
        "mention_everyone": "everyone" in parse and bool(_MENTION_EVERYONE.search(content)),
        "mentions": [u for u in mentioned if "users" in parse or u in users],
    }


def _check_components(rows: Any) -> None:
    if not isinstance(rows, list):
        raise _invalid("components", "BASE_TYPE_ARRAY", "Must be an array.")
    if len(rows) > MAX_ROWS:
        raise _invalid("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    custom_ids: set[str] = set()
    for r, row in enumerate(rows):
        if not isinstance(row, dict) or row.get("type") != 1:
            raise _invalid(f"components.{r}.type", "UNION_TYPE_CHOICES", "Not an action row.")
        buttons = row.get("components") or []
        if not 1 <= len(buttons) <= MAX_PER_ROW:
            raise _invalid(
                f"components.{r}.components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5."
            )
        for b, button in enumerate(buttons):
            _check_button(button, f"components.{r}.components.{b}", custom_ids)


def _check_button(button: Any, where: str, custom_ids: set[str]) -> None:
    if not isinstance(button, dict) or button.get("type") != 2:
        raise _invalid(f"{where}.type", "UNION_TYPE_CHOICES", "Not a button.")
    label = button.get("label") or ""
    if len(label) > MAX_BUTTON_LABEL:
        raise _invalid(f"{where}.label", "BASE_TYPE_MAX_LENGTH", "Must be 80 or fewer.")
    if not label and not button.get("emoji"):
        raise _invalid(f"{where}.label", "BUTTON_LABEL_OR_EMOJI_REQUIRED", "Required.")
    style = button.get("style")
    if style == 5:
        if not button.get("url") or "custom_id" in button:
            raise _invalid(f"{where}.url", "BUTTON_URL_REQUIRED", "A link needs a url.")
        return
    if style not in (1, 2, 3, 4):
        raise _invalid(f"{where}.style", "BASE_TYPE_CHOICES", "Invalid style.")
    custom_id = button.get("custom_id")
    if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= MAX_CUSTOM_ID:
        raise _invalid(f"{where}.custom_id", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100.")
    if custom_id in custom_ids:
        raise _invalid(f"{where}.custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED", "Duplicated.")
    custom_ids.add(custom_id)


def _check_command(command: Any, where: str) -> None:
    if not isinstance(command, dict):
        raise _invalid(where, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
    name = command.get("name")
    if not isinstance(name, str) or not _COMMAND_NAME.match(name) or name != name.lower():
        raise _invalid(f"{where}.name", "APPLICATION_COMMAND_INVALID_NAME", "Invalid name.")
    _check_name_localizations(command, where)
    _check_description(command, where)
    permissions = command.get("default_member_permissions")
    if permissions is not None and not (isinstance(permissions, str) and permissions.isdigit()):
        raise _invalid(f"{where}.default_member_permissions", "NUMBER_TYPE_COERCE", "Not a number")
    contexts = command.get("contexts")
    if contexts is not None and not set(contexts) <= {0, 1, 2}:
        raise _invalid(f"{where}.contexts", "BASE_TYPE_CHOICES", "Invalid context.")
    _check_option_specs(command.get("options") or [], f"{where}.options", depth=0)


def _check_name_localizations(item: dict[str, Any], where: str) -> None:
    """Discord holds a localized name to the rules of the name itself, per known locale."""
    localized = item.get("name_localizations")
    if localized is None:
        return
    if not isinstance(localized, dict):
        raise _invalid(f"{where}.name_localizations", "DICT_TYPE_CONVERT", "Not a dictionary")
    for locale, name in localized.items():
        if locale not in _DISCORD_LOCALES:
            raise _invalid(f"{where}.name_localizations", "LOCALE_INVALID", locale)
        if not isinstance(name, str) or not _COMMAND_NAME.match(name) or name != name.lower():
            raise _invalid(
                f"{where}.name_localizations.{locale}",
                "APPLICATION_COMMAND_INVALID_NAME",
                "Invalid name.",
            )


def _check_description(item: dict[str, Any], where: str) -> None:
    description = item.get("description")
    if not isinstance(description, str) or not 1 <= len(description) <= MAX_COMMAND_DESCRIPTION:
        raise _invalid(
            f"{where}.description", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
        )
    for locale, text in (item.get("description_localizations") or {}).items():
        if locale not in _DISCORD_LOCALES:
            raise _invalid(f"{where}.description_localizations", "LOCALE_INVALID", locale)
        if not isinstance(text, str) or not 1 <= len(text) <= MAX_COMMAND_DESCRIPTION:
            raise _invalid(
                f"{where}.description_localizations.{locale}",
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )


def _check_option_specs(options: list[dict[str, Any]], where: str, depth: int) -> None:
    if len(options) > MAX_OPTIONS:
        raise _invalid(where, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    names: set[str] = set()
    seen_optional = False
    for index, option in enumerate(options):
        here = f"{where}.{index}"
        name = option.get("name")
        if not isinstance(name, str) or not _COMMAND_NAME.match(name) or name != name.lower():
            raise _invalid(f"{here}.name", "APPLICATION_COMMAND_INVALID_NAME", "Invalid name.")
        if name in names:
            raise _invalid(f"{here}.name", "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", name)
        names.add(name)
        _check_name_localizations(option, here)
        _check_description(option, here)
        kind = option.get("type")
        if kind in (SUB_COMMAND, SUB_COMMAND_GROUP):
            if depth >= (1 if kind == SUB_COMMAND_GROUP else 2):
                raise _invalid(f"{here}.type", "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Nest")
            _check_option_specs(option.get("options") or [], f"{here}.options", depth + 1)
            continue
        if kind not in _OPTION_VALUE_TYPES:
            raise _invalid(f"{here}.type", "BASE_TYPE_CHOICES", "Unknown option type")
        if option.get("required"):
            if seen_optional:
                raise _invalid(
                    where,
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            seen_optional = True
        for bound in ("max_length", "min_length"):
            if bound in option and not 0 <= int(option[bound]) <= 6000:
                raise _invalid(f"{here}.{bound}", "NUMBER_TYPE_MAX", "Out of range")


def _check_options(specs: list[dict[str, Any]], given: list[dict[str, Any]], where: str) -> None:
    """What a real client would send: known names, the right types, required ones present."""
    by_name = {spec["name"]: spec for spec in specs}
    for option in given:
        spec = by_name.get(option.get("name", ""))
        if spec is None or spec.get("type") != option.get("type"):
            raise ValueError(f"{where}: no option {option!r} in {list(by_name)}")
        if spec["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP):
            _check_options(spec.get("options") or [], option.get("options") or [], where)
            continue
        value = option.get("value")
        if not isinstance(value, _OPTION_VALUE_TYPES[spec["type"]]):
            raise ValueError(f"{where}: option {option['name']} needs a {spec['type']} value")
        if isinstance(value, str) and len(value) > int(spec.get("max_length", 6000)):
            raise ValueError(f"{where}: option {option['name']} is longer than its max_length")
    values = [s for s in specs if s["type"] not in (SUB_COMMAND, SUB_COMMAND_GROUP)]
    missing = [s["name"] for s in values if s.get("required") and s["name"] not in _names(given)]
    if missing:
        raise ValueError(f"{where}: required option(s) missing: {missing}")
    if specs and not values and len(given) != 1:
        raise ValueError(f"{where}: choose exactly one subcommand of {list(by_name)}")


def _names(options: list[dict[str, Any]]) -> set[str]:
    return {str(option.get("name")) for option in options}
