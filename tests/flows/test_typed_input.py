"""What people really type: places for time zones, times, days, quiet hours, button labels."""

from __future__ import annotations

from collections.abc import Callable
from datetime import time

import pytest

from bot.content_pack.ids import CheckinMsg, Msg, OnboardingMsg, PauseMsg, ReasonsMsg, SettingsMsg
from bot.flows.context import Services
from bot.flows.onboarding import OnboardingStep
from bot.storage.checkin_slots import list_slots
from bot.storage.checkins import list_checkins
from bot.storage.flow_positions import get_position
from bot.storage.users import QuietHours, User, find_user
from tests.helpers.conversation import Conversation

# The clock stands at Monday 2026-03-02 09:00 UTC.


async def me(services: Services) -> User:
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    return user


@pytest.mark.parametrize(
    ("typed", "place", "local"),
    [
        ("berlin", "Berlin, Germany (Europe/Berlin)", "10:00"),
        ("Berlin", "Berlin, Germany (Europe/Berlin)", "10:00"),
        ("London", "London, United Kingdom (Europe/London)", "09:00"),
        ("New York", "New York, United States (America/New_York)", "04:00"),
        ("new york city", "New York City, United States (America/New_York)", "04:00"),
        ("Kolkata", "Kolkata, India (Asia/Kolkata)", "14:30"),
        ("Sao Paulo", "Sao Paulo, Brazil (America/Sao_Paulo)", "06:00"),
        ("São Paulo", "Sao Paulo, Brazil (America/Sao_Paulo)", "06:00"),
        ("germany", "Berlin, Germany (Europe/Berlin)", "10:00"),
    ],
)
async def test_a_city_or_country_is_confirmed_by_its_time_now(
    chat: Conversation,
    services: Services,
    text_of: Callable[..., str],
    typed: str,
    place: str,
    local: str,
) -> None:
    await chat.send("/start")
    [confirm] = await chat.send(typed)
    assert confirm.text == text_of(OnboardingMsg.TIMEZONE_CONFIRM, place=place, time=local)
    assert [b.label for b in confirm.flat_buttons] == [
        text_of(OnboardingMsg.TIMEZONE_YES),
        text_of(OnboardingMsg.TIMEZONE_AGAIN),
    ]
    assert (await me(services)).timezone is None  # nothing is stored before a yes
    await chat.press(text_of(OnboardingMsg.TIMEZONE_YES))
    assert chat.text == text_of(OnboardingMsg.ASK_TIME)
    assert (await me(services)).timezone == place.split("(")[1].rstrip(")")


async def test_a_wrong_guess_can_be_tried_again(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    await chat.send("London")
    await chat.send("no")  # typed, like the button's first word
    assert chat.text == text_of(OnboardingMsg.TIMEZONE_ASK_AGAIN)
    await chat.send("Kolkata")
    await chat.send("Yes please")
    assert chat.text == text_of(OnboardingMsg.ASK_TIME)
    assert (await me(services)).timezone == "Asia/Kolkata"


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("USA", ["New York · 04:00", "Chicago · 03:00", "Denver · 02:00", "Phoenix · 02:00"]),
        ("Australia", ["Sydney · 20:00", "Brisbane · 19:00", "Perth · 17:00"]),
        ("Brazil", ["Sao Paulo · 06:00", "Noronha · 07:00"]),
    ],
)
async def test_a_country_with_several_zones_offers_buttons(
    chat: Conversation,
    services: Services,
    text_of: Callable[..., str],
    typed: str,
    expected: list[str],
) -> None:
    await chat.send("/start")
    [pick] = await chat.send(typed)
    assert pick.text == text_of(OnboardingMsg.TIMEZONE_PICK)
    labels = [button.label for button in pick.flat_buttons]
    assert set(expected) <= set(labels)
    assert labels[-1] == text_of(OnboardingMsg.TIMEZONE_NONE_OF_THESE)
    await chat.press(expected[0])
    city = expected[0].split(" · ")[0]
    assert chat.text.startswith(f"It's {expected[0].split(' · ')[1]} in {city}, ")
    await chat.press(text_of(OnboardingMsg.TIMEZONE_YES))
    timezone = (await me(services)).timezone
    assert timezone is not None and timezone.endswith(city.replace(" ", "_"))


