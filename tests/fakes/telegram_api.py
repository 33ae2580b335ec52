"""A strict, in-process fake of the Telegram Bot API for end-to-end tests.

The real python-telegram-bot (PTB) library talks to this server over real HTTP, so tests
exercise PTB's request encoding, error mapping and update parsing as well as our own code::

    async with FakeTelegram() as tg:
        app = (
            Application.builder()
            .token(tg.token)
            .base_url(f"{tg.url}/bot")
            .base_file_url(f"{tg.url}/file/bot")
            .build()
        )
        tg.user_sends_text(chat_id=42, user_id=42, text="/start")
        ...
        await tg.wait_for("sendMessage")
        assert tg.sent_texts(42) == ["Welcome"]

It is deliberately stricter than convenient: where Telegram rejects a request, so does the
fake, with Telegram's JSON error shape and (as far as known) Telegram's wording. A few
checks go beyond Telegram on purpose and say so where they are made (see ``strict_html``).

How PTB 22 talks to it (worth knowing when reading ``calls``): every method is an HTTP POST
to ``{base_url}{token}/{method}``; without files the body is
``application/x-www-form-urlencoded`` in which strings are sent raw and every other value
(ints, bools, lists, objects) is JSON-encoded; with files (``sendPhoto`` with bytes) the same
fields travel as ``multipart/form-data`` parts next to the file part. So the server sees only
strings and must type each field itself, as Telegram does. JSON bodies and GET query strings
(other clients, curl) are accepted too.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import json
import re
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

import aiohttp
from aiohttp import web

from tests.fakes.flood_limits import SlidingWindow, TokenBucket, whole_seconds
from tests.fakes.local_server import LocalServer, ServedFake
from tests.fakes.telegram_html import HtmlParseError, parse_html, trim_entities, utf16_len

# --------------------------------------------------------------------------- limits

MAX_TEXT_UTF16: Final = 4096
MAX_CAPTION_UTF16: Final = 1024
MAX_CALLBACK_ANSWER_UTF16: Final = 200
MAX_CALLBACK_DATA_BYTES: Final = 64
MAX_INLINE_BUTTONS: Final = 100
MAX_COMMANDS: Final = 100
MAX_COMMAND_DESCRIPTION: Final = 256
DELETE_WINDOW_SECONDS: Final = 48 * 3600
MAX_UPLOAD_BYTES: Final = 50 * 1024 * 1024

NOT_MODIFIED: Final = (
    "message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD: Final = "query is too old and response timeout expired or query ID is invalid"
WEBHOOK_CONFLICT: Final = (
    "Conflict: can't use getUpdates method while webhook is active; "
    "use deleteWebhook to delete the webhook first"
)
POLL_CONFLICT: Final = (
    "Conflict: terminated by other getUpdates request; "
    "make sure that only one bot instance is running"
)

# Telegram delivers every update type by default except these three, which need opting in.
_OPT_IN_UPDATE_TYPES: Final = frozenset(
    {"chat_member", "message_reaction", "message_reaction_count"}
)
_CHAT_ACTIONS: Final = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
_MEMBER_STATUSES: Final = frozenset(
    {"creator", "administrator", "member", "restricted", "left", "kicked"}
)
_SCOPE_TYPES: Final = frozenset(
    {
        "default",
        "all_private_chats",
        "all_group_chats",
        "all_chat_administrators",
        "chat",
        "chat_administrators",
        "chat_member",
    }
)
# Exactly one of these must accompany an inline button's text.
_BUTTON_ACTIONS: Final = (
    "callback_data",
    "url",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
GROUP_MESSAGES_PER_MINUTE: Final = 20
# With flood_limits=True: Telegram's 30 messages a second for a bot, and about one a
# second in a private chat with short bursts allowed (a bucket of 5 here).
BOT_MESSAGES_PER_SECOND: Final = 30
PRIVATE_BURST: Final = 5
PRIVATE_PER_SECOND: Final = 1.0
GROUP_ANONYMOUS_BOT_ID: Final = 1087968824  # the sender Telegram shows for anonymous admins
# Methods that put something in front of the user; these are what a block stops.
_WRITE_METHODS: Final = frozenset(
    {"sendMessage", "sendPhoto", "sendChatAction", "editMessageText", "editMessageReplyMarkup"}
)

# Form fields arrive as strings; these tables say how Telegram types them.
_INT_PARAMS: Final = frozenset(
    {
        "user_id",
        "message_id",
        "offset",
        "limit",
        "timeout",
        "cache_time",
        "max_connections",
        "reply_to_message_id",
        "message_thread_id",
    }
)
_BOOL_PARAMS: Final = frozenset(
    {
        "disable_notification",
        "protect_content",
        "show_alert",
        "drop_pending_updates",
        "allow_sending_without_reply",
        "disable_web_page_preview",
        "has_spoiler",
        "show_caption_above_media",
        "allow_paid_broadcast",
    }
)
_JSON_PARAMS: Final = frozenset(
    {
        "reply_markup",
        "commands",
        "scope",
        "allowed_updates",
        "entities",
        "caption_entities",
        "link_preview_options",
        "reply_parameters",
    }
)

_API_PATH: Final = re.compile(r"/bot(?P<token>[^/]*)/(?P<method>[^/]*)")
_FILE_PATH: Final = re.compile(r"/file/bot(?P<token>[^/]*)/(?P<path>.+)")
_TOKEN_SHAPE: Final = re.compile(r"\d+:[A-Za-z0-9_-]+")
_COMMAND_NAME: Final = re.compile(r"[a-z0-9_]{1,32}")
_SECRET_TOKEN: Final = re.compile(r"[A-Za-z0-9_-]{1,256}")
_LANGUAGE_CODE: Final = re.compile(r"[a-z]{2}")
# tdlib's bot-command rule: "/" not preceded by a word character, "/" "<" or ">"; a 1-64
# character name; an optional "@" + 3-32 character bot username; no word character after.
_BOT_COMMAND: Final = re.compile(
    r"(?<![\w/<>])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/<>@])"
)
# What a user may send with a caption, and the fields Telegram describes each file with.
USER_MEDIA: Final = frozenset({"photo", "video", "document"})
_PNG_MAGIC: Final = b"\x89PNG\r\n\x1a\n"
_IMAGE_MAGICS: Final = (_PNG_MAGIC, b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"RIFF")


# --------------------------------------------------------------------------- errors


class ApiError(Exception):
    """A Bot API error answer: HTTP status == error_code, as Telegram sends it."""

    def __init__(
        self, status: int, description: str, parameters: dict[str, Any] | None = None
    ) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.status,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def _bad(description: str) -> ApiError:
    return ApiError(400, f"Bad Request: {description}")


def bot_command_entities(text: str) -> list[dict[str, Any]]:
    """The bot_command entities Telegram attaches to a user's message text."""
    return [
        {"type": "bot_command", "offset": utf16_len(text[: m.start()]), "length": utf16_len(m[0])}
        for m in _BOT_COMMAND.finditer(text)
    ]


# --------------------------------------------------------------------------- recorded state


@dataclass
class UploadedFile:
    """A multipart file part as it arrived."""

    field_name: str
    filename: str
    content_type: str
    data: bytes


@dataclass
class RecordedCall:
    """One HTTP request to the API, in arrival order.

    ``params`` are typed the way Telegram reads them (ints, bools, decoded JSON), so tests can
    compare against values rather than PTB's wire encoding. ``status`` stays None while the
    request is still being answered (a long poll, a stall).
    """

    method: str
    params: dict[str, Any]
    time: float
    http_method: str = "POST"
    content_type: str = ""
    status: int | None = None
    response: dict[str, Any] | None = None
    arrived: float = 0.0  # the flood clock's reading on arrival (monotonic seconds)

    @property
    def ok(self) -> bool:
        return self.status == 200

    @property
    def result(self) -> Any:
        return (self.response or {}).get("result")

    @property
    def description(self) -> str | None:
        return (self.response or {}).get("description")


