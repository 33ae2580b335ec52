""" "Tomorrow" is the user's tomorrow: a look-in offered between midnight and 05:00 local
comes later that day; it always comes 12 to 30 hours after the crisis, in waking hours
and outside quiet hours; and it can be cancelled by typing as well as tapping (English
and Spanish, in the core, the console and on Telegram)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.content_pack.ids import CaringMsg, GeneralMsg
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.scheduling.caring_due import LATEST, SOONEST, WAKING, plan_caring_check
from bot.storage.users import ALL_WEEKDAYS_MASK, QuietHours, User, weekdays_from_mask
from tests.helpers.console_chat import ConsoleUser
from tests.helpers.conversation import Conversation
from tests.helpers.telegram_world import TelegramWorld
from tests.helpers.world import World

# What the caring check leads to, not how long its offer may take (see the fixture).
pytestmark = pytest.mark.usefixtures("unhurried_follow_ups")

CRISIS = "i want to die"
SMALL_HOURS = datetime(2026, 3, 2, 1, 3, tzinfo=UTC)  # 02:03 in Berlin


def someone_in(timezone: str, quiet: QuietHours | None = None) -> User:
    return User(
        id=1, platform="test", platform_user_id="u", chat_id="c", locale="en",
        timezone=timezone, weekdays=weekdays_from_mask(ALL_WEEKDAYS_MASK), quiet_hours=quiet,
        paused_until=None, checkins_stopped=False, unreachable_since=None, last_reply_id=None,
        country=None, discreet=True, created_at=SMALL_HOURS, onboarded_at=SMALL_HOURS,
    )  # fmt: skip


def test_offered_at_two_in_the_morning_it_comes_that_evening_not_in_42_hours() -> None:
    due = plan_caring_check(someone_in("Europe/Berlin"), "20:00", SMALL_HOURS)
    assert due == datetime(2026, 3, 2, 19, 0, tzinfo=UTC)  # 20:00 the same day, 18 h on
    due = plan_caring_check(someone_in("Europe/Berlin"), None, SMALL_HOURS)
    assert due == datetime(2026, 3, 2, 13, 3, tzinfo=UTC)  # 10:00 is too soon: 12 h on


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "Asia/Kolkata"])
@pytest.mark.parametrize("checkin", [None, "06:00", "08:30", "13:00", "20:00", "23:30"])
@pytest.mark.parametrize("quiet", [None, QuietHours(time(21, 0), time(9, 0))])
def test_always_12_to_30_hours_later_awake_and_outside_quiet_hours(
    zone: str, checkin: str | None, quiet: QuietHours | None
) -> None:
    user = someone_in(zone, quiet)
    own = None if checkin is None else time.fromisoformat(checkin)
    for half_hours in range(0, 96):  # every half hour over two days, DST-free weeks
        now = datetime(2026, 1, 12, tzinfo=UTC) + timedelta(minutes=30 * half_hours)
        due = plan_caring_check(user, checkin, now)
        assert SOONEST <= due - now <= LATEST, (now, due)
        local = due.astimezone(ZoneInfo(zone)).time()
        assert quiet is None or not quiet.contains(local), (now, due)
        assert WAKING[0] <= local <= WAKING[1] or local == own, (now, due)


async def asked_in_the_small_hours(world: World, text_of: Callable[..., str]) -> Conversation:
    chat = await world.onboard("ana", "Europe/Berlin", "20:00")
    world.clock.set(SMALL_HOURS)
    await chat.send(CRISIS)
    [scheduled] = await chat.press(text_of(CaringMsg.CARING_OFFER_YES))
    assert scheduled.text == text_of(CaringMsg.CARING_SCHEDULED_TODAY, time="20:00")
    return chat


def looked_in(world: World, text_of: Callable[..., str]) -> int:
    return sum(reply.text == text_of(CaringMsg.CARING_CHECK) for _, reply in world.adapter.take())


async def test_it_comes_later_that_day(world: World, text_of: Callable[..., str]) -> None:
    await asked_in_the_small_hours(world, text_of)
    world.adapter.take()
    await world.run_until(datetime(2026, 3, 2, 19, 5, tzinfo=UTC))
    assert looked_in(world, text_of) == 1


@pytest.mark.parametrize(
    "typed", ["cancel the message", "Cancel the message.", "CANCEL THE MESSAGE"]
)
async def test_typed_words_cancel_it_any_time_before(
    world: World, text_of: Callable[..., str], typed: str
) -> None:
    chat = await asked_in_the_small_hours(world, text_of)
    world.clock.set(SMALL_HOURS + timedelta(hours=9))  # well after the offer's turn
    await chat.send("/checkin")  # in the middle of something else, even
    [cancelled] = await chat.send(typed)
    assert cancelled.text == text_of(CaringMsg.CARING_DECLINED)
    world.adapter.take()
    await world.run_until(datetime(2026, 3, 3, 12, 0, tzinfo=UTC))
    assert looked_in(world, text_of) == 0


async def test_cancel_words_with_nothing_pending_are_ordinary_text(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/settings")
    await chat.send("/cancel")
    [reply] = await chat.send("cancel the message")
    assert reply.text == text_of(GeneralMsg.UNEXPECTED_TEXT)


async def test_in_spanish(router: Router, clock: ManualClock, content: ContentPack) -> None:
    chat = Conversation(router, Address("console", "c1", "u1"), language_code="es")
    for line in ("/start", "Español", "Madrid", "sí", "20:00", "sí"):
        await chat.send(line)
    clock.set(SMALL_HOURS)
    await chat.send("quiero morirme")
    [scheduled] = await chat.send("sí")  # the offer's yes, as the very next message
    assert scheduled.text == content.text("es", CaringMsg.CARING_SCHEDULED_TODAY, time="20:00")
    [cancelled] = await chat.send("cancelar el mensaje")
    assert cancelled.text == content.text("es", CaringMsg.CARING_DECLINED)


async def test_in_the_console(
    router: Router, clock: ManualClock, tmp_path: Path, text_of: Callable[..., str]
) -> None:
    me = ConsoleUser(router, tmp_path)
    for line in ("/start", "Berlin", "yes", "20:00", "yes"):
        await me.types(line)
    clock.set(SMALL_HOURS)
    await me.types(CRISIS)
    said = await me.presses(text_of(CaringMsg.CARING_OFFER_YES))
    assert text_of(CaringMsg.CARING_SCHEDULED_TODAY, time="20:00") in said
    said = await me.types("cancel the message")
    assert text_of(CaringMsg.CARING_DECLINED) in said


async def test_on_telegram(
    telegram: TelegramWorld, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    for line in ("/start", "Berlin", "yes", "20:00", "yes"):
        await telegram.says(51, line)
    clock.set(SMALL_HOURS)
    await telegram.says(51, CRISIS)
    await telegram.taps(51, text_of(CaringMsg.CARING_OFFER_YES))
    assert telegram.last_text(51) == text_of(CaringMsg.CARING_SCHEDULED_TODAY, time="20:00")
    await telegram.says(51, "cancel the message")
    assert telegram.last_text(51) == text_of(CaringMsg.CARING_DECLINED)


def test_a_late_check_in_time_of_their_own_is_kept_when_it_fits_the_window() -> None:
    user = someone_in("Europe/Berlin")
    offered_at_nine_pm = datetime(2026, 3, 2, 20, 0, tzinfo=UTC)
    due = plan_caring_check(user, "23:30", offered_at_nine_pm)
    assert due == datetime(2026, 3, 3, 22, 30, tzinfo=UTC)  # their 23:30, 26.5 h on
    offered_at_one_pm = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    due = plan_caring_check(user, "23:30", offered_at_one_pm)  # 34.5 h: too late
    assert due == datetime(2026, 3, 3, 18, 0, tzinfo=UTC)  # 30 h on, 19:00 in Berlin
