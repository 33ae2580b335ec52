"""Group reminders on Telegram: admins only, posted on time, followed through a supergroup
upgrade, and paused (with one private note to their admin) when the group refuses them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime

from bot.adapters.telegram.adapter import TelegramAdapter, TelegramConfig
from bot.adapters.telegram.outbound import TELEGRAM_CAPS
from bot.content_pack.ids import ReminderMsg
from bot.coordination.send_budget import Limit
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage import group_reminders
from bot.storage.group_reminders import GroupReminder, PausedBecause
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers.telegram_world import TelegramWorld

GROUP = -4001
ADMIN, MEMBER = 3001, 3002
CREATED = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
DUE = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def reminders_of(world: TelegramWorld, chat_id: int) -> list[GroupReminder]:
    services = world.services
    return await group_reminders.list_for_chat(
        services.db, services.cipher, "telegram", str(chat_id)
    )


async def admin_adds(world: TelegramWorld, args: str, chat: int = GROUP) -> None:
    world.tg.set_member_status(chat, ADMIN, "administrator")
    await world.says(chat, f"/reminder add {args}", user_id=ADMIN, chat_type="group")


async def post_due(world: TelegramWorld) -> None:
    world.clock.set(DUE)
    await world.dispatcher.tick()
    await world.outbox.drain()
    await world.settled()


async def test_only_administrators_manage_reminders(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    telegram.clock.set(CREATED)
    await telegram.says(
        GROUP, "/reminder add 09:00 UTC", user_id=MEMBER, chat_type="group"
    )  # a plain member: Telegram says "member"
    assert telegram.last_text(GROUP) == text_of(ReminderMsg.REMINDER_ADMINS_ONLY)
    assert await reminders_of(telegram, GROUP) == []

    await admin_adds(telegram, "09:00 UTC text Drink some water & rest <3")
    assert telegram.last_text(GROUP).startswith("Reminder 1 is set: 09:00 UTC, daily.")
    checks = telegram.tg.calls_to("getChatMember")
    assert [int(call.params["user_id"]) for call in checks] == [MEMBER, ADMIN]

    telegram.tg.set_member_status(GROUP, MEMBER, "creator")  # the group's owner
    await telegram.says(GROUP, "/reminder list", user_id=MEMBER, chat_type="group")
    assert "1. 09:00 UTC, daily. It posts your own text. (active)" in telegram.last_text(GROUP)


async def test_the_reminder_is_posted_with_a_private_check_in_button(
    telegram: TelegramWorld,
) -> None:
    telegram.clock.set(CREATED)
    await admin_adds(telegram, "09:00 UTC text Drink some water & rest <3")
    await post_due(telegram)
    post = telegram.bot_messages(GROUP)[-1]
    assert post.text == "Drink some water & rest <3"  # escaped on the way, shown as written
    [[button]] = (post.reply_markup or {})["inline_keyboard"]
    assert button["url"] == f"https://t.me/{telegram.tg.bot_username}?start=checkin"


async def test_admins_see_the_reminder_command_in_their_menu_others_do_not(
    telegram: TelegramWorld,
) -> None:
    everyone = {c.command for c in telegram.tg.commands_for() or []}
    admins = {c.command for c in telegram.tg.commands_for(scope="all_chat_administrators") or []}
    assert "reminder" not in everyone
    assert "reminder" in admins
    assert everyone < admins


async def test_a_group_upgraded_to_a_supergroup_keeps_its_reminders(
    telegram: TelegramWorld,
) -> None:
    supergroup = -1_000_4001
    telegram.clock.set(CREATED)
    await admin_adds(telegram, "09:00 UTC")
    telegram.tg.group_upgrades(GROUP, supergroup, ADMIN)
    await telegram.settled()  # the service message is an update like any other
    [moved] = await reminders_of(telegram, supergroup)
    assert moved.number == 1
    await post_due(telegram)
    assert len(telegram.bot_messages(supergroup)) == 1


async def test_an_upgrade_noticed_only_when_posting_is_followed_too(
    telegram: TelegramWorld,
) -> None:
    supergroup = -1_000_4002
    telegram.clock.set(CREATED)
    await admin_adds(telegram, "09:00 UTC")
    telegram.tg.migrated_chats[GROUP] = supergroup  # no service message reached the bot
    await post_due(telegram)
    assert len(telegram.bot_messages(supergroup)) == 1
    assert [r.chat_id for r in await reminders_of(telegram, supergroup)] == [str(supergroup)]


async def test_bot_removed_pauses_the_reminder_and_tells_its_admin_once(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    telegram.clock.set(CREATED)
    await admin_adds(telegram, "09:00 UTC")
    telegram.tg.set_member_status(GROUP, telegram.tg.bot_id, "kicked")
    await post_due(telegram)
    [reminder] = await reminders_of(telegram, GROUP)
    assert reminder.paused is PausedBecause.NO_PERMISSION
    assert telegram.tg.sent_texts(ADMIN) == [
        text_of(ReminderMsg.REMINDER_LOST_PERMISSION, number=1, when="09:00 UTC, daily")
    ]
    telegram.clock.set(datetime(2026, 3, 3, 9, 0, tzinfo=UTC))  # the next day: nothing at all
    await telegram.dispatcher.tick()
    await telegram.outbox.drain()
    assert len(telegram.tg.sent_texts(ADMIN)) == 1


async def test_rights_taken_away_pause_the_reminder_until_an_admin_resumes_it(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    telegram.clock.set(CREATED)
    await admin_adds(telegram, "09:00 UTC theme support")
    telegram.tg.set_member_status(GROUP, telegram.tg.bot_id, "restricted")
    await post_due(telegram)
    [reminder] = await reminders_of(telegram, GROUP)
    assert reminder.paused is PausedBecause.NO_PERMISSION
    assert len(telegram.tg.sent_texts(ADMIN)) == 1

    telegram.tg.set_member_status(GROUP, telegram.tg.bot_id, "member")  # rights given back
    await telegram.says(GROUP, "/reminder list", user_id=ADMIN, chat_type="group")
    assert "(paused: I could not post here)" in telegram.last_text(GROUP)
    await telegram.says(GROUP, "/reminder resume 1", user_id=ADMIN, chat_type="group")
    assert telegram.last_text(GROUP) == text_of(
        ReminderMsg.REMINDER_RESUMED, number=1, next="Tue 03 Mar, 09:00"
    )
    telegram.clock.set(datetime(2026, 3, 3, 9, 0, tzinfo=UTC))
    posted_before = len(telegram.bot_messages(GROUP))
    await telegram.dispatcher.tick()
    await telegram.outbox.drain()
    assert len(telegram.bot_messages(GROUP)) == posted_before + 1


async def test_many_posts_to_one_group_are_paced_not_refused(
    services: Services, clock: ManualClock
) -> None:
    """Telegram's limit is 20 posts a minute in a group; here the fake and the adapter
    both use a 3-second "minute", so 30 posts need the pacing and take seconds, not
    minutes. None draws a 429 from the strict fake, and every one arrives in order."""
    async with FakeTelegram(group_window_seconds=3.0) as tg:
        caps = replace(TELEGRAM_CAPS, group=Limit(20, 3.0))
        config = TelegramConfig(token=tg.token, base_url=f"{tg.url}/bot", poll_timeout=1, caps=caps)
        adapter = TelegramAdapter(config, Router(services), services.db, services.content)
        await adapter.start()
        try:
            group = Address("telegram", str(GROUP), "", is_group=True)
            for number in range(30):
                await adapter.send(group, Reply(f"post {number}"))
        finally:
            await adapter.stop()
        assert tg.sent_texts(GROUP) == [f"post {number}" for number in range(30)]
        assert not [call for call in tg.calls if call.status == 429]


async def test_an_anonymous_admin_may_add_a_reminder_that_then_has_no_creator(
    telegram: TelegramWorld,
) -> None:
    telegram.clock.set(CREATED)
    telegram.tg.user_sends_text(
        GROUP, ADMIN, "/reminder add 09:00 UTC", chat_type="group", anonymous_admin=True
    )
    await telegram.settled()
    assert telegram.last_text(GROUP).startswith("Reminder 1 is set")
    assert telegram.tg.calls_to("getChatMember") == []  # posting as the group proves it
    [reminder] = await reminders_of(telegram, GROUP)
    assert reminder.creator_user_id is None  # not the stand-in bot's id


async def test_an_upgrade_noticed_late_keeps_old_and_new_reminders_apart(
    telegram: TelegramWorld,
) -> None:
    supergroup = -1_000_4003
    telegram.clock.set(CREATED)
    await admin_adds(telegram, "09:00 UTC text from the old group")
    telegram.tg.migrated_chats[GROUP] = supergroup  # the service message never arrived
    telegram.tg.set_member_status(supergroup, ADMIN, "administrator")
    await telegram.says(
        supergroup, "/reminder add 09:00 UTC text from the new group", user_id=ADMIN,
        chat_type="supergroup",
    )  # fmt: skip
    await post_due(telegram)
    assert sorted(telegram.tg.sent_texts(supergroup)[-2:]) == [
        "from the new group",
        "from the old group",
    ]
    moved = await reminders_of(telegram, supergroup)
    assert [(r.number, r.spec.own_text) for r in moved] == [
        (1, "from the new group"),
        (2, "from the old group"),
    ]


async def test_removal_from_the_group_pauses_at_once_and_tells_the_admin(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    telegram.clock.set(CREATED)
    await admin_adds(telegram, "09:00 UTC")
    telegram.tg.bot_removed_from_group(GROUP, ADMIN)
    await telegram.settled()  # no tick: Telegram's membership update is enough
    assert telegram.tg.sent_texts(ADMIN) == [
        text_of(ReminderMsg.REMINDER_LOST_PERMISSION, number=1, when="09:00 UTC, daily")
    ]
    [reminder] = await reminders_of(telegram, GROUP)
    assert reminder.paused is PausedBecause.NO_PERMISSION
    telegram.clock.set(DUE)  # its time comes: nothing is tried, nobody is told again
    assert (await telegram.dispatcher.tick()).reminders == 0
    await telegram.outbox.drain()
    assert len(telegram.tg.sent_texts(ADMIN)) == 1
    assert not [c for c in telegram.tg.calls_to("sendMessage") if c.params["chat_id"] == GROUP][1:]
