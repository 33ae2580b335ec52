from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from bot.content_pack.ids import SettingsMsg
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage import content_seen
from bot.storage.content_seen import SeenKind
from bot.storage.queries import to_epoch
from bot.storage.retention import purge_expired
from bot.storage.user_texts import TextKind, list_texts
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation


async def test_history_older_than_the_retention_is_deleted_reasons_stay(
    chat: Conversation, services: Services, clock: ManualClock
) -> None:
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("none")
    await chat.send("an old note")
    await chat.send("/reasons")
    await chat.press("Write one down")
    await chat.send("my own reason")
    clock.advance(timedelta(days=100))
    await chat.send("/checkin")
    await chat.send("4")
    await chat.send("none")
    await chat.send("a recent note")

    purged = await purge_expired(services.db, clock.now(), retention_days=90)
    assert purged.checkins == 1
    rows = await services.db.fetch_all("SELECT mood FROM checkins")
    assert [row["mood"] for row in rows] == [4]
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    reasons = await list_texts(services.db, services.cipher, TextKind.REASON, user.id)
    assert [r.text for r in reasons] == ["my own reason"]
    assert (await purge_expired(services.db, clock.now(), retention_days=90)).checkins == 0


async def answer_checkin(chat: Conversation, mood: str) -> None:
    await chat.send("/checkin")
    await chat.send(mood)
    await chat.send("none")
    await chat.send("a note")


async def test_a_user_may_keep_less_and_the_older_part_goes_at_once(
    router: Router, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    short = Conversation(router, Address("console", "c-short", "short"))
    other = Conversation(router, Address("console", "c-other", "other"))
    for chat in (short, other):
        await answer_checkin(chat, "2")
    clock.advance(timedelta(days=40))
    for chat in (short, other):
        await answer_checkin(chat, "4")

    await short.send("/settings")
    await short.press(text_of(SettingsMsg.SETTINGS_CHANGE_KEEP))
    labels = [button.label for button in short.last[0].flat_buttons]
    assert labels == ["7 days", "30 days", "90 days", text_of(SettingsMsg.KEEP_LONGEST)]
    await short.press("30 days")
    assert text_of(SettingsMsg.KEEP_DAYS, days=30) in short.text  # the menu shows the new choice

    async def moods(user: str) -> list[int]:
        rows = await services.db.fetch_all(
            "SELECT c.mood FROM checkins AS c JOIN users AS u ON u.id = c.user_id"
            " WHERE u.platform_user_id = ? ORDER BY c.answered_at",
            (user,),
        )
        return [row["mood"] for row in rows]

    assert await moods("short") == [4]  # the 40-day-old answer went right away
    assert await moods("other") == [2, 4]  # nobody else's history was touched
    clock.advance(timedelta(days=31))
    await purge_expired(services.db, clock.now(), retention_days=180)
    assert await moods("short") == []
    assert await moods("other") == [2, 4]


async def test_keeping_longer_than_the_operator_allows_is_refused_kindly(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/settings")
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_KEEP))
    await chat.send("365")
    assert chat.text == text_of(SettingsMsg.BAD_KEEP, limit=services.retention_days)
    await chat.send("12")
    user = await find_user(services.db, "console", "u1")
    assert user is not None and user.keep_days == 12
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_KEEP))
    await chat.press(text_of(SettingsMsg.KEEP_LONGEST))
    user = await find_user(services.db, "console", "u1")
    assert user is not None and user.keep_days is None


async def test_what_was_shown_before_the_no_repeat_window_is_deleted_daily(
    services: Services, clock: ManualClock
) -> None:
    # Enough users for several purge transactions, each with an old and a recent row.
    db = services.db
    users_count = content_seen.PURGE_BATCH_USERS * 2 + 7
    now = clock.now()
    old = now - content_seen.NO_REPEAT_WINDOW - timedelta(days=1)
    recent = now - timedelta(days=2)
    async with db.transaction() as tx:
        await tx.executemany(
            "INSERT INTO users (platform, platform_user_id, chat_id, locale, created_at)"
            " VALUES ('console', ?, ?, 'en', ?)",
            [(f"p{n}", f"c{n}", to_epoch(now)) for n in range(users_count)],
        )
    rows = await db.fetch_all("SELECT id FROM users")
    ids = [row["id"] for row in rows]
    async with db.transaction() as tx:
        for when, item in ((old, "o-old"), (recent, "o-new")):
            await content_seen.mark_seen(
                tx, [(user_id, SeenKind.OPENING, item) for user_id in ids], when
            )

    purged = await content_seen.purge_older_than(db, now)

    assert purged == len(ids)
    kept = await db.fetch_all("SELECT DISTINCT item_id FROM content_seen")
    assert [row["item_id"] for row in kept] == ["o-new"]
    counted = await db.fetch_one("SELECT COUNT(*) AS n FROM content_seen")
    assert counted is not None and counted["n"] == len(ids)
    assert await content_seen.purge_older_than(db, now) == 0


async def test_marking_seen_again_moves_the_time_and_an_item_twice_in_one_call_is_one_row(
    services: Services, clock: ManualClock
) -> None:
    db = services.db
    async with db.transaction() as tx:
        ana = await tx.insert(
            "INSERT INTO users (platform, platform_user_id, chat_id, locale, created_at)"
            " VALUES ('console', 'ana', 'c-ana', 'en', ?)",
            (to_epoch(clock.now()),),
        )
    first, later = clock.now(), clock.now() + timedelta(hours=3)
    async with db.transaction() as tx:
        await content_seen.mark_seen(tx, [(ana, SeenKind.OPENING, "o-1")], first)
    async with db.transaction() as tx:
        await content_seen.mark_seen(
            tx,
            [
                (ana, SeenKind.OPENING, "o-1"),
                (ana, SeenKind.OPENING, "o-2"),
                (ana, SeenKind.OPENING, "o-2"),
                (ana, SeenKind.REPLY, "o-2"),
            ],
            later,
        )
    seen = await content_seen.seen_by_users(db, [ana], SeenKind.OPENING, first)
    assert seen == {ana: {"o-1": later, "o-2": later}}
    assert await content_seen.seen_since(db, ana, SeenKind.REPLY, first) == {"o-2": later}