@pytest.mark.parametrize(
    ("typed", "offered"),
    [
        ("GMT+2", "Athens · 11:00"),
        ("UTC-5", "New York · 04:00"),
        ("EST", "New York · 04:00"),
        ("CET", "Berlin · 10:00"),
        ("PST", "Los Angeles · 01:00"),
        ("Etc/GMT+2", "Athens · 11:00"),  # read as it looks to a person: two hours ahead
    ],
)
async def test_offsets_and_abbreviations_offer_places_and_are_never_stored(
    chat: Conversation,
    services: Services,
    text_of: Callable[..., str],
    typed: str,
    offered: str,
) -> None:
    await chat.send("/start")
    [pick] = await chat.send(typed)
    assert pick.text == text_of(OnboardingMsg.TIMEZONE_PICK_FIXED)
    assert offered in [button.label for button in pick.flat_buttons]
    user = await me(services)
    assert user.timezone is None
    position = await get_position(services.db, user.id)
    assert position is not None and position.step == OnboardingStep.TZPICK
    await chat.press(offered)
    await chat.press(text_of(OnboardingMsg.TIMEZONE_YES))
    assert (await me(services)).timezone not in {typed, "EST", "CET", "PST8PDT", "Etc/GMT+2"}


async def test_settings_use_the_same_places(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboarded(chat)
    await chat.send("/settings")
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_TIMEZONE))
    assert chat.text == text_of(SettingsMsg.SETTINGS_ASK_TIMEZONE)
    await chat.send("UTC-5")
    await chat.press("New York")
    assert chat.text == text_of(
        OnboardingMsg.TIMEZONE_CONFIRM,
        place="New York, United States (America/New_York)",
        time="04:00",
    )
    assert (await me(services)).timezone == "Europe/Berlin"
    await chat.send("yes")
    assert chat.last[0].text == text_of(SettingsMsg.SETTINGS_SAVED)
    assert (await me(services)).timezone == "America/New_York"


async def onboarded(chat: Conversation) -> None:
    await chat.send("/start")
    await chat.send("Berlin")
    await chat.send("8:30")  # a time typed instead of "yes": both answered at once
    assert "Your check-in time is 08:30 (8:30 am), Europe/Berlin time." in chat.text


@pytest.mark.parametrize(
    ("typed", "stored", "both"),
    [
        ("8am", "08:00", "08:00 (8:00 am)"),
        ("8 am", "08:00", "08:00 (8:00 am)"),
        ("8:30pm", "20:30", "20:30 (8:30 pm)"),
        ("0830", "08:30", "08:30 (8:30 am)"),
        ("20h", "20:00", "20:00 (8:00 pm)"),
        ("9", "09:00", "09:00 (9:00 am)"),
        ("noon", "12:00", "12:00 (12:00 pm)"),
        ("midnight", "00:00", "00:00 (12:00 am)"),
        ("8.30", "08:30", "08:30 (8:30 am)"),
        ("20:00", "20:00", "20:00 (8:00 pm)"),
    ],
)
async def test_times_as_people_type_them(
    chat: Conversation,
    services: Services,
    text_of: Callable[..., str],
    typed: str,
    stored: str,
    both: str,
) -> None:
    await chat.send("/start")
    await chat.send("Berlin")
    await chat.send("yes")
    done, _ = await chat.send(typed)
    assert done.text == text_of(OnboardingMsg.ONBOARDING_DONE, time=both, timezone="Europe/Berlin")
    assert [slot.local_time for slot in await list_slots(services.db, (await me(services)).id)] == [
        stored
    ]