@dataclass
class StoredMessage:
    """The current state of one message in a chat, as Telegram would hold it."""

    chat_id: int
    message_id: int
    date: int
    sender_id: int
    from_bot: bool
    text: str | None = None  # plain text after entity parsing and trimming
    entities: list[dict[str, Any]] = field(default_factory=list)
    raw_text: str | None = None  # exactly what the bot sent, markup included
    parse_mode: str | None = None
    caption: str | None = None
    caption_entities: list[dict[str, Any]] = field(default_factory=list)
    photo_file_id: str | None = None
    reply_markup: dict[str, Any] | None = None  # inline keyboards only; Telegram echoes no others
    deleted: bool = False
    edit_date: int | None = None
    previous_texts: list[str] = field(default_factory=list)  # oldest first; grows on each edit
    new_chat_member_ids: list[int] = field(default_factory=list)
    sender_chat_id: int | None = None  # posted on behalf of a chat (an anonymous admin)
    media_kind: str | None = None  # a user's "photo", "video" or "document" (see USER_MEDIA)
    reply_to_message_id: int | None = None  # the message this one answers, in the same chat

    @property
    def original_text(self) -> str | None:
        return self.previous_texts[0] if self.previous_texts else self.text


@dataclass
class StoredFile:
    file_id: str
    file_unique_id: str
    file_path: str
    data: bytes
    width: int
    height: int


@dataclass
class CallbackQueryState:
    query_id: str
    chat_id: int
    message_id: int
    user_id: int
    data: str
    answered: bool = False
    answer_text: str | None = None
    show_alert: bool = False


@dataclass
class BotCommandSpec:
    command: str
    description: str


@dataclass
class WebhookState:
    url: str
    secret_token: str | None
    allowed_updates: list[str] | None
    max_connections: int


@dataclass
class KnownUser:
    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None
    is_bot: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data


@dataclass
class KnownChat:
    id: int
    type: str
    title: str | None = None
    first_name: str | None = None
    username: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.type == "private":
            data["first_name"] = self.first_name or f"User{self.id}"
        else:
            data["title"] = self.title or f"Chat {self.id}"
        if self.username:
            data["username"] = self.username
        return data


@dataclass
class Fault:
    """An armed failure. The first matching fault (in arming order) handles a call.

    ``status`` None means "stall, then answer normally"; otherwise the call is answered with
    that error after ``stall_seconds``. ``remaining`` None means until ``clear_faults()``.
    """

    status: int | None
    description: str = ""
    parameters: dict[str, Any] | None = None
    method: str | None = None
    chat_id: int | None = None
    remaining: int | None = 1
    stall_seconds: float = 0.0
    hits: int = 0

    def matches(self, method: str, chat_id: Any) -> bool:
        if self.remaining == 0:
            return False
        if self.method is None:
            # A wildcard skips getUpdates: a polling loop would otherwise swallow one-shot
            # faults at random. Name getUpdates explicitly to fault polling.
            if method == "getUpdates":
                return False
        elif self.method != method:
            return False
        return self.chat_id is None or self.chat_id == chat_id


class _Stored(enum.Enum):
    SECRET = "use the secret_token given to setWebhook"


USE_STORED_SECRET: Final = _Stored.SECRET


# --------------------------------------------------------------------------- param typing


