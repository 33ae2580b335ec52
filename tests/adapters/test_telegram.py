"""Steady on Telegram: the real python-telegram-bot against a strict fake Bot API server."""

from __future__ import annotations

import socket
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from telegram.error import RetryAfter as TelegramRetryAfter

from bot.adapters.telegram.adapter import TelegramAdapter, TelegramConfig
from bot.content_pack.ids import (
    CaringMsg,
    CheckinMsg,
    DataMsg,
    GeneralMsg,
    OnboardingMsg,
    PauseMsg,
    SafetyMsg,
)
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.engine.due_work import build_dispatcher
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage.checkins import list_checkins
from bot.storage.users import find_user
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers.conversation import Conversation
from tests.helpers.outboxes import outbox_for
from tests.helpers.telegram_world import TelegramWorld, no_wait
from tests.helpers.waiting import until

ANA = 1001
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def onboard(world: TelegramWorld, chat: int = ANA) -> None:
    await world.says(chat, "/start")
    await world.says(chat, "Europe/Berlin")
    await world.says(chat, "08:30")
    await world.taps(chat, "Germany")


async def test_start_sets_the_command_menu(telegram: TelegramWorld) -> None:
    commands = [c.command for c in telegram.tg.commands_for()]
    assert {"start", "checkin", "pause", "sos", "forget", "mydata"} <= set(commands)