@pytest.mark.parametrize(
    ("typed", "refusal"),
    [
        ("25pm", OnboardingMsg.BAD_TIME_12H),
        ("13 am", OnboardingMsg.BAD_TIME_12H),
        ("2561", OnboardingMsg.BAD_TIME),
    ],
)
async def test_a_refused_time_is_explained_in_the_form_typed(
    chat: Conversation, text_of: Callable[..., str], typed: str, refusal: Msg
) -> None:
    await chat.send("/start")
    await chat.send("Berlin")
    await chat.send("yes")
    assert await chat.send(typed) and chat.text == text_of(refusal)
    assert ("pm" in chat.text) is (refusal is OnboardingMsg.BAD_TIME_12H)


async def test_settings_times_are_shown_back_both_ways(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await onboarded(chat)
    await chat.send("/settings")
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_TIMES))
    await chat.send("7am and 8:30 pm")
    assert chat.last[0].text == text_of(
        SettingsMsg.TIMES_SAVED, times="07:00 (7:00 am), 20:30 (8:30 pm)"
    )
    await chat.send("/settings")
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_TIMES))
    await chat.send("25pm")
    assert chat.text == text_of(SettingsMsg.BAD_TIMES_12H)


@pytest.mark.parametrize(
    ("typed", "days"),
    [
        ("Monday to Friday", {0, 1, 2, 3, 4}),
        ("mon-fri", {0, 1, 2, 3, 4}),
        ("weekdays", {0, 1, 2, 3, 4}),
        ("weekends", {5, 6}),
        ("every day", set(range(7))),
    ],
)
async def test_days_as_people_type_them(
    chat: Conversation, services: Services, text_of: Callable[..., str], typed: str, days: set[int]
) -> None:
    await onboarded(chat)
    await chat.send("/settings")
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_DAYS))
    await chat.send(typed)
    assert chat.last[0].text == text_of(SettingsMsg.SETTINGS_SAVED)
    assert (await me(services)).weekdays == frozenset(days)


@pytest.mark.parametrize("typed", ["22-7", "22:00 - 07:00", "10pm to 7am", "22:00-07:00"])
async def test_quiet_hours_as_people_type_them(
    chat: Conversation, services: Services, text_of: Callable[..., str], typed: str
) -> None:
    await onboarded(chat)
    await chat.send("/settings")
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_QUIET))
    await chat.send(typed)
    assert chat.last[0].text == text_of(SettingsMsg.SETTINGS_SAVED)
    assert (await me(services)).quiet_hours == QuietHours(time(22, 0), time(7, 0))


async def test_quiet_hours_refused_in_am_pm_are_explained_in_am_pm(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await onboarded(chat)
    await chat.send("/settings")
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_QUIET))
    await chat.send("10pm to 13am")
    assert chat.text == text_of(SettingsMsg.BAD_QUIET_12H)


@pytest.mark.parametrize("typed", ["skip", "Skip", "SKIP!", " skip. "])
async def test_typing_skip_skips_the_note_instead_of_saving_it(
    chat: Conversation, services: Services, text_of: Callable[..., str], typed: str
) -> None:
    await chat.send("/checkin")
    await chat.send("okay")  # the mood button "4 · okay"
    await chat.send("none")  # the urge button "None"
    [saved] = await chat.send(typed)
    assert saved.text.startswith(text_of(CheckinMsg.CHECKIN_SAVED))
    [answer] = await list_checkins(services.db, (await me(services)).id)
    assert (answer.mood, answer.urge, answer.sealed_note) == (4, "none", None)


async def test_typed_yes_and_no_answer_an_offer(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("strong")
    await chat.send("skip")
    assert chat.last[-1].text == text_of(PauseMsg.PAUSE_OFFER)
    await chat.send("no")
    assert chat.text == text_of(PauseMsg.PAUSE_NOT_NOW)


async def test_a_typed_label_from_an_older_step_presses_nothing(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/reasons")
    await chat.send(text_of(ReasonsMsg.REASONS_ADD).lower())  # its button's label, typed
    assert chat.text == text_of(ReasonsMsg.REASONS_ASK)
    await chat.send("Done")  # a label of the list, which is no longer shown: a reason
    assert chat.text.startswith(text_of(ReasonsMsg.REASONS_ADDED))
    assert "1. Done" in chat.text
