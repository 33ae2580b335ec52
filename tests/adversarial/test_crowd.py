"""A hundred people tapping in the same second: every tap answered, every answer stored once."""

from __future__ import annotations

from collections.abc import Callable

from bot.content_pack.ids import CheckinMsg
from tests.helpers.telegram_checks import failed_sends
from tests.helpers.telegram_world import TelegramWorld

USERS = range(5_000, 5_100)


async def until(world: TelegramWorld, condition: Callable[[], bool]) -> None:
    """Wait until `condition` holds, checked after each call the bot makes (within a minute)."""
    await world.tg.wait_for(lambda _: condition(), timeout=60)


def everyone_press(world: TelegramWorld, label: str) -> list[str]:
    """Each user taps `label` on the newest message showing it, all before the bot reacts."""
    queries = []
    for chat in USERS:
        message = world.bot_messages(chat)[-1]
        rows = (message.reply_markup or {}).get("inline_keyboard", [])
        [data] = [b["callback_data"] for row in rows for b in row if b["text"] == label]
        queries.append(world.tg.user_presses(chat, chat, message.message_id, data))
    return queries


async def test_a_hundred_simultaneous_check_ins(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    for chat in USERS:
        telegram.tg.user_sends_text(chat, chat, "/checkin")
    await until(telegram, lambda: all(len(telegram.bot_messages(chat)) == 1 for chat in USERS))

    for label, replies in (
        (text_of(CheckinMsg.MOOD_4), 2),
        (text_of(CheckinMsg.URGE_NONE), 3),
        (text_of(CheckinMsg.SKIP_NOTE), 4),
    ):
        queries = everyone_press(telegram, label)
        await until(
            telegram, lambda n=replies: all(len(telegram.bot_messages(c)) >= n for c in USERS)
        )
        await until(
            telegram, lambda q=queries: all(telegram.tg.callback_queries[i].answered for i in q)
        )

    for chat in USERS:
        assert telegram.last_text(chat).startswith(text_of(CheckinMsg.CHECKIN_SAVED))
        assert len(telegram.bot_messages(chat)) == 4  # one answer per tap, no more
    rows = await telegram.services.db.fetch_all(
        "SELECT u.platform_user_id AS who, COUNT(*) AS n, MIN(c.mood) AS mood, MIN(c.urge) AS urge"
        " FROM checkins AS c JOIN users AS u ON u.id = c.user_id GROUP BY u.id"
    )
    assert sorted(int(row["who"]) for row in rows) == list(USERS)
    assert {(row["n"], row["mood"], row["urge"]) for row in rows} == {(1, 4, "none")}
    assert failed_sends(telegram) == []