async def test_onboarding_by_typing_and_tapping(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await onboard(telegram)
    texts = telegram.tg.sent_texts(ANA)
    assert texts[0].startswith("Hi, I'm Steady.")
    assert texts[1] == text_of(OnboardingMsg.ASK_TIMEZONE)
    assert text_of(OnboardingMsg.COUNTRY_SAVED, country="Germany") in texts[-1]
    [answer] = [q for q in telegram.tg.callback_queries.values()]
    assert answer.answered
    user = await find_user(telegram.services.db, "telegram", str(ANA))
    assert user is not None and (user.timezone, user.country) == ("Europe/Berlin", "DE")


async def test_scheduled_checkin_delivered_and_answered_with_taps(
    telegram: TelegramWorld, content: ContentPack, text_of: Callable[..., str]
) -> None:
    await onboard(telegram)
    telegram.clock.set(START + timedelta(days=1) - timedelta(hours=1, minutes=30))  # 08:30 CET
    await telegram.dispatcher.tick()
    await telegram.outbox.drain()
    checkin = telegram.bot_messages(ANA)[-1]
    first_line = (checkin.text or "").splitlines()[0]
    assert first_line in {o.text for o in content.openings("en")}
    call = telegram.tg.calls_to("sendMessage")[-1]
    assert call.params.get("disable_notification") in (None, False)
    await telegram.taps(ANA, text_of(CheckinMsg.MOOD_4))
    await telegram.taps(ANA, text_of(CheckinMsg.URGE_NONE))
    await telegram.says(ANA, "a <b>good</b> & quiet day")
    user = await find_user(telegram.services.db, "telegram", str(ANA))
    assert user is not None
    [answer] = await list_checkins(telegram.services.db, user.id)
    assert (answer.mood, answer.urge) == (4, "none")
    assert telegram.last_text(ANA).startswith(text_of(CheckinMsg.CHECKIN_SAVED_WITH_NOTE))


async def test_user_text_is_escaped_and_long_replies_are_split(
    telegram: TelegramWorld,
) -> None:
    await telegram.says(ANA, "/checkin")
    await telegram.says(ANA, "3")
    await telegram.says(ANA, "some")
    note = "<i>not a tag</i> & <script> " + "a long day, " * 70
    await telegram.says(ANA, note.strip())
    for _ in range(5):  # five long notes make /mydata longer than one message
        await telegram.says(ANA, "/checkin")
        await telegram.says(ANA, "3")
        await telegram.says(ANA, "some")
        await telegram.says(ANA, note.strip())
    await telegram.says(ANA, "/mydata")
    sends = [c for c in telegram.tg.calls_to("sendMessage") if c.ok]
    export = [c for c in sends if "&lt;i&gt;not a tag&lt;/i&gt;" in str(c.params.get("text"))]
    assert len(export) >= 2  # split into several messages, every one accepted
    assert all(c.params.get("protect_content") for c in export)
    assert not [c for c in telegram.tg.calls if c.method == "sendMessage" and not c.ok]


async def test_breathing_counts_down_by_editing_one_message(
    telegram: TelegramWorld, content: ContentPack, text_of: Callable[..., str]
) -> None:
    await telegram.says(ANA, "/pause")
    await telegram.taps(ANA, text_of(PauseMsg.PAUSE_BREATHE))
    box = content.exercise("en", "breathe-box")
    assert box is not None
    await telegram.taps(ANA, box.title)
    await telegram.tg.wait_for(
        lambda c: c.method == "editMessageText" and box.closing in str(c.params.get("text")),
        timeout=10,
    )
    message = telegram.bot_messages(ANA)[-1]
    assert message.original_text == "Breathe in · 4\nRound 1 of 4"
    assert len(message.previous_texts) == len(box.pace) * box.rounds  # every frame, then the end
    assert box.closing in (message.text or "")
    assert message.reply_markup is not None  # the buttons stay under the countdown


async def test_crisis_text_mid_flow_gets_the_crisis_reply(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await onboard(telegram)
    await telegram.says(ANA, "/checkin")
    await telegram.says(ANA, "1")
    await telegram.says(ANA, "i want to kill myself")
    reply, offer, again = [message.text or "" for message in telegram.bot_messages(ANA)[-3:]]
    assert reply.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert "112 in Germany" in reply
    assert offer == text_of(CaringMsg.CARING_OFFER)  # to look in on them tomorrow, if they like
    # Then the question it interrupted, with buttons that still answer it.
    assert again == f"{text_of(GeneralMsg.QUESTION_AGAIN)}\n\n{text_of(CheckinMsg.ASK_URGE)}"
    assert telegram.bot_messages(ANA)[-1].reply_markup is not None


async def test_forged_and_stale_buttons_get_a_short_notice_and_change_nothing(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await telegram.says(ANA, "/checkin")
    checkin = telegram.bot_messages(ANA)[-1]
    sent_before = len(telegram.bot_messages(ANA))
    query = telegram.tg.user_presses(
        ANA, ANA, checkin.message_id, "ci:mood:00000000:3", forged=True
    )
    await telegram.settled()
    answer = next(
        c
        for c in telegram.tg.calls_to("answerCallbackQuery")
        if c.params["callback_query_id"] == query
    )
    assert answer.params.get("text") == text_of(GeneralMsg.BUTTON_EXPIRED)
    assert len(telegram.bot_messages(ANA)) == sent_before  # a notice, not a new message
    await telegram.taps(ANA, text_of(CheckinMsg.MOOD_2))
    stale = telegram.tg.user_presses(
        ANA, ANA, checkin.message_id, checkin.reply_markup["inline_keyboard"][0][0]["callback_data"]
    )  # type: ignore[index]
    await telegram.settled()
    assert telegram.tg.callback_queries[stale].answered
    user = await find_user(telegram.services.db, "telegram", str(ANA))
    assert user is not None
    assert await list_checkins(telegram.services.db, user.id) == []


async def test_blocked_then_writing_again(telegram: TelegramWorld) -> None:
    await onboard(telegram)
    telegram.tg.inject_blocked(ANA, method="sendMessage", times=None)
    telegram.clock.set(START + timedelta(days=1) - timedelta(hours=1, minutes=30))
    await telegram.dispatcher.tick()
    await telegram.outbox.drain()
    user = await find_user(telegram.services.db, "telegram", str(ANA))
    assert user is not None and user.unreachable_since is not None
    telegram.tg.clear_faults()
    await telegram.says(ANA, "/help")
    user = await find_user(telegram.services.db, "telegram", str(ANA))
    assert user is not None and user.unreachable_since is None


async def test_too_many_requests_is_retried(telegram: TelegramWorld) -> None:
    fault = telegram.tg.inject_retry_after(1, method="sendMessage")
    await telegram.says(ANA, "/about")
    # The reply waits the second Telegram asked for, then is sent again.
    await telegram.tg.wait_for(lambda c: c.method == "sendMessage" and c.ok, timeout=30)
    assert fault.hits == 1
    assert [c.status for c in telegram.tg.calls_to("sendMessage")] == [429, 200]


async def test_a_group_upgraded_to_a_supergroup_is_followed(telegram: TelegramWorld) -> None:
    group, supergroup = -500, -1_000_500
    telegram.tg.inject_migrate(group, supergroup, method="sendMessage")
    await telegram.says(group, "/help", user_id=ANA, chat_type="group")
    assert telegram.tg.sent_texts(supergroup)  # answered in the new chat


async def test_a_personal_command_in_a_group_links_to_a_private_chat(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    group = -600
    await telegram.says(
        group, f"/checkin@{telegram.tg.bot_username}", user_id=ANA, chat_type="group"
    )
    message = telegram.bot_messages(group)[-1]
    assert message.text == text_of(GeneralMsg.GROUP_GO_PRIVATE)
    button = message.reply_markup["inline_keyboard"][0][0]  # type: ignore[index]
    assert button["url"] == f"https://t.me/{telegram.tg.bot_username}?start=checkin"
    for ignored in ("/checkin@some_other_bot", "morning all"):
        await telegram.says(group, ignored, expect_reply=False, user_id=ANA, chat_type="group")
    assert telegram.bot_messages(group)[-1].message_id == message.message_id  # nothing more


async def test_webhook_mode_checks_the_secret(services: Services, clock: ManualClock) -> None:
    port = free_port()
    async with FakeTelegram() as tg:
        router = Router(services)
        config = TelegramConfig(
            token=tg.token,
            base_url=f"{tg.url}/bot",
            webhook_url="https://steady.example/hook",
            webhook_secret="s3cret-token_1",
            webhook_listen="127.0.0.1",
            webhook_port=port,
        )
        adapter = TelegramAdapter(config, router, services.db, services.content, sleep=no_wait)
        await adapter.start()
        try:
            assert tg.webhook is not None and tg.webhook.secret_token == "s3cret-token_1"
            url = f"http://127.0.0.1:{port}/{tg.token.split(':', 1)[0]}"
            update = tg.user_sends_text(ANA, ANA, "/about")
            assert await tg.post_update_to_webhook(url, update, secret_token="wrong") == 403
            assert await tg.post_update_to_webhook(url, update, secret_token=None) == 403
            assert tg.calls_to("sendMessage") == []
            assert (
                await tg.post_update_to_webhook(url, update, secret_token="s3cret-token_1") == 200
            )
            await tg.wait_for("sendMessage")
            assert tg.sent_texts(ANA)[-1].startswith("Steady is a companion for reflection")
        finally:
            await adapter.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_wipe_deletes_recent_messages_and_says_what_it_could_not(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await onboard(telegram)
    telegram.clock.set(START + timedelta(hours=72))  # three days pass in the chat
    await telegram.says(ANA, "/help")
    await telegram.says(ANA, "/about")
    await telegram.says(ANA, "/wipe")
    messages = telegram.bot_messages(ANA)
    old = [m for m in messages if m.date < (START + timedelta(hours=1)).timestamp()]
    recent = [m for m in messages if m not in old][:-1]  # the last one is the report
    assert old and recent
    assert all(m.deleted for m in recent)
    assert not any(m.deleted for m in old)
    deleted = text_of(DataMsg.WIPE_DONE, deleted=len(recent))
    assert messages[-1].text == f"{deleted} {text_of(DataMsg.WIPE_PARTLY, kept=len(old))}"
    await telegram.says(ANA, "/wipe")  # nothing left that it knows of
    assert telegram.last_text(ANA).startswith("I deleted 1 of my messages from this chat.")


async def test_a_timed_out_send_is_tried_again(services: Services, clock: ManualClock) -> None:
    async with FakeTelegram(clock=lambda: clock.now().timestamp()) as tg:
        router = Router(services)
        config = TelegramConfig(
            token=tg.token, base_url=f"{tg.url}/bot", poll_timeout=1, request_timeout=0.3
        )
        adapter = TelegramAdapter(config, router, services.db, services.content, sleep=no_wait)
        await adapter.start()
        try:
            tg.inject_stall(1.0, method="sendMessage")
            tg.user_sends_text(ANA, ANA, "/about")
            await tg.wait_for(lambda c: c.method == "sendMessage" and c.ok, timeout=30)
            await tg.wait_for(
                lambda c: (
                    c.method == "sendMessage" and c.ok and len(tg.calls_to("sendMessage")) == 2
                ),
                timeout=5,
            )
            # The stalled call still reached Telegram, as on a real network: the user may see
            # the reply twice, never not at all.
            assert len(tg.calls_to("sendMessage")) == 2
            assert tg.sent_texts(ANA)[-1].startswith("Steady is a companion")
        finally:
            await adapter.stop()


async def test_a_scheduled_checkin_that_timed_out_after_sending_is_not_sent_again(
    services: Services, clock: ManualClock
) -> None:
    """The answer never came, but the request went out: Telegram most likely has it. A
    check-in is at most once, so the outbox counts it as sent instead of sending again."""
    async with FakeTelegram(clock=lambda: clock.now().timestamp()) as tg:
        router = Router(services)
        config = TelegramConfig(
            token=tg.token, base_url=f"{tg.url}/bot", poll_timeout=1, request_timeout=0.3
        )
        adapter = TelegramAdapter(config, router, services.db, services.content, sleep=no_wait)
        outbox = outbox_for(services, clock, {adapter.platform: adapter}, sleep=no_wait)
        dispatcher = build_dispatcher(services, router.checkin, router.pause, outbox)
        await adapter.start()
        await outbox.start()
        try:
            world_chat = Conversation(router, Address("telegram", str(ANA), str(ANA)))
            for said in ("/start", "Europe/Berlin", "10:30"):
                await world_chat.send(said)
            clock.set(datetime(2026, 3, 2, 9, 30, tzinfo=UTC))  # 10:30 in Berlin
            tg.inject_stall(1.0, method="sendMessage")
            assert (await dispatcher.tick()).started == 1
            await outbox.drain()
            await tg.wait_for(lambda c: c.method == "sendMessage" and c.ok, timeout=30)
            assert len(tg.calls_to("sendMessage")) == 1
            assert outbox.stats.uncertain == 1 and outbox.stats.sent == 0
            assert len(tg.sent_texts(ANA)) == 1  # it did arrive, once
        finally:
            await outbox.stop()
            await adapter.stop()


async def test_group_crisis_goes_private_or_links_there_when_it_cannot(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    group, ben, cai = -800, 2002, 2003
    await telegram.says(group, "i want to die", user_id=ben, chat_type="group")
    assert telegram.tg.sent_texts(ben)[-1].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert telegram.last_text(group) == text_of(SafetyMsg.SAFETY_GROUP_PUBLIC)
    # cai never opened a private chat with the bot: Telegram refuses the private message
    telegram.tg.inject_blocked(cai, method="sendMessage", times=None)
    await telegram.says(group, "i want to die", user_id=cai, chat_type="group")
    fallback = telegram.bot_messages(group)[-1]
    assert fallback.text == text_of(SafetyMsg.SAFETY_GROUP_FALLBACK)
    button = fallback.reply_markup["inline_keyboard"][0][0]  # type: ignore[index]
    assert button["url"].endswith("?start=sos")
    assert "112" not in (fallback.text or "")  # nothing about the person in the group


async def test_words_after_wipe_are_screened(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await telegram.says(ANA, "/help")
    await telegram.says(ANA, "/wipe i want to kill myself")
    assert telegram.last_text(ANA).startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert not any(m.deleted for m in telegram.bot_messages(ANA))


async def test_a_crisis_reply_gets_through_repeated_rate_limits(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    telegram.tg.inject_retry_after(1, method="sendMessage", times=3)
    telegram.tg.user_sends_text(ANA, ANA, "i want to kill myself")
    await telegram.tg.wait_for(lambda c: c.method == "sendMessage" and c.ok, timeout=30)
    assert telegram.tg.sent_texts(ANA)[-1].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))


async def test_a_refused_later_piece_does_not_send_the_earlier_ones_again(
    telegram: TelegramWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "\n\n".join(f"Paragraph {n}. " + "steady words " * 120 for n in range(4))
    original, attempts = telegram.adapter._outbound._send_text, []

    async def refuses_the_second(*args: Any) -> Any:
        attempts.append(args[3][:12])  # (lane, address, reply, piece, ...)
        if len(attempts) == 2:
            raise TelegramRetryAfter(1)  # Telegram refuses the second piece, once
        return await original(*args)

    monkeypatch.setattr(telegram.adapter._outbound, "_send_text", refuses_the_second)
    await telegram.adapter._deliver(Address("telegram", str(ANA), str(ANA)), Reply(text))
    sent = telegram.tg.sent_texts(ANA)
    assert len(sent) == 2 and " ".join(sent).split() == text.split()  # all of it, once
    assert attempts == ["Paragraph 0.", "Paragraph 2.", "Paragraph 2."]  # piece 2 alone again


async def test_a_crisis_reply_that_cannot_be_sent_is_an_error_and_counted(
    telegram: TelegramWorld, caplog: pytest.LogCaptureFixture
) -> None:
    def undelivered() -> str:
        lines = telegram.services.metrics.exposition().decode().splitlines()
        return next(line for line in lines if line.startswith("steady_urgent_replies_undel"))

    telegram.tg.inject_blocked(ANA, method="sendMessage", times=None)
    telegram.tg.user_sends_text(ANA, ANA, "/about")  # not urgent: not counted
    await telegram.tg.wait_for(lambda c: c.method == "sendMessage" and c.status == 403)
    telegram.tg.user_sends_text(ANA, ANA, "i want to kill myself")
    await until(lambda: undelivered().endswith(" 1.0"))
    assert undelivered() == 'steady_urgent_replies_undelivered_total{platform="telegram"} 1.0'
    errors = [r for r in caplog.records if "safety.reply_undelivered" in r.getMessage()]
    assert [r.levelname for r in errors] == ["ERROR"]
    assert "kill" not in caplog.text  # the person's words are never logged
