"""The Telegram fake, driven by the real python-telegram-bot ``Bot`` over real HTTP.

These tests pin down that the fake rejects what Telegram rejects and that PTB can parse what
it answers; the bot's own Telegram tests build on both.
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import struct
import time
import zlib
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from telegram import (
    Bot,
    BotCommand,
    ChatMemberAdministrator,
    ChatMemberMember,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    MessageEntity,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TimedOut,
)
from telegram.request import HTTPXRequest

from tests.fakes.telegram_api import FakeTelegram, UploadedFile
from tests.fakes.telegram_html import parse_html

CHAT = 4242  # a private chat: chat id == user id


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake


def make_bot(tg: FakeTelegram, token: str | None = None, **request_kwargs: float) -> Bot:
    request = HTTPXRequest(**request_kwargs) if request_kwargs else None
    return Bot(
        token or tg.token,
        base_url=f"{tg.url}/bot",
        base_file_url=f"{tg.url}/file/bot",
        request=request,
    )


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[Bot]:
    async with make_bot(tg) as started:  # initialize() calls getMe
        yield started


def keyboard(*data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(d, callback_data=d) for d in data]])


def tiny_png() -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 3, 2, 8, 0, 0, 0, 0)  # 3x2 greyscale
    pixels = zlib.compress(b"\x00\x00\x00\x00" * 2)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


async def test_get_me_describes_the_bot(tg: FakeTelegram, bot: Bot) -> None:
    me = await bot.get_me()

    assert (me.id, me.username, me.is_bot) == (tg.bot_id, tg.bot_username, True)
    assert [c.status for c in tg.calls_to("getMe")] == [200, 200]
    # PTB posts form-encoded bodies to {base_url}{token}/{method}.
    assert tg.calls[0].http_method == "POST"


async def test_wrong_token_and_unknown_method_are_refused(tg: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(InvalidToken, match="was rejected by the server"):
        async with make_bot(tg, token="999:wrong-token"):  # initialize() calls getMe
            pass
    assert tg.calls[-1].response == {"ok": False, "error_code": 401, "description": "Unauthorized"}
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendTelepathy")
    assert tg.calls_to("sendTelepathy")[0].status == 404


async def test_valid_html_is_parsed_into_entities(tg: FakeTelegram, bot: Bot) -> None:
    html = '<b>Hi</b> &amp; <i>there</i> &lt;3 <a href="https://example.org/?a=1&amp;b=2">x</a>'

    sent = await bot.send_message(CHAT, html, parse_mode=ParseMode.HTML)

    assert sent.text == "Hi & there <3 x"
    assert [(e.type, e.offset, e.length) for e in sent.entities] == [
        (MessageEntity.BOLD, 0, 2),
        (MessageEntity.ITALIC, 5, 5),
        (MessageEntity.TEXT_LINK, 14, 1),
    ]
    assert sent.entities[2].url == "https://example.org/?a=1&b=2"
    stored = tg.messages[CHAT][sent.message_id]
    assert (stored.text, stored.raw_text, stored.from_bot) == (sent.text, html, True)
    assert tg.sent_texts(CHAT) == ["Hi & there <3 x"]
    call = tg.calls_to("sendMessage")[0]
    assert call.params["chat_id"] == CHAT  # typed back from PTB's form-encoded "4242"
    assert call.content_type == "application/x-www-form-urlencoded"


@pytest.mark.parametrize(
    ("html", "error"),
    [
        ("<b>unclosed", 'Can\'t find end tag corresponding to start tag "b"'),
        ("1 < 2", 'Unsupported start tag "" at byte offset 2'),
        ("<blink>x</blink>", 'Unsupported start tag "blink" at byte offset 0'),
        ("<b><i>x</b></i>", 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'),
        ("x</b>", "Unexpected end tag at byte offset 1"),
        ("fish &chips", 'Unescaped "&" at byte offset 5'),
        ("&foo; bar", 'Unsupported HTML entity "&foo;" at byte offset 0'),
        ("a &lt b", 'HTML entity "&lt" must end with ";" at byte offset 2'),
        ("a > b", 'Unescaped ">" at byte offset 2'),
        ('<span class="x">y</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
    ],
)
async def test_malformed_html_is_rejected(
    tg: FakeTelegram, bot: Bot, html: str, error: str
) -> None:
    with pytest.raises(BadRequest, match=r"^Can't parse entities: "):
        await bot.send_message(CHAT, html, parse_mode=ParseMode.HTML)

    # PTB strips "Bad Request: " and re-capitalises the rest, so compare the wire text.
    call = tg.calls_to("sendMessage")[0]
    assert call.response == {
        "ok": False,
        "error_code": 400,
        "description": f"Bad Request: can't parse entities: {error}",
    }
    assert tg.messages.get(CHAT, {}) == {}


async def test_plain_text_is_not_parsed_and_markdown_is_refused(bot: Bot) -> None:
    sent = await bot.send_message(CHAT, "1 < 2 & <b>")
    assert sent.text == "1 < 2 & <b>"

    with pytest.raises(BadRequest, match="parse_mode"):
        await bot.send_message(CHAT, "*hi*", parse_mode=ParseMode.MARKDOWN_V2)


def test_parser_can_be_as_lenient_as_telegram() -> None:
    # Telegram itself keeps unknown entities, bare "&" and ">" as text.
    assert parse_html("&foo; & > &lt", strict=False) == ("&foo; & > <", [])


async def test_length_limit_counts_utf16_units_after_parsing(tg: FakeTelegram, bot: Bot) -> None:
    await bot.send_message(CHAT, "a" * 4096)
    await bot.send_message(CHAT, "😀" + "a" * 4094)  # the emoji is two UTF-16 units: 4096
    await bot.send_message(CHAT, "<b>" + "a" * 4096 + "</b>", parse_mode=ParseMode.HTML)
    for too_long in ("a" * 4097, "😀" + "a" * 4095):
        with pytest.raises(BadRequest, match=r"(?i)message is too long"):
            await bot.send_message(CHAT, too_long)
    with pytest.raises(BadRequest, match=r"(?i)message text is empty"):
        await bot.send_message(CHAT, "<b> </b>", parse_mode=ParseMode.HTML)

    assert len(tg.sent_texts(CHAT)) == 3


async def test_callback_data_is_limited_to_64_bytes(tg: FakeTelegram, bot: Bot) -> None:
    await bot.send_message(CHAT, "ok", reply_markup=keyboard("x" * 64))
    for data in ("x" * 65, "é" * 33):  # 33 characters but 66 UTF-8 bytes
        with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
            await bot.send_message(CHAT, "too long", reply_markup=keyboard(data))

    text_only = InlineKeyboardMarkup([[InlineKeyboardButton("no action")]])
    with pytest.raises(BadRequest, match=r"(?i)text buttons are unallowed"):
        await bot.send_message(CHAT, "x", reply_markup=text_only)
    assert tg.sent_texts(CHAT) == ["ok"]


async def test_blocked_chat_is_forbidden(tg: FakeTelegram, bot: Bot) -> None:
    tg.block(CHAT)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(CHAT, "hello?")
    tg.unblock(CHAT)

    fault = tg.inject_blocked(CHAT)  # one-shot
    with pytest.raises(Forbidden):
        await bot.send_message(CHAT, "hello?")
    await bot.send_message(CHAT, "hello again")

    assert fault.hits == 1
    assert tg.faults == []


async def test_flood_limit_raises_retry_after(
    tg: FakeTelegram, bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "true")  # PTB 22's non-deprecated retry_after type
    tg.inject_retry_after(7, method="sendMessage", times=2)

    for _ in range(2):
        with pytest.raises(RetryAfter) as caught:
            await bot.send_message(CHAT, "hi")
        assert caught.value.retry_after == dtm.timedelta(seconds=7)
    await bot.send_message(CHAT, "hi")

    assert [c.status for c in tg.calls_to("sendMessage")] == [429, 429, 200]
    assert tg.calls_to("sendMessage")[0].response == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 7",
        "parameters": {"retry_after": 7},
    }


async def test_upgraded_group_raises_chat_migrated(tg: FakeTelegram, bot: Bot) -> None:
    tg.inject_migrate(-555, -1_000_000_000_555, times=None)

    for _ in range(2):
        with pytest.raises(ChatMigrated) as caught:
            await bot.send_message(-555, "hi all")
        assert caught.value.new_chat_id == -1_000_000_000_555
    sent = await bot.send_message(-1_000_000_000_555, "hi all")

    assert sent.chat.type == "supergroup"


async def test_server_error_and_stall(tg: FakeTelegram) -> None:
    async with make_bot(tg, read_timeout=0.2) as bot:
        tg.inject_server_error()
        with pytest.raises(NetworkError, match="Internal Server Error"):
            await bot.send_message(CHAT, "one")

        tg.inject_stall(0.5, method="sendMessage")
        with pytest.raises(TimedOut):
            await bot.send_message(CHAT, "two")
        # The client gave up, but the server still delivered it: the duplicate-send risk.
        await tg.wait_for(lambda c: c.method == "sendMessage" and c.ok, timeout=2)
        assert tg.sent_texts(CHAT) == ["two"]


async def test_edits_keep_state_and_refuse_no_ops(tg: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_message(
        CHAT, "<b>Pick</b>", parse_mode="HTML", reply_markup=keyboard("a")
    )

    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_text(
            "<strong>Pick</strong>",
            CHAT,
            sent.message_id,
            parse_mode="HTML",
            reply_markup=keyboard("a"),
        )
    edited = await bot.edit_message_text("Picked", CHAT, sent.message_id)

    stored = tg.messages[CHAT][sent.message_id]
    assert (edited.text, stored.text, stored.previous_texts) == ("Picked", "Picked", ["Pick"])
    assert stored.reply_markup is None  # omitting reply_markup removes the keyboard
    assert edited.edit_date is not None
    assert tg.sent_texts(CHAT) == ["Pick"]
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await bot.edit_message_text("x", CHAT, 999)


async def test_delete_respects_existence_and_the_48_hour_window() -> None:
    now = [time.time()]
    async with FakeTelegram(clock=lambda: now[0]) as tg, make_bot(tg) as bot:
        old = await bot.send_message(CHAT, "old")
        fresh = await bot.send_message(CHAT, "fresh")
        now[0] += 48 * 3600 + 1
        latest = await bot.send_message(CHAT, "latest")

        with pytest.raises(BadRequest, match="can't be deleted for everyone"):
            await bot.delete_message(CHAT, old.message_id)
        assert await bot.delete_message(CHAT, latest.message_id)
        with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
            await bot.delete_message(CHAT, latest.message_id)

        assert tg.messages[CHAT][latest.message_id].deleted
        assert not tg.messages[CHAT][fresh.message_id].deleted


async def test_set_my_commands_is_stored_per_language(tg: FakeTelegram, bot: Bot) -> None:
    await bot.set_my_commands([BotCommand("start", "Begin"), BotCommand("help", "Help")])
    await bot.set_my_commands([BotCommand("start", "Beginnen")], language_code="de")
    with pytest.raises(BadRequest, match=r"(?i)bot_command_invalid"):
        await bot.set_my_commands([BotCommand("Start", "Begin")])

    assert [c.command for c in tg.commands_for()] == ["start", "help"]
    assert [c.description for c in tg.commands_for("de")] == ["Beginnen"]
    assert [c.description for c in await bot.get_my_commands(language_code="de")] == ["Beginnen"]


async def test_get_chat_member_reports_the_status_table(tg: FakeTelegram, bot: Bot) -> None:
    tg.set_member_status(-7, 1, "administrator")
    tg.set_member_status(-7, 2, "creator")

    assert isinstance(await bot.get_chat_member(-7, 1), ChatMemberAdministrator)
    assert isinstance(await bot.get_chat_member(-7, 2), ChatMemberOwner)
    assert isinstance(await bot.get_chat_member(-7, 3), ChatMemberMember)


async def test_send_photo_uploads_multipart(tg: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_photo(CHAT, tiny_png(), caption="<i>chart</i>", parse_mode="HTML")

    assert sent.caption == "chart"
    assert (sent.photo[-1].width, sent.photo[-1].height) == (3, 2)
    call = tg.calls_to("sendPhoto")[0]
    assert call.content_type == "multipart/form-data"
    assert isinstance(call.params["photo"], UploadedFile)
    again = await bot.send_photo(CHAT, sent.photo[-1].file_id)  # reuse by file_id
    assert again.photo[-1].file_id == sent.photo[-1].file_id
    with pytest.raises(BadRequest, match="caption is too long"):
        await bot.send_photo(CHAT, tiny_png(), caption="a" * 1025)
    with pytest.raises(BadRequest, match=r"(?i)wrong file identifier"):
        await bot.send_photo(CHAT, "no-such-file-id")


async def test_get_updates_delivers_text_and_button_presses(tg: FakeTelegram, bot: Bot) -> None:
    prompt = await bot.send_message(CHAT, "Ready?", reply_markup=keyboard("yes", "no"))
    tg.user_sends_text(CHAT, CHAT, f"/start@{tg.bot_username} now", username="sam")
    query_id = tg.user_presses(CHAT, CHAT, prompt.message_id, "yes")

    message_update, press_update = await bot.get_updates()

    message = message_update.message
    assert message.text == "/start@steady_test_bot now"
    assert message.from_user.username == "sam"
    assert message.from_user.language_code == "en"
    assert [(e.type, e.offset, e.length) for e in message.entities] == [
        (MessageEntity.BOT_COMMAND, 0, 22)
    ]
    assert message.message_id == prompt.message_id + 1  # one id sequence per chat
    press = press_update.callback_query
    assert (press.id, press.data, press.message.message_id) == (query_id, "yes", prompt.message_id)
    assert press_update.update_id == message_update.update_id + 1

    assert await press.answer(text="Noted")
    assert tg.callback_queries[query_id].answered
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await press.answer()
    with pytest.raises(LookupError):
        tg.user_presses(CHAT, CHAT, prompt.message_id, "maybe")

    # An offset past the last update confirms everything before it.
    assert await bot.get_updates(offset=press_update.update_id + 1) == ()
    assert tg.updates == []


async def test_long_poll_returns_as_soon_as_an_update_arrives(tg: FakeTelegram, bot: Bot) -> None:
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.1)
    assert not poll.done()
    started = asyncio.get_running_loop().time()

    tg.user_sends_text(CHAT, CHAT, "hello")
    (update,) = await asyncio.wait_for(poll, timeout=2)

    assert asyncio.get_running_loop().time() - started < 1
    assert update.message.text == "hello"


async def test_webhook_blocks_polling_and_delivers_with_the_secret(
    tg: FakeTelegram, bot: Bot
) -> None:
    received: list[str | None] = []

    async def hook(request: web.Request) -> web.Response:
        received.append(request.headers.get("X-Telegram-Bot-Api-Secret-Token"))
        return web.Response()

    app = web.Application()
    app.router.add_post("/hook", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        with pytest.raises(BadRequest, match=r"(?i)https url must be provided"):
            await bot.set_webhook("http://bot.example/hook")
        await bot.set_webhook("https://bot.example/hook", secret_token="s3cret")
        with pytest.raises(Conflict, match=r"(?i)webhook is active"):
            await bot.get_updates()

        update = tg.user_sends_text(CHAT, CHAT, "via webhook")
        status = await tg.post_update_to_webhook(f"http://127.0.0.1:{port}/hook", update)

        assert (status, received) == (200, ["s3cret"])
        assert tg.updates == []  # pushed, not queued
    finally:
        await runner.cleanup()


async def test_a_second_poller_ends_the_first_with_conflict(tg: FakeTelegram, bot: Bot) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.05)

    async with make_bot(tg) as second_instance:  # one Bot polls on one connection at a time
        assert await second_instance.get_updates(timeout=0) == ()
    with pytest.raises(Conflict, match="terminated by other getUpdates request"):
        await asyncio.wait_for(first, timeout=2)


async def test_service_updates_parse_in_ptb(tg: FakeTelegram, bot: Bot) -> None:
    tg.user_joins_group(-300, 7, chat_title="Circle")
    tg.user_blocks_bot(8)

    joined, blocked = await bot.get_updates()

    assert joined.message.chat.title == "Circle"
    assert [u.id for u in joined.message.new_chat_members] == [7]
    assert blocked.my_chat_member.new_chat_member.status == "kicked"
    assert 8 in tg.blocked_chats


async def test_a_group_that_removed_or_restricted_the_bot_refuses_its_posts(
    tg: FakeTelegram, bot: Bot
) -> None:
    group = -777
    tg.user_joins_group(group, 11)
    tg.bot_removed_from_group(group, 11)
    with pytest.raises(Forbidden, match="bot was kicked from the group chat"):
        await bot.send_message(group, "hello")
    tg.set_member_status(group, tg.bot_id, "restricted")
    with pytest.raises(BadRequest, match=r"(?i)not enough rights"):
        await bot.send_message(group, "hello")
    tg.set_member_status(group, tg.bot_id, "member")
    assert (await bot.send_message(group, "hello")).text == "hello"


async def test_an_upgraded_group_names_its_new_id_from_then_on(tg: FakeTelegram, bot: Bot) -> None:
    tg.user_joins_group(-778, 11)
    tg.group_upgrades(-778, -1_000_778, 11)
    updates = await bot.get_updates()
    assert updates[-1].message is not None
    assert updates[-1].message.migrate_to_chat_id == -1_000_778
    for _ in range(2):  # not a one-off fault: the old id stays gone
        with pytest.raises(ChatMigrated) as raised:
            await bot.send_message(-778, "hello")
        assert raised.value.new_chat_id == -1_000_778
    assert (await bot.send_message(-1_000_778, "hello")).chat.type == "supergroup"


async def test_edits_and_captions_arrive_as_telegram_sends_them(tg: FakeTelegram, bot: Bot) -> None:
    sent = tg.user_sends_text(CHAT, CHAT, "first words")
    tg.user_edits(CHAT, sent["message"]["message_id"], "second words")
    photo = tg.user_sends_media(CHAT, CHAT, "photo", caption="/not a command here")
    tg.user_sends_media(CHAT, CHAT, "video", caption="a video")
    tg.user_sends_media(CHAT, CHAT, "document")
    tg.user_edits(CHAT, photo["message"]["message_id"], "a new caption")

    first, edited, with_photo, with_video, with_file, recaptioned = await bot.get_updates()

    assert first.message.text == "first words"
    assert edited.message is None and edited.edited_message is not None
    assert edited.edited_message.text == "second words"
    assert edited.edited_message.edit_date is not None
    assert edited.edited_message.message_id == first.message.message_id
    assert with_photo.message.text is None and with_photo.message.photo
    assert with_photo.message.caption == "/not a command here"
    assert [e.type for e in with_photo.message.caption_entities] == [MessageEntity.BOT_COMMAND]
    assert with_video.message.video is not None and with_video.message.caption == "a video"
    assert with_file.message.document is not None and with_file.message.caption is None
    assert recaptioned.edited_message.caption == "a new caption"
    with pytest.raises(LookupError):
        tg.user_edits(CHAT, 999, "no such message")


async def test_privacy_mode_keeps_ordinary_group_talk_from_the_bot() -> None:
    group = -4321
    async with FakeTelegram(privacy_mode=True) as tg, make_bot(tg) as bot:
        assert (await bot.get_me()).can_read_all_group_messages is False
        own = await bot.send_message(group, "Hello, group")
        talk = tg.user_sends_text(group, 7, "just chatting", chat_type="group")
        delivered = [
            tg.user_sends_text(group, 7, "/help", chat_type="group"),
            tg.user_sends_text(group, 7, f"hi @{tg.bot_username}", chat_type="group"),
            tg.user_sends_text(group, 7, "thanks", chat_type="group", reply_to=own.message_id),
            tg.user_sends_text(7, 7, "a private chat gets everything"),
        ]
        tg.user_sends_media(group, 7, "photo", "a holiday", chat_type="group")
        edit = tg.user_edits(group, talk["message"]["message_id"], "still chatting")
        assert talk["update_id"] is None and edit["update_id"] is None
        assert len(tg.withheld) == 3

        updates = await bot.get_updates()
        assert [u.update_id for u in updates] == [u["update_id"] for u in delivered]
        assert updates[2].message.reply_to_message.message_id == own.message_id

        tg.set_member_status(group, tg.bot_id, "administrator")  # admins see everything
        assert tg.user_sends_text(group, 7, "now seen", chat_type="group")["update_id"]
    async with FakeTelegram() as tg, make_bot(tg) as bot:
        assert (await bot.get_me()).can_read_all_group_messages is True
        assert tg.user_sends_text(group, 7, "seen", chat_type="group")["update_id"]
