from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from bot.content_pack.ids import AnswersMsg, GeneralMsg, OnboardingMsg, SettingsMsg
from bot.core.clock import ManualClock
from bot.flows.context import Services
from bot.storage.checkin_slots import list_slots
from bot.storage.users import QuietHours, User, find_user
from tests.helpers.conversation import Conversation


async def onboarded(chat: Conversation) -> None:
    await chat.send("/start")
    await chat.send("Europe/Berlin")
    await chat.send("08:30")


async def stored(services: Services) -> tuple[User, list[str], list[datetime | None]]:
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    slots = await list_slots(services.db, user.id)
    return user, [s.local_time for s in slots], [s.next_due_at for s in slots]


async def test_menu_shows_every_setting(chat: Conversation, text_of: Callable[..., str]) -> None:
    await onboarded(chat)
    await chat.send("/settings")
    assert chat.text == text_of(
        SettingsMsg.SETTINGS_MENU,
        country=text_of(SettingsMsg.NOT_SET),
        timezone="Europe/Berlin",
        times="08:30",
        days="daily",
        quiet=text_of(SettingsMsg.QUIET_OFF),
        status=text_of(SettingsMsg.STATUS_ON),
        discreet=text_of(SettingsMsg.STATUS_ON),
        keep=text_of(SettingsMsg.KEEP_DAYS, days=180),
    )
    labels = [b.label for b in chat.last[0].flat_buttons]
    assert labels == [
        "Country", "Time zone", "Check-in times", "Days", "Quiet hours", "Pause check-ins",
        "Stop check-ins", "History kept", "Turn discreet mode off (warmer wording)", "Language",
        "Done",
    ]  # fmt: skip


