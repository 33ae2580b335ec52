"""/dates on Telegram: a hard date added in the conversation, and its morning check-in."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from bot.content_pack.ids import CheckinMsg, DatesMsg
from bot.storage import hard_dates
from bot.storage.users import find_user
from tests.helpers.telegram_world import TelegramWorld

ANA = 1001


async def test_a_date_added_by_taps_and_typing_brings_its_morning_checkin(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    for said in ("/start", "Europe/Berlin", "20:00"):
        await telegram.says(ANA, said)
    await telegram.says(ANA, "/dates")
    assert telegram.last_text(ANA).startswith(text_of(DatesMsg.DATES_EMPTY).split("\n")[0])
    await telegram.taps(ANA, text_of(DatesMsg.DATES_ADD))
    await telegram.taps(ANA, text_of(DatesMsg.DATES_KIND_LEGAL))
    await telegram.says(ANA, "4 March 2026")
    await telegram.taps(ANA, text_of(DatesMsg.DATES_ONCE))
    await telegram.says(ANA, "Court <hearing> & papers")  # escaped, not read as markup
    listed = telegram.last_text(ANA)
    assert text_of(DatesMsg.DATES_ADDED, date="March 4, 2026") in listed
    assert "Court <hearing> & papers" in listed
    user = await find_user(telegram.services.db, "telegram", str(ANA))
    assert user is not None
    [saved] = await hard_dates.list_dates(telegram.services.db, telegram.services.cipher, user.id)
    assert saved.label == "Court <hearing> & papers"

    telegram.clock.set(datetime(2026, 3, 4, 8, 0, tzinfo=UTC))  # 09:00 in Berlin
    await telegram.dispatcher.tick()
    await telegram.outbox.drain()
    morning = telegram.last_text(ANA)
    assert morning.splitlines()[0] == text_of(DatesMsg.DATES_OPENING)
    assert text_of(DatesMsg.DATES_DAY_DISCREET) in morning  # discreet: no kind of day named
    assert "Court" not in morning  # discreet mode: the label stays out of it
    call = telegram.tg.calls_to("sendMessage")[-1]
    assert call.params.get("disable_notification") in (None, False)
    await telegram.taps(ANA, text_of(CheckinMsg.MOOD_2))
    assert telegram.last_text(ANA) == text_of(CheckinMsg.ASK_URGE)