def _coerce_params(raw: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for name, value in raw.items():
        if isinstance(value, UploadedFile):
            params[name] = value
        elif name == "chat_id":
            params[name] = _coerce_chat_id(value)
        elif name in _INT_PARAMS:
            params[name] = _coerce_int(name, value)
        elif name in _BOOL_PARAMS:
            params[name] = _coerce_bool(name, value)
        elif name in _JSON_PARAMS and isinstance(value, str):
            try:
                params[name] = json.loads(value)
            except ValueError as exc:
                raise _bad(f"can't parse {name} JSON object") from exc
        else:
            params[name] = value
    return params


def _coerce_chat_id(value: Any) -> int | str:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value.startswith("@"):
            return value
        with contextlib.suppress(ValueError):
            return int(value)
    raise _bad("chat not found")


def _coerce_int(name: str, value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return int(value.strip())
    raise _bad(f"invalid {name} specified")


def _coerce_bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    lowered = str(value).strip().lower()
    if lowered in {"true", "1"}:
        return True
    if lowered in {"false", "0", ""}:
        return False
    raise _bad(f"invalid {name} specified")


def _inline_markup(markup: Any) -> dict[str, Any] | None:
    """Validate reply_markup; return what Telegram stores on the message (inline only)."""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise _bad("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        _check_inline_keyboard(markup["inline_keyboard"])
        return markup
    if "keyboard" in markup:
        rows = markup["keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise _bad('field "keyboard" of the ReplyKeyboardMarkup must be an Array of Arrays')
        return None
    if markup.get("remove_keyboard") is True or markup.get("force_reply") is True:
        return None
    raise _bad("can't parse reply keyboard markup JSON object")


def _check_inline_keyboard(rows: Any) -> None:
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise _bad('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays')
    if sum(len(row) for row in rows) > MAX_INLINE_BUTTONS:
        raise _bad("reply markup is too long")
    for row in rows:
        for button in row:
            _check_inline_button(button)


def _check_inline_button(button: Any) -> None:
    prefix = "can't parse inline keyboard button: "
    if not isinstance(button, dict):
        raise _bad(prefix + "InlineKeyboardButton must be an Object")
    if not isinstance(button.get("text"), str):
        raise _bad(prefix + 'Field "text" must be of type String')
    if not button["text"].strip():
        raise _bad("BUTTON_TEXT_EMPTY")  # wording approximated
    actions = [name for name in _BUTTON_ACTIONS if name in button]
    if not actions:
        raise _bad(prefix + "Text buttons are unallowed in the inline keyboard")
    if len(actions) > 1:
        # Telegram silently picks one; two actions on one button is always a bot bug.
        raise _bad(prefix + f"exactly one action field is allowed, got {actions}")
    data = button.get("callback_data")
    if "callback_data" in button and (
        not isinstance(data, str)
        or not 1 <= len(data.encode("utf-8", "surrogatepass")) <= MAX_CALLBACK_DATA_BYTES
    ):
        raise _bad("BUTTON_DATA_INVALID")
    url = button.get("url")
    if "url" in button and (
        not isinstance(url, str) or not url.startswith(("http://", "https://", "tg://"))
    ):
        raise _bad("BUTTON_URL_INVALID")


def _keyboard_has(markup: dict[str, Any] | None, callback_data: str) -> bool:
    rows = (markup or {}).get("inline_keyboard", [])
    return any(button.get("callback_data") == callback_data for row in rows for button in row)


def _image_size(data: bytes) -> tuple[int, int]:
    if data.startswith(_PNG_MAGIC) and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return 512, 512  # other formats: the size is not worth parsing for tests


def _chat_member_json(status: str, user: dict[str, Any]) -> dict[str, Any]:
    """A ChatMember with every field PTB's de_json requires for that status."""
    member: dict[str, Any] = {"status": status, "user": user}
    if status == "creator":
        member["is_anonymous"] = False
    elif status == "administrator":
        member.update(
            can_be_edited=False,
            is_anonymous=False,
            can_manage_chat=True,
            can_delete_messages=True,
            can_manage_video_chats=False,
            can_restrict_members=True,
            can_promote_members=False,
            can_change_info=False,
            can_invite_users=True,
            can_post_stories=False,
            can_edit_stories=False,
            can_delete_stories=False,
        )
    elif status == "restricted":
        rights = [
            "can_change_info",
            "can_invite_users",
            "can_pin_messages",
            "can_send_messages",
            "can_send_polls",
            "can_send_other_messages",
            "can_add_web_page_previews",
            "can_manage_topics",
            "can_send_audios",
            "can_send_documents",
            "can_send_photos",
            "can_send_videos",
            "can_send_video_notes",
            "can_send_voice_notes",
            "can_edit_tag",
        ]
        member.update(dict.fromkeys(rights, False), is_member=True, until_date=0)
    elif status == "kicked":
        member["until_date"] = 0
    return member


def _infer_chat_type(chat_id: int) -> str:
    # Telegram's id ranges: users are positive, supergroups and channels -100xxxxxxxxxx.
    if chat_id > 0:
        return "private"
    return "supergroup" if chat_id <= -1_000_000_000_000 else "group"


# --------------------------------------------------------------------------- the fake


Handler = Callable[[dict[str, Any]], Awaitable[Any]]


class FakeTelegram(ServedFake):
    """A strict Telegram Bot API server on 127.0.0.1, run inside the test's event loop.

    Test-side API, in short:

    * ``url``, ``token``, ``bot_id``, ``bot_username``; ``clock`` (unix seconds) is injectable.
    * Inspect: ``calls`` (RecordedCall, arrival order), ``calls_to(method)``,
      ``await wait_for(predicate_or_method, timeout=5, since=0)``, ``messages[chat][id]``
      (StoredMessage), ``sent_messages(chat)``, ``sent_texts(chat)``, ``callback_queries``,
      ``commands_for(language, scope)``, ``updates`` (unconfirmed), ``webhook``.
    * Act as users: ``user_sends_text`` (``reply_to=`` a message id), ``user_sends_media``
      (a photo, video or document, with a caption), ``user_edits`` (an ``edited_message``),
      ``user_presses`` (returns the query id), ``user_joins_group``, ``user_blocks_bot`` /
      ``user_unblocks_bot``, ``await post_update_to_webhook(url, update)``.
    * Privacy mode: ``FakeTelegram(privacy_mode=True)`` keeps ordinary group talk from the
      bot as Telegram does; what it kept is in ``withheld`` (its update id is None).
    * State: ``block(chat)`` / ``unblock(chat)``, ``set_member_status(chat, user, status)``.
    * Flood limits: 20 messages a minute in a group, always (``group_window_seconds``
      shortens the minute); with ``flood_limits=True`` also 30 a second for the bot and
      about one a second in a private chat (a burst of 5), each counted on arrival and
      refused with Telegram's 429 and retry_after (``flood_refused`` counts them).
    * Faults (one-shot by default, ``times=N`` or ``None`` for until ``clear_faults()``):
      ``inject_retry_after``, ``inject_blocked``, ``inject_migrate``, ``inject_server_error``,
      ``inject_stall``, and the general ``inject_error``.

    A getUpdates whose client went away still runs to its end here (aiohttp does not cancel
    handlers on disconnect): after PTB's ``Updater.stop()`` its final confirming getUpdates
    ends the abandoned long poll, which is therefore recorded with status 409.
    """

    def __init__(
        self,
        *,
        token: str = "123456:TEST-token",
        bot_username: str = "steady_test_bot",
        bot_first_name: str = "Steady",
        clock: Callable[[], float] = time.time,
        strict_html: bool = True,
        known_chats_only: bool = False,
        group_window_seconds: float = 60.0,
        privacy_mode: bool = False,
        flood_limits: bool = False,
        flood_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.token = token
        # BotFather's /setprivacy. On (Telegram's own default for a new bot), a group
        # sends the bot only what is meant for it; see ``_delivered_to_bot``. Off here by
        # default so group tests see every message unless they ask for privacy.
        self.privacy_mode = privacy_mode
        # Telegram's group flood limit is 20 messages a minute; tests shorten the minute.
        self.group_window_seconds = group_window_seconds
        # Off by default, so tests about something else may send as fast as they like.
        self.flood_limits = flood_limits
        self._flood_clock = flood_clock  # seconds, monotonic: when each message arrived
        self._bot_flood = SlidingWindow(BOT_MESSAGES_PER_SECOND, 1.0, flood_clock)
        self._private_flood: dict[int, TokenBucket] = {}
        self.flood_refused = 0
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_first_name = bot_first_name
        # Unix seconds; message dates and the 48-hour delete window follow it.
        self.clock = clock
        self.strict_html = strict_html
        # Telegram answers "chat not found" for chats the bot never met; off by default so
        # tests may message a chat id without pushing an update from it first.
        self.known_chats_only = known_chats_only

        self.calls: list[RecordedCall] = []
        self.messages: dict[int, dict[int, StoredMessage]] = {}
        self.chats: dict[int, KnownChat] = {}
        self.users: dict[int, KnownUser] = {}
        self.blocked_chats: set[int] = set()
        self.member_status: dict[tuple[int, int], str] = {}
        # A group upgraded to a supergroup: calls to the old id fail and name the new one.
        self.migrated_chats: dict[int, int] = {}
        self._group_posts: dict[int, list[float]] = {}  # monotonic send times, for the limit
        self.callback_queries: dict[str, CallbackQueryState] = {}
        self.commands: dict[tuple[str, str], list[BotCommandSpec]] = {}
        self.files: dict[str, StoredFile] = {}
        self.faults: list[Fault] = []
        self.webhook: WebhookState | None = None
        self.updates: list[dict[str, Any]] = []  # not yet confirmed by a getUpdates offset
        self.handed_over: set[int] = set()  # ids of updates a getUpdates has returned
        self.allowed_updates: list[str] = []
        self.internal_errors: list[Exception] = []
        # User messages privacy mode kept from the bot: stored in the chat, never sent.
        self.withheld: list[dict[str, Any]] = []

        self._next_update_id = itertools.count(10_001)
        self._next_query_id = itertools.count(4_000_000_000_000_000_001)
        self._next_file = itertools.count(1)
        self._last_message_id: dict[int, int] = {}
        self._poll_generation = 0
        self._update_event = asyncio.Event()
        self._call_event = asyncio.Event()
        self._closing = asyncio.Event()
        self._server = LocalServer("FakeTelegram")
        self._session: aiohttp.ClientSession | None = None
        self._methods: dict[str, Handler] = {
            "getMe": self._get_me,
            "getUpdates": self._get_updates,
            "setWebhook": self._set_webhook,
            "deleteWebhook": self._delete_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "sendMessage": self._send_message,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "deleteMessage": self._delete_message,
            "sendPhoto": self._send_photo,
            "sendChatAction": self._send_chat_action,
            "answerCallbackQuery": self._answer_callback_query,
            "setMyCommands": self._set_my_commands,
            "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "getChatMember": self._get_chat_member,
            "getFile": self._get_file,
        }
        # Telegram method names are case-insensitive; calls are recorded under the canonical one.
        self._canonical = {name.lower(): name for name in self._methods}

    # ------------------------------------------------------------------ lifecycle

    @property
    def url(self) -> str:
        return self._server.url

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_UPLOAD_BYTES)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        await self._server.start(app)
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))

    async def close(self) -> None:
        # Release long polls and stalls first so the server's cleanup finds idle handlers.
        self._closing.set()
        self._wake_pollers()
        if self._session is not None:
            await self._session.close()
        await self._server.close()

    # ------------------------------------------------------------------ inspecting calls

    def calls_to(self, method: str) -> list[RecordedCall]:
        return [call for call in self.calls if call.method == method]

    def sent_messages(self, chat_id: int) -> list[StoredMessage]:
        """Messages the bot sent to the chat, in order, deleted ones included."""
        chat = self.messages.get(chat_id, {})
        return [chat[mid] for mid in sorted(chat) if chat[mid].from_bot]

    def sent_texts(self, chat_id: int) -> list[str]:
        """Plain text of each text message the bot sent to the chat, as first sent.

        Edits and deletions show in ``messages``; photo captions are not included.
        """
        return [
            msg.original_text
            for msg in self.sent_messages(chat_id)
            if msg.original_text is not None and msg.photo_file_id is None
        ]

    async def wait_for(
        self,
        predicate: Callable[[RecordedCall], bool] | str,
        timeout: float = 30.0,  # noqa: ASYNC109 - the test-facing API the brief asks for
        *,
        since: int = 0,
    ) -> RecordedCall:
        """The first answered call (from index ``since``) matching; a str matches a method."""

        def matches(call: RecordedCall) -> bool:
            if isinstance(predicate, str):
                return call.method == predicate
            return predicate(call)

        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for call in self.calls[since:]:
                if call.status is not None and matches(call):
                    return call
            remaining = deadline - loop.time()
            if remaining <= 0:
                seen = [(call.method, call.status) for call in self.calls[since:]]
                raise TimeoutError(f"no matching call within {timeout}s; calls: {seen}")
            event = self._call_event
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)

    # ------------------------------------------------------------------ test-side state

    def block(self, chat_id: int) -> None:
        """From now on sends to the chat fail with 403 "bot was blocked by the user"."""
        self.blocked_chats.add(chat_id)

    def unblock(self, chat_id: int) -> None:
        self.blocked_chats.discard(chat_id)

    def set_member_status(self, chat_id: int, user_id: int, status: str) -> None:
        """getChatMember's answer for this pair; use ``bot_id`` to make the bot an admin."""
        if status not in _MEMBER_STATUSES:
            raise ValueError(f"status must be one of {sorted(_MEMBER_STATUSES)}")
        self.member_status[chat_id, user_id] = status

    def commands_for(
        self, language_code: str = "", scope: str = "default"
    ) -> list[BotCommandSpec] | None:
        """What setMyCommands stored, or None if never set for this scope and language."""
        return self.commands.get((scope, language_code))

    # ------------------------------------------------------------------ fault injection

    def inject_error(
        self,
        status: int,
        description: str,
        *,
        parameters: dict[str, Any] | None = None,
        method: str | None = None,
        chat_id: int | None = None,
        times: int | None = 1,
        stall_seconds: float = 0.0,
    ) -> Fault:
        """Answer the next ``times`` matching calls with this error (None: until cleared)."""
        return self._arm(
            Fault(
                status=status,
                description=description,
                parameters=parameters,
                method=method,
                chat_id=chat_id,
                remaining=times,
                stall_seconds=stall_seconds,
            )
        )

    def _arm(self, fault: Fault) -> Fault:
        # Typos in a method name would otherwise arm a fault that silently never fires.
        if fault.method is not None and fault.method not in self._methods:
            raise ValueError(f"{fault.method!r} is not a method this fake implements")
        if fault.remaining is not None and fault.remaining < 1:
            raise ValueError("times must be >= 1, or None for 'until clear_faults()'")
        self.faults.append(fault)
        return fault

    def inject_retry_after(
        self,
        retry_after: int,
        *,
        method: str | None = None,
        chat_id: int | None = None,
        times: int | None = 1,
    ) -> Fault:
        return self.inject_error(
            429,
            f"Too Many Requests: retry after {retry_after}",
            parameters={"retry_after": retry_after},
            method=method,
            chat_id=chat_id,
            times=times,
        )

    def inject_blocked(
        self, chat_id: int, *, method: str | None = None, times: int | None = 1
    ) -> Fault:
        return self.inject_error(
            403,
            "Forbidden: bot was blocked by the user",
            method=method,
            chat_id=chat_id,
            times=times,
        )

    def inject_migrate(
        self,
        chat_id: int,
        new_chat_id: int,
        *,
        method: str | None = None,
        times: int | None = 1,
    ) -> Fault:
        """A group upgraded to a supergroup; pass times=None for the permanent real thing."""
        return self.inject_error(
            400,
            "Bad Request: group chat was upgraded to a supergroup chat",
            parameters={"migrate_to_chat_id": new_chat_id},
            method=method,
            chat_id=chat_id,
            times=times,
        )

    def inject_server_error(
        self,
        *,
        status: int = 500,
        method: str | None = None,
        chat_id: int | None = None,
        times: int | None = 1,
    ) -> Fault:
        return self.inject_error(
            status, "Internal Server Error", method=method, chat_id=chat_id, times=times
        )

    def inject_stall(
        self,
        seconds: float,
        *,
        method: str | None = None,
        chat_id: int | None = None,
        times: int | None = 1,
    ) -> Fault:
        """Hold the answer for ``seconds``, then handle the call normally.

        Like the real network: the client times out, yet the message is still delivered (it
        shows in ``messages``), which is exactly the duplicate-send risk worth testing.
        """
        if seconds <= 0:
            raise ValueError("a stall needs a positive duration")
        return self._arm(
            Fault(
                status=None, method=method, chat_id=chat_id, remaining=times, stall_seconds=seconds
            )
        )

    def clear_faults(self) -> None:
        self.faults.clear()

    def a_minute_passes_in_groups(self) -> None:
        """Forget the group posts counted toward the flood limit, as a minute would: for a
        test that posts more than 20 messages in a group on purpose, about something else."""
        self._group_posts.clear()

    # ------------------------------------------------------------------ pushing updates

    def user_sends_text(
        self,
        chat_id: int,
        user_id: int,
        text: str,
        *,
        chat_type: str = "private",
        language_code: str | None = "en",
        username: str | None = None,
        first_name: str | None = None,
        chat_title: str | None = None,
        anonymous_admin: bool = False,
        reply_to: int | None = None,
    ) -> dict[str, Any]:
        """Queue a user's text message update; returns the update as sent to the bot
        (or, when privacy mode keeps it from the bot, as it would have been: see
        ``withheld``).

        `anonymous_admin`: an admin posting as the group itself; Telegram then names the
        stand-in GroupAnonymousBot as the sender and the group as `sender_chat`.
        `reply_to`: the id of the message in this chat that the user answers.
        """
        user = self._remember_user(user_id, username, first_name, language_code)
        self._remember_chat(chat_id, chat_type, chat_title, user)
        if anonymous_admin:
            user_id = GROUP_ANONYMOUS_BOT_ID
            self.users.setdefault(
                user_id, KnownUser(user_id, "Group", username="GroupAnonymousBot", is_bot=True)
            )
        message = StoredMessage(
            chat_id=chat_id,
            message_id=self._new_message_id(chat_id),
            date=self._now(),
            sender_id=user_id,
            from_bot=False,
            text=text,
            entities=bot_command_entities(text),
            sender_chat_id=chat_id if anonymous_admin else None,
            reply_to_message_id=self._existing(chat_id, reply_to),
        )
        self.messages.setdefault(chat_id, {})[message.message_id] = message
        return self._push_user_message("message", message)

    def user_sends_media(
        self,
        chat_id: int,
        user_id: int,
        kind: str = "photo",
        caption: str | None = None,
        *,
        chat_type: str = "private",
        language_code: str | None = "en",
        reply_to: int | None = None,
    ) -> dict[str, Any]:
        """A photo, video or document from a user, with an optional caption. Telegram
        sends the caption in `caption` (never `text`), its commands in `caption_entities`."""
        if kind not in USER_MEDIA:
            raise ValueError(f"kind must be one of {sorted(USER_MEDIA)}")
        user = self._remember_user(user_id, None, None, language_code)
        self._remember_chat(chat_id, chat_type, None, user)
        message = StoredMessage(
            chat_id=chat_id,
            message_id=self._new_message_id(chat_id),
            date=self._now(),
            sender_id=user_id,
            from_bot=False,
            caption=caption,
            caption_entities=bot_command_entities(caption or ""),
            media_kind=kind,
            reply_to_message_id=self._existing(chat_id, reply_to),
        )
        self.messages.setdefault(chat_id, {})[message.message_id] = message
        return self._push_user_message("message", message)

    def user_edits(self, chat_id: int, message_id: int, new_text: str) -> dict[str, Any]:
        """The user changes a message they sent: its text, or its caption if it has media.
        Telegram then sends `edited_message` with the whole message as it is now."""
        message = self.messages.get(chat_id, {}).get(message_id)
        if message is None or message.deleted or message.from_bot:
            raise LookupError(f"no live user message {message_id} in chat {chat_id}")
        if message.media_kind is not None:
            message.caption = new_text
            message.caption_entities = bot_command_entities(new_text)
        else:
            if message.text is not None:
                message.previous_texts.append(message.text)
            message.text = new_text
            message.entities = bot_command_entities(new_text)
        message.edit_date = self._now()
        return self._push_user_message("edited_message", message)

    def _existing(self, chat_id: int, message_id: int | None) -> int | None:
        if message_id is not None and message_id not in self.messages.get(chat_id, {}):
            raise LookupError(f"no message {message_id} in chat {chat_id} to reply to")
        return message_id

    def _push_user_message(self, kind: str, message: StoredMessage) -> dict[str, Any]:
        payload = {kind: self._message_json(message)}
        if self._delivered_to_bot(message):
            return self._push(payload)
        self.withheld.append(payload)
        return {"update_id": None, **payload}

    def _delivered_to_bot(self, message: StoredMessage) -> bool:
        """Telegram's privacy mode. With it on, a bot in a group gets only commands (a
        message starting with "/"), replies to its own messages, and messages that mention
        it by @username; service messages it always gets. A bot that is an administrator
        of the group, or has privacy mode off, gets every message. Private chats: all."""
        if self._chat_json(message.chat_id)["type"] not in {"group", "supergroup"}:
            return True
        if not self.privacy_mode:
            return True
        if self._member_status_of(message.chat_id, self.bot_id) in {"administrator", "creator"}:
            return True
        words = message.text if message.text is not None else message.caption or ""
        if words.startswith("/"):
            return True
        if f"@{self.bot_username}".casefold() in words.casefold():
            return True
        answered = self.messages.get(message.chat_id, {}).get(message.reply_to_message_id or 0)
        return answered is not None and answered.from_bot

    def user_presses(
        self,
        chat_id: int,
        user_id: int,
        message_id: int,
        callback_data: str,
        *,
        username: str | None = None,
        first_name: str | None = None,
        language_code: str | None = "en",
        forged: bool = False,
    ) -> str:
        """Queue a button press; returns the callback_query id the bot must answer.

        `forged=True` sends data no button showed, as a modified client can.

        Raises LookupError if the message does not currently show that button: a user can only
        press what is on screen, so pressing a removed keyboard is a test bug.
        """
        message = self.messages.get(chat_id, {}).get(message_id)
        if message is None or message.deleted:
            raise LookupError(f"no live message {message_id} in chat {chat_id}")
        if not forged and not _keyboard_has(message.reply_markup, callback_data):
            raise LookupError(
                f"message {message_id} in chat {chat_id} has no button with callback_data "
                f"{callback_data!r}; its markup is {message.reply_markup!r}"
            )
        user = self._remember_user(user_id, username, first_name, language_code)
        query_id = str(next(self._next_query_id))
        self.callback_queries[query_id] = CallbackQueryState(
            query_id, chat_id, message_id, user_id, callback_data
        )
        self._push(
            {
                "callback_query": {
                    "id": query_id,
                    "from": user.to_json(),
                    "message": self._message_json(message),
                    "chat_instance": str(abs(chat_id) * 7919 % 10**12),
                    "data": callback_data,
                }
            }
        )
        return query_id

    def user_joins_group(
        self,
        chat_id: int,
        user_id: int,
        *,
        chat_title: str = "Test group",
        chat_type: str = "group",
        username: str | None = None,
        first_name: str | None = None,
    ) -> dict[str, Any]:
        """Queue the service message Telegram sends when someone joins a group."""
        user = self._remember_user(user_id, username, first_name, None)
        self._remember_chat(chat_id, chat_type, chat_title, user)
        message = StoredMessage(
            chat_id=chat_id,
            message_id=self._new_message_id(chat_id),
            date=self._now(),
            sender_id=user_id,
            from_bot=False,
            new_chat_member_ids=[user_id],
        )
        self.messages.setdefault(chat_id, {})[message.message_id] = message
        return self._push({"message": self._message_json(message)})

    def group_upgrades(self, chat_id: int, new_chat_id: int, user_id: int) -> dict[str, Any]:
        """A group becomes a supergroup: the old chat says so, and from then on every call
        to its id fails with migrate_to_chat_id, as Telegram's do."""
        user = self._remember_user(user_id, None, None, None)
        old = self._remember_chat(chat_id, "group", None, user)
        self.chats[new_chat_id] = KnownChat(new_chat_id, "supergroup", title=old.title)
        for (chat, member), status in list(self.member_status.items()):
            if chat == chat_id:
                self.member_status[new_chat_id, member] = status
        message = {
            "message_id": self._new_message_id(chat_id),
            "from": user.to_json(),
            "chat": self._chat_json(chat_id),
            "date": self._now(),
            "migrate_to_chat_id": new_chat_id,
        }
        self.migrated_chats[chat_id] = new_chat_id
        return self._push({"message": message})

    def bot_removed_from_group(self, chat_id: int, by_user_id: int) -> dict[str, Any]:
        """An admin removes the bot: sends to the group fail with 403 from now on."""
        self.set_member_status(chat_id, self.bot_id, "kicked")
        by = self._remember_user(by_user_id, None, None, None)
        bot = self._bot_json()
        return self._push(
            {
                "my_chat_member": {
                    "chat": self._chat_json(chat_id),
                    "from": by.to_json(),
                    "date": self._now(),
                    "old_chat_member": _chat_member_json("member", bot),
                    "new_chat_member": _chat_member_json("kicked", bot),
                }
            }
        )

    def user_blocks_bot(self, user_id: int) -> dict[str, Any]:
        """Block the private chat and queue the my_chat_member update Telegram sends."""
        self.block(user_id)
        return self._push_my_chat_member(user_id, "member", "kicked")

    def user_unblocks_bot(self, user_id: int) -> dict[str, Any]:
        self.unblock(user_id)
        return self._push_my_chat_member(user_id, "kicked", "member")

    async def post_update_to_webhook(
        self,
        url: str,
        update: dict[str, Any],
        *,
        secret_token: str | _Stored | None = USE_STORED_SECRET,
    ) -> int:
        """POST an update to the bot's webhook server as Telegram does; returns the status.

        By default the header carries the secret given to setWebhook; pass a string to send
        another (to test rejection) or None to omit the header.
        """
        if self._session is None:
            raise RuntimeError("FakeTelegram is not started")
        if isinstance(secret_token, _Stored):
            secret_token = self.webhook.secret_token if self.webhook else None
        headers = {"Content-Type": "application/json"}
        if secret_token is not None:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret_token
        async with self._session.post(url, data=json.dumps(update), headers=headers) as response:
            await response.read()
            return response.status

    # ------------------------------------------------------------------ HTTP plumbing

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        file_match = _FILE_PATH.fullmatch(request.path)
        if file_match is not None:
            return self._serve_file(file_match["token"], file_match["path"])
        match = _API_PATH.fullmatch(request.path)
        if match is None:
            return web.json_response(ApiError(404, "Not Found").body(), status=404)
        name = self._canonical.get(match["method"].lower(), match["method"])
        call = RecordedCall(
            method=name,
            params={},
            time=self.clock(),
            http_method=request.method,
            content_type=request.content_type,
            arrived=self._flood_clock(),
        )
        self.calls.append(call)
        try:
            read_error: ApiError | None = None
            try:
                call.params = await self._read_params(request)
            except ApiError as exc:
                read_error = exc  # the token is checked first, as Telegram does
            self._check_token(match["token"])
            if read_error is not None:
                raise read_error
            handler = self._methods.get(name)
            if handler is None:
                raise ApiError(404, "Not Found")
            call.params = params = _coerce_params(call.params)
            await self._apply_faults(call)
            body: dict[str, Any] = {"ok": True, "result": await handler(params)}
            status = 200
        except ApiError as exc:
            status, body = exc.status, exc.body()
        except ConnectionError:
            # The client went away mid-request (a killed bot process): nothing to answer.
            call.status = 499
            self._call_event.set()
            self._call_event = asyncio.Event()
            raise
        except Exception as exc:
            # A bug in the fake must not pass for a Telegram outage; close() re-raises it.
            self.internal_errors.append(exc)
            status, body = 500, ApiError(500, f"FakeTelegram internal error: {exc!r}").body()
        call.status, call.response = status, body
        self._call_event.set()
        self._call_event = asyncio.Event()
        return web.json_response(body, status=status)

    def _check_token(self, token: str) -> None:
        if token != self.token:
            # Telegram: a well-formed but wrong token is 401, a malformed one 404.
            if _TOKEN_SHAPE.fullmatch(token):
                raise ApiError(401, "Unauthorized")
            raise ApiError(404, "Not Found")

    async def _read_params(self, request: web.Request) -> dict[str, Any]:
        raw: dict[str, Any] = dict(request.query)
        if not request.body_exists:
            return raw
        if request.content_type == "application/json":
            try:
                body = json.loads(await request.read())
            except ValueError as exc:
                raise _bad("can't parse JSON encoded request body") from exc
            if not isinstance(body, dict):
                raise _bad("JSON encoded request body must be an object")
            raw.update(body)
        elif request.content_type in {"application/x-www-form-urlencoded", "multipart/form-data"}:
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    raw[key] = UploadedFile(
                        key, value.filename, value.content_type, value.file.read()
                    )
                else:
                    raw[key] = value
        else:
            raise _bad(f"unsupported Content-Type {request.content_type!r}")
        return raw

    def _serve_file(self, token: str, path: str) -> web.StreamResponse:
        stored = next((f for f in self.files.values() if f.file_path == path), None)
        if token != self.token or stored is None:
            return web.json_response(ApiError(404, "Not Found").body(), status=404)
        return web.Response(body=stored.data)

    async def _apply_faults(self, call: RecordedCall) -> None:
        fault = next(
            (f for f in self.faults if f.matches(call.method, call.params.get("chat_id"))), None
        )
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
        if fault.status is not None:
            raise ApiError(fault.status, fault.description, fault.parameters)

    # ------------------------------------------------------------------ internals

    def _now(self) -> int:
        return int(self.clock())

    def _bot_json(self) -> dict[str, Any]:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def _new_message_id(self, chat_id: int) -> int:
        # One counter per chat, shared by user and bot messages, as in Telegram.
        self._last_message_id[chat_id] = self._last_message_id.get(chat_id, 0) + 1
        return self._last_message_id[chat_id]

    def _remember_user(
        self,
        user_id: int,
        username: str | None,
        first_name: str | None,
        language_code: str | None,
    ) -> KnownUser:
        user = self.users.get(user_id) or KnownUser(user_id, first_name or f"User{user_id}")
        user.username = username or user.username
        user.first_name = first_name or user.first_name
        user.language_code = language_code or user.language_code
        self.users[user_id] = user
        return user

    def _remember_chat(
        self, chat_id: int, chat_type: str, title: str | None, user: KnownUser
    ) -> KnownChat:
        if chat_type == "private" and chat_id != user.id:
            raise ValueError("in a private chat the chat id equals the user id")
        if chat_type not in {"private", "group", "supergroup", "channel"}:
            raise ValueError(f"unknown chat type {chat_type!r}")
        chat = self.chats.get(chat_id)
        if chat is None or chat.type != chat_type:
            chat = KnownChat(chat_id, chat_type, title=title)
            self.chats[chat_id] = chat
        if chat_type == "private":
            chat.first_name, chat.username = user.first_name, user.username
        return chat

    def _chat_json(self, chat_id: int) -> dict[str, Any]:
        chat = self.chats.get(chat_id) or KnownChat(chat_id, _infer_chat_type(chat_id))
        return chat.to_json()

    def _user_json(self, user_id: int) -> dict[str, Any]:
        if user_id == self.bot_id:
            return self._bot_json()
        user = self.users.get(user_id) or KnownUser(user_id, f"User{user_id}")
        return user.to_json()

    def _message_json(self, message: StoredMessage) -> dict[str, Any]:
        data: dict[str, Any] = {
            "message_id": message.message_id,
            "from": self._user_json(message.sender_id),
            "chat": self._chat_json(message.chat_id),
            "date": message.date,
        }
        if message.sender_chat_id is not None:
            data["sender_chat"] = self._chat_json(message.sender_chat_id)
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if message.text is not None:
            data["text"] = message.text
            if message.entities:
                data["entities"] = message.entities
        if message.photo_file_id is not None:
            stored = self.files[message.photo_file_id]
            data["photo"] = [
                {
                    "file_id": stored.file_id,
                    "file_unique_id": stored.file_unique_id,
                    "width": stored.width,
                    "height": stored.height,
                    "file_size": len(stored.data),
                }
            ]
            if message.caption:
                data["caption"] = message.caption
                if message.caption_entities:
                    data["caption_entities"] = message.caption_entities
        if message.media_kind is not None:
            data.update(self._user_media_json(message))
        if message.reply_to_message_id is not None:
            answered = self.messages[message.chat_id][message.reply_to_message_id]
            # Telegram nests the answered message one level deep only.
            data["reply_to_message"] = {
                key: value
                for key, value in self._message_json(answered).items()
                if key != "reply_to_message"
            }
        if message.new_chat_member_ids:
            data["new_chat_members"] = [self._user_json(u) for u in message.new_chat_member_ids]
        if message.reply_markup is not None:
            data["reply_markup"] = message.reply_markup
        return data

    def _user_media_json(self, message: StoredMessage) -> dict[str, Any]:
        file_id = f"user-{message.media_kind}-{message.chat_id}-{message.message_id}"
        unique = f"u{abs(message.chat_id)}m{message.message_id}"
        data: dict[str, Any]
        if message.media_kind == "photo":
            size = {"file_id": file_id, "file_unique_id": unique, "width": 640, "height": 480}
            data = {"photo": [size]}
        elif message.media_kind == "video":
            video = {"file_id": file_id, "file_unique_id": unique, "width": 640, "height": 480}
            data = {"video": {**video, "duration": 3}}
        else:
            data = {"document": {"file_id": file_id, "file_unique_id": unique}}
        if message.caption:
            data["caption"] = message.caption
            if message.caption_entities:
                data["caption_entities"] = message.caption_entities
        return data

    def _push(self, payload: dict[str, Any]) -> dict[str, Any]:
        update = {"update_id": next(self._next_update_id), **payload}
        # With a webhook set Telegram pushes instead of queueing; the test delivers it with
        # post_update_to_webhook, so queueing it too would replay it after deleteWebhook.
        if self.webhook is None:
            self.updates.append(update)
            self._wake_pollers()
        return update

    def _push_my_chat_member(self, user_id: int, old: str, new: str) -> dict[str, Any]:
        user = self._remember_user(user_id, None, None, None)
        self._remember_chat(user_id, "private", None, user)
        bot = self._bot_json()
        return self._push(
            {
                "my_chat_member": {
                    "chat": self._chat_json(user_id),
                    "from": user.to_json(),
                    "date": self._now(),
                    "old_chat_member": _chat_member_json(old, bot),
                    "new_chat_member": _chat_member_json(new, bot),
                }
            }
        )

    def _wake_pollers(self) -> None:
        self._update_event.set()
        self._update_event = asyncio.Event()

    def _target_chat(self, params: dict[str, Any], method: str) -> int:
        """The chat a call addresses, with Telegram's reachability checks."""
        raw = params.get("chat_id")
        if raw is None or raw == "":
            raise _bad("chat_id is empty")
        if isinstance(raw, str):  # "@username"; numeric strings were typed already
            wanted = raw[1:].lower()
            chat = next(
                (c for c in self.chats.values() if (c.username or "").lower() == wanted), None
            )
            if chat is None:
                raise _bad("chat not found")
            raw = chat.id
        if raw not in self.chats:
            if self.known_chats_only:
                raise _bad("chat not found")
            self.chats[raw] = KnownChat(raw, _infer_chat_type(raw))
        if raw in self.migrated_chats:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": self.migrated_chats[raw]},
            )
        if method in _WRITE_METHODS and raw in self.blocked_chats:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        if method in _WRITE_METHODS and self.chats[raw].type in {"group", "supergroup"}:
            self._check_bot_may_post(raw)
        return int(raw)

    def _check_flood(self, chat_id: int) -> None:
        """With flood_limits: 30 messages a second for the bot, about one a second (a
        burst allowed) in a private chat; then the group limit, which always holds."""
        if self.flood_limits:
            wait = self._bot_flood.arrive()
            if wait is None and self.chats[chat_id].type == "private":
                bucket = self._private_flood.get(chat_id)
                if bucket is None:
                    bucket = TokenBucket(PRIVATE_BURST, PRIVATE_PER_SECOND, self._flood_clock)
                    self._private_flood[chat_id] = bucket
                wait = bucket.arrive()
            if wait is not None:
                self.flood_refused += 1
                retry = whole_seconds(wait)
                raise ApiError(
                    429, f"Too Many Requests: retry after {retry}", {"retry_after": retry}
                )
        self._check_group_flood(chat_id)

    def _check_group_flood(self, chat_id: int) -> None:
        """Telegram's documented flood limit: about 20 messages a minute in one group."""
        if self.chats[chat_id].type not in {"group", "supergroup"}:
            return
        now, window = time.monotonic(), self.group_window_seconds
        recent = [at for at in self._group_posts.get(chat_id, []) if now - at < window]
        if len(recent) >= GROUP_MESSAGES_PER_MINUTE:
            wait = int(window - (now - recent[0])) + 1
            self.flood_refused += 1
            raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
        self._group_posts[chat_id] = [*recent, now]

    def _check_bot_may_post(self, chat_id: int) -> None:
        """What Telegram answers a bot that was removed from a group or may not write there."""
        status = self._member_status_of(chat_id, self.bot_id)
        kind = self.chats[chat_id].type
        if status == "kicked":
            raise ApiError(403, f"Forbidden: bot was kicked from the {kind} chat")
        if status == "left":
            raise ApiError(403, f"Forbidden: bot is not a member of the {kind} chat")
        if status == "restricted":
            raise _bad("not enough rights to send text messages to the chat")

    def _formatted(
        self, raw: Any, parse_mode: Any, entities: Any
    ) -> tuple[str, list[dict[str, Any]]]:
        text = raw if isinstance(raw, str) else json.dumps(raw)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _bad("strings must be encoded in UTF-8") from exc
        mode = parse_mode.lower() if isinstance(parse_mode, str) else ""
        if mode == "html":
            try:
                plain, found = parse_html(text, strict=self.strict_html)
            except HtmlParseError as exc:
                raise _bad(f"can't parse entities: {exc}") from exc
        elif mode in {"markdown", "markdownv2"}:
            raise _bad("unsupported parse_mode: FakeTelegram implements HTML only")
        elif mode:
            raise _bad("unsupported parse_mode")
        else:
            plain, found = text, list(entities) if isinstance(entities, list) else []
        return trim_entities(plain, found)

    def _live_message(self, params: dict[str, Any], chat_id: int, action: str) -> StoredMessage:
        if "message_id" not in params:
            if params.get("inline_message_id"):
                raise _bad("inline messages are not supported by FakeTelegram")
            raise _bad("message identifier is not specified")
        message = self.messages.get(chat_id, {}).get(params["message_id"])
        if message is None or message.deleted:
            raise _bad(f"message to {action} not found")
        return message

    def _store_bot_message(self, chat_id: int, **fields: Any) -> StoredMessage:
        message = StoredMessage(
            chat_id=chat_id,
            message_id=self._new_message_id(chat_id),
            date=self._now(),
            sender_id=self.bot_id,
            from_bot=True,
            **fields,
        )
        self.messages.setdefault(chat_id, {})[message.message_id] = message
        return message

    def _member_status_of(self, chat_id: int, user_id: int) -> str:
        return self.member_status.get((chat_id, user_id), "member")

    # ------------------------------------------------------------------ methods

    async def _get_me(self, params: dict[str, Any]) -> Any:
        return {
            **self._bot_json(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    async def _get_updates(self, params: dict[str, Any]) -> Any:
        if self.webhook is not None:
            raise ApiError(409, WEBHOOK_CONFLICT)
        offset = params.get("offset", 0)
        if offset > 0:  # confirms everything before it
            self.updates = [u for u in self.updates if u["update_id"] >= offset]
        elif offset < 0:  # keep only the last -offset updates, forget the rest
            self.updates = self.updates[offset:]
        limit = min(max(params.get("limit") or 100, 1), 100)
        timeout = max(params.get("timeout", 0), 0)
        if "allowed_updates" in params:  # kept until changed, as in Telegram
            self.allowed_updates = list(params["allowed_updates"] or [])
        # A newer getUpdates ends an older one with 409, so two pollers show up in tests.
        self._poll_generation += 1
        generation = self._poll_generation
        self._wake_pollers()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(409, POLL_CONFLICT)
            if self.webhook is not None:
                raise ApiError(409, WEBHOOK_CONFLICT)
            batch = [u for u in self.updates if self._wanted(u)][:limit]
            remaining = deadline - loop.time()
            if batch or remaining <= 0 or self._closing.is_set():
                self.handed_over.update(update["update_id"] for update in batch)
                return batch
            event = self._update_event
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)

    def all_handed_over(self) -> bool:
        """Every queued update the bot asked for has been given to it."""
        return all(u["update_id"] in self.handed_over for u in self.updates if self._wanted(u))

    def _wanted(self, update: dict[str, Any]) -> bool:
        kind = next(key for key in update if key != "update_id")
        if self.allowed_updates:
            return kind in self.allowed_updates
        return kind not in _OPT_IN_UPDATE_TYPES

    async def _set_webhook(self, params: dict[str, Any]) -> Any:
        url = params.get("url") or ""
        if not url:  # an empty url removes the webhook
            return await self._delete_webhook(params)
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "https" or not parts.hostname:
            raise _bad("bad webhook: An HTTPS URL must be provided for webhook")
        try:
            port = parts.port or 443
        except ValueError as exc:
            raise _bad("bad webhook: Failed to resolve host") from exc
        if port not in {80, 88, 443, 8443}:
            raise _bad("bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443")
        secret = params.get("secret_token")
        if secret is not None and not _SECRET_TOKEN.fullmatch(secret):
            raise _bad("secret token contains unallowed characters or has a wrong length")
        if params.get("drop_pending_updates"):
            self.updates.clear()
        self.webhook = WebhookState(
            url=url,
            secret_token=secret,
            allowed_updates=params.get("allowed_updates"),
            max_connections=params.get("max_connections", 40),
        )
        self._wake_pollers()  # a pending long poll now ends with 409
        return True

    async def _delete_webhook(self, params: dict[str, Any]) -> Any:
        self.webhook = None
        if params.get("drop_pending_updates"):
            self.updates.clear()
        return True

    async def _get_webhook_info(self, params: dict[str, Any]) -> Any:
        info: dict[str, Any] = {
            "url": self.webhook.url if self.webhook else "",
            "has_custom_certificate": False,
            "pending_update_count": 0 if self.webhook else len(self.updates),
        }
        if self.webhook is not None:
            info["max_connections"] = self.webhook.max_connections
        return info

    async def _send_message(self, params: dict[str, Any]) -> Any:
        chat_id = self._target_chat(params, "sendMessage")
        self._check_flood(chat_id)
        if "text" not in params:
            raise _bad("message text is empty")
        text, entities = self._formatted(
            params["text"], params.get("parse_mode"), params.get("entities")
        )
        if not text:
            raise _bad("message text is empty")
        if utf16_len(text) > MAX_TEXT_UTF16:
            raise _bad("message is too long")
        markup = _inline_markup(params.get("reply_markup"))
        message = self._store_bot_message(
            chat_id,
            text=text,
            entities=entities,
            raw_text=params["text"],
            parse_mode=params.get("parse_mode"),
            reply_markup=markup,
            reply_to_message_id=self._answered(params, chat_id),
        )
        return self._message_json(message)

    def _answered(self, params: dict[str, Any], chat_id: int) -> int | None:
        """The message a send replies to (reply_parameters, or the older
        reply_to_message_id), refused as Telegram does when it is not in the chat."""
        reply = params.get("reply_parameters")
        wanted = reply.get("message_id") if isinstance(reply, dict) else None
        wanted = wanted if wanted is not None else params.get("reply_to_message_id")
        if wanted is None:
            return None
        if int(wanted) not in self.messages.get(chat_id, {}):
            raise _bad("message to be replied not found")
        return int(wanted)

    async def _edit_message_text(self, params: dict[str, Any]) -> Any:
        chat_id = self._target_chat(params, "editMessageText")
        message = self._live_message(params, chat_id, "edit")
        if not message.from_bot:
            raise _bad("message can't be edited")
        if message.text is None:
            raise _bad("there is no text in the message to edit")
        if "text" not in params:
            raise _bad("text must be non-empty")
        text, entities = self._formatted(
            params["text"], params.get("parse_mode"), params.get("entities")
        )
        if not text:
            raise _bad("text must be non-empty")
        if utf16_len(text) > MAX_TEXT_UTF16:
            raise _bad("MESSAGE_TOO_LONG")  # the edit path reports the raw MTProto error
        # Omitting reply_markup removes the keyboard; Telegram does the same, often to
        # the surprise of bots that meant to keep it.
        markup = _inline_markup(params.get("reply_markup"))
        if (text, entities, markup) == (message.text, message.entities, message.reply_markup):
            raise _bad(NOT_MODIFIED)
        message.previous_texts.append(message.text)
        message.text, message.entities, message.reply_markup = text, entities, markup
        message.raw_text, message.parse_mode = params["text"], params.get("parse_mode")
        message.edit_date = self._now()
        return self._message_json(message)

    async def _edit_message_reply_markup(self, params: dict[str, Any]) -> Any:
        chat_id = self._target_chat(params, "editMessageReplyMarkup")
        message = self._live_message(params, chat_id, "edit")
        if not message.from_bot:
            raise _bad("message can't be edited")
        markup = _inline_markup(params.get("reply_markup"))
        if markup == message.reply_markup:
            raise _bad(NOT_MODIFIED)
        message.reply_markup = markup
        message.edit_date = self._now()
        return self._message_json(message)

    async def _delete_message(self, params: dict[str, Any]) -> Any:
        chat_id = self._target_chat(params, "deleteMessage")
        message = self._live_message(params, chat_id, "delete")
        chat_type = self.chats[chat_id].type
        # Bots delete their own messages anywhere, incoming ones in private chats, and
        # others' messages in groups only as an admin.
        if (
            not message.from_bot
            and chat_type != "private"
            and self._member_status_of(chat_id, self.bot_id) not in {"administrator", "creator"}
        ):
            raise _bad("message can't be deleted")
        if self.clock() - message.date > DELETE_WINDOW_SECONDS:
            raise _bad("message can't be deleted for everyone")
        message.deleted = True
        return True

    async def _send_photo(self, params: dict[str, Any]) -> Any:
        chat_id = self._target_chat(params, "sendPhoto")
        self._check_flood(chat_id)
        stored = self._photo_file(params)
        caption, caption_entities = self._formatted(
            params.get("caption", ""), params.get("parse_mode"), params.get("caption_entities")
        )
        if utf16_len(caption) > MAX_CAPTION_UTF16:
            raise _bad("message caption is too long")
        markup = _inline_markup(params.get("reply_markup"))
        message = self._store_bot_message(
            chat_id,
            caption=caption or None,
            caption_entities=caption_entities,
            photo_file_id=stored.file_id,
            parse_mode=params.get("parse_mode"),
            reply_markup=markup,
        )
        return self._message_json(message)

    def _photo_file(self, params: dict[str, Any]) -> StoredFile:
        photo = params.get("photo")
        if isinstance(photo, str) and photo.startswith("attach://"):
            photo = params.get(photo.removeprefix("attach://"))
        if isinstance(photo, UploadedFile):
            if not photo.data:
                raise _bad("file must be non-empty")
            if not photo.data.startswith(_IMAGE_MAGICS):
                raise _bad("IMAGE_PROCESS_FAILED")
            return self._store_file(photo.data)
        if isinstance(photo, str) and photo in self.files:
            return self.files[photo]
        if isinstance(photo, str) and photo.startswith(("http://", "https://")):
            return self._store_file(_PNG_MAGIC)  # Telegram would download it; we pretend
        if photo is None or photo == "":
            raise _bad("there is no photo in the request")
        raise _bad("wrong file identifier/HTTP URL specified")

    def _store_file(self, data: bytes) -> StoredFile:
        number = next(self._next_file)
        width, height = _image_size(data)
        stored = StoredFile(
            file_id=f"AgACAgFAKE{number:06d}",
            file_unique_id=f"AQADFAKE{number:06d}",
            file_path=f"photos/file_{number}.jpg",
            data=data,
            width=width,
            height=height,
        )
        self.files[stored.file_id] = stored
        return stored

    async def _get_file(self, params: dict[str, Any]) -> Any:
        stored = self.files.get(params.get("file_id", ""))
        if stored is None:
            raise _bad("wrong file_id or the file is temporarily unavailable")
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": len(stored.data),
            "file_path": stored.file_path,
        }

    async def _send_chat_action(self, params: dict[str, Any]) -> Any:
        self._target_chat(params, "sendChatAction")
        if params.get("action") not in _CHAT_ACTIONS:
            raise _bad("wrong parameter action in request")
        return True

    async def _answer_callback_query(self, params: dict[str, Any]) -> Any:
        query = self.callback_queries.get(str(params.get("callback_query_id", "")))
        if query is None or query.answered:
            raise _bad(QUERY_TOO_OLD)
        text = params.get("text")
        if text is not None and utf16_len(str(text)) > MAX_CALLBACK_ANSWER_UTF16:
            raise _bad("MESSAGE_TOO_LONG")  # wording approximated
        query.answered = True
        query.answer_text = text
        query.show_alert = bool(params.get("show_alert", False))
        return True

    def _commands_key(self, params: dict[str, Any]) -> tuple[str, str]:
        language = params.get("language_code") or ""
        if language and not _LANGUAGE_CODE.fullmatch(language):
            raise _bad("invalid language code specified")
        scope = params.get("scope")
        if scope is None:
            return "default", language
        if not isinstance(scope, dict) or scope.get("type") not in _SCOPE_TYPES:
            raise _bad("can't parse BotCommandScope JSON object")
        kind = scope["type"]
        if kind in {"chat", "chat_administrators"}:
            return f"{kind}:{scope.get('chat_id')}", language
        if kind == "chat_member":
            return f"{kind}:{scope.get('chat_id')}:{scope.get('user_id')}", language
        return kind, language

    async def _set_my_commands(self, params: dict[str, Any]) -> Any:
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise _bad("can't parse commands JSON object")
        if len(commands) > MAX_COMMANDS:
            raise _bad("too many commands specified")
        specs = []
        for command in commands:
            if not isinstance(command, dict):
                raise _bad("can't parse BotCommand JSON object")
            name, description = command.get("command"), command.get("description")
            if not isinstance(name, str) or not _COMMAND_NAME.fullmatch(name):
                raise _bad("BOT_COMMAND_INVALID")
            if not isinstance(description, str) or not (
                len(description.strip()) >= 1 and len(description) <= MAX_COMMAND_DESCRIPTION
            ):
                raise _bad("BOT_COMMAND_DESCRIPTION_INVALID")  # wording approximated
            specs.append(BotCommandSpec(name, description))
        self.commands[self._commands_key(params)] = specs
        return True

    async def _get_my_commands(self, params: dict[str, Any]) -> Any:
        specs = self.commands.get(self._commands_key(params), [])
        return [{"command": s.command, "description": s.description} for s in specs]

    async def _delete_my_commands(self, params: dict[str, Any]) -> Any:
        self.commands.pop(self._commands_key(params), None)
        return True

    async def _get_chat_member(self, params: dict[str, Any]) -> Any:
        chat_id = self._target_chat(params, "getChatMember")
        if "user_id" not in params:
            raise _bad("user_id is empty")
        user_id = params["user_id"]
        status = self._member_status_of(chat_id, user_id)
        return _chat_member_json(status, self._user_json(user_id))