async def test_changing_the_time_zone_reschedules(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboarded(chat)  # clock: 2026-03-02 09:00 UTC
    assert (await stored(services))[2] == [datetime(2026, 3, 3, 7, 30, tzinfo=UTC)]
    await chat.send("/settings")
    await chat.press("Time zone")
    await chat.send("Atlantis/Capital")
    assert chat.text == text_of(OnboardingMsg.BAD_TIMEZONE)
    await chat.send("asia/tokyo")
    assert chat.text == text_of(
        OnboardingMsg.TIMEZONE_CONFIRM, place="Tokyo, Japan (Asia/Tokyo)", time="18:00"
    )
    assert (await stored(services))[0].timezone == "Europe/Berlin"  # nothing changes before yes
    await chat.press(text_of(OnboardingMsg.TIMEZONE_YES))
    assert chat.last[0].text == text_of(SettingsMsg.SETTINGS_SAVED)
    user, _, due = await stored(services)
    assert user.timezone == "Asia/Tokyo"
    assert due == [datetime(2026, 3, 2, 23, 30, tzinfo=UTC)]  # 08:30 JST tomorrow


async def test_up_to_three_times(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboarded(chat)
    await chat.send("/settings")
    await chat.press("Check-in times")
    for bad in ("", "25:00", "08:00, 08:00", "07:00 12:00 18:00 22:00"):
        await chat.send(bad)
        assert chat.text == text_of(SettingsMsg.BAD_TIMES), bad
    await chat.send("later")  # no time in it at all: said so
    assert chat.text == text_of(AnswersMsg.TIME_NOT_READ)
    await chat.send("20:00, 7:15; 12:30")
    assert (await stored(services))[1] == ["07:15", "12:30", "20:00"]
    assert "Check-in times: 07:15, 12:30, 20:00" in chat.text


async def test_times_and_quiet_hours_cannot_overlap(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboarded(chat)
    await chat.send("/settings")
    await chat.press("Quiet hours")
    await chat.send("07:00-09:00")
    assert chat.text == text_of(SettingsMsg.QUIET_COVERS_CHECKIN, time="08:30")
    for bad in ("later", "22:00-22:00", "22:00-", "25:00-07:00"):
        await chat.send(bad)
        assert chat.text == text_of(SettingsMsg.BAD_QUIET), bad
    await chat.send("22:30 to 06:45")
    user, _, _ = await stored(services)
    assert user.quiet_hours == QuietHours(
        datetime(1, 1, 1, 22, 30).time(), datetime(1, 1, 1, 6, 45).time()
    )
    await chat.press("Check-in times")
    await chat.send("23:00")
    assert chat.text == text_of(SettingsMsg.TIME_IN_QUIET_HOURS, time="23:00", quiet="22:30-06:45")
    await chat.send("21:00")
    await chat.press("Quiet hours")
    await chat.send("off")
    user, times, _ = await stored(services)
    assert user.quiet_hours is None and times == ["21:00"]


async def test_days(chat: Conversation, services: Services, text_of: Callable[..., str]) -> None:
    await onboarded(chat)
    await chat.send("/settings")
    await chat.press("Days")
    await chat.send("someday")
    assert chat.text == text_of(SettingsMsg.BAD_DAYS)
    await chat.send("Sat, Sun")
    user, _, due = await stored(services)
    assert user.weekdays == frozenset({5, 6})
    assert due == [datetime(2026, 3, 7, 7, 30, tzinfo=UTC)]  # the next Saturday


async def test_pause_by_typing_days_and_bad_values(
    chat: Conversation, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await onboarded(chat)
    await chat.send("/settings")
    await chat.press("Pause check-ins")
    for bad in ("0", "61", "a week", "-3"):
        await chat.send(bad)
        assert chat.text == text_of(SettingsMsg.BAD_PAUSE), bad
    await chat.send("10")
    assert chat.text == text_of(SettingsMsg.PAUSED, date="Thu 12 Mar")
    user, _, due = await stored(services)
    # ten whole local days, today included: back on Thu 12 Mar, from midnight in Berlin
    assert user.paused_until == datetime(2026, 3, 11, 23, 0, tzinfo=UTC)
    assert due == [datetime(2026, 3, 12, 7, 30, tzinfo=UTC)]
    await chat.send("/settings")
    assert "Check-ins: paused, back on Thu 12 Mar" in chat.text
    await chat.press("Resume check-ins")
    assert chat.text == text_of(SettingsMsg.RESUMED, when="Tue 08:30")
    user, _, due = await stored(services)
    assert user.paused_until is None and due == [datetime(2026, 3, 3, 7, 30, tzinfo=UTC)]


async def test_stop_keeps_everything_but_schedules_nothing(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboarded(chat)
    await chat.send("/settings")
    await chat.press("Stop check-ins")
    assert chat.text == text_of(SettingsMsg.STOPPED)
    user, times, due = await stored(services)
    assert user.checkins_stopped and times == ["08:30"] and due == [None]
    await chat.send("/settings")
    assert "Check-ins: stopped" in chat.text


async def test_done_and_cancel_leave_settings(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/settings")
    not_set = text_of(SettingsMsg.NOT_SET)
    assert f"Time zone: {not_set}" in chat.text
    await chat.press("Done")
    assert chat.text == text_of(SettingsMsg.SETTINGS_CLOSED)
    await chat.send("/settings")
    await chat.press("Days")
    await chat.send("/cancel")
    assert chat.text == text_of(GeneralMsg.CANCEL_DONE)
    await chat.send("mon-fri")
    assert chat.text == text_of(GeneralMsg.UNEXPECTED_TEXT)


async def test_pause_ignores_digits_that_are_not_plain_numbers(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/settings")
    await chat.press("Pause check-ins")
    for odd in ("²", "٣", "3.5"):
        await chat.send(odd)
        assert chat.text == text_of(SettingsMsg.BAD_PAUSE), odd


async def test_discreet_mode_protects_echoed_words_until_turned_off(
    chat: Conversation, services: Services
) -> None:
    await chat.send("/reasons")
    await chat.press("Write one down")
    await chat.send("I could breathe again")
    assert chat.last[0].protect
    await chat.send("/settings")
    await chat.press("Turn discreet mode off (warmer wording)")
    assert "Discreet mode: off" in chat.text
    await chat.send("/reasons")
    assert not chat.last[0].protect
