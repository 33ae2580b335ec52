"""Times and places as people write them: number words, "half eight", "9ish", a part of
the day offered as times to tap, days said with the time, each refusal naming the real
problem; towns beyond the zone data's own list, "I live in ...", near spellings, always
confirmed by name ("Leeds, United Kingdom"), in English and Spanish, in the core, the
console and on Telegram."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.content_pack.ids import AnswersMsg, Msg, OnboardingMsg, SettingsMsg
from bot.content_pack.pack import ContentPack
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage import checkin_slots
from bot.storage.users import User, find_user
from tests.helpers.console_chat import ConsoleUser
from tests.helpers.conversation import Conversation
from tests.helpers.telegram_world import TelegramWorld

LEEDS = "Leeds, United Kingdom (Europe/London)"


async def me(services: Services, user: str = "u1") -> User:
    found = await find_user(services.db, "console", user)
    assert found is not None
    return found


@pytest.mark.parametrize(
    "typed", ["leeds", "Leeds", "i live in leeds", "I'm in Leeds", "near Leeds", "Leeds, UK"]
)
async def test_a_town_is_found_and_confirmed_by_name(
    chat: Conversation, services: Services, text_of: Callable[..., str], typed: str
) -> None:
    await chat.send("/start")
    await chat.send(typed)
    assert chat.text == text_of(OnboardingMsg.TIMEZONE_CONFIRM, place=LEEDS, time="09:00")
    assert (await me(services)).timezone is None  # nothing before the yes
    await chat.send("yes")
    assert (await me(services)).timezone == "Europe/London"


@pytest.mark.parametrize(
    ("typed", "place"),
    [
        ("leds", LEEDS),
        ("Liverpol", "Liverpool, United Kingdom (Europe/London)"),
        ("edinbrugh", "Edinburgh, United Kingdom (Europe/London)"),
    ],
)
async def test_a_near_spelling_is_asked_about(
    chat: Conversation, text_of: Callable[..., str], typed: str, place: str
) -> None:
    await chat.send("/start")
    await chat.send(typed)
    assert chat.text == text_of(AnswersMsg.PLACE_DID_YOU_MEAN, place=place, time="09:00")


async def test_one_name_in_several_countries_is_offered_by_country(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    await chat.send("Springfield")
    labels = [b.label for b in chat.last[-1].flat_buttons]
    assert any(label.startswith("Springfield, United States · ") for label in labels)
    await chat.send("/cancel")
    await chat.send("/start")
    await chat.send("Cordoba, Spain")
    assert chat.text == text_of(
        OnboardingMsg.TIMEZONE_CONFIRM, place="Córdoba, Spain (Europe/Madrid)", time="10:00"
    )


async def test_places_in_spanish(router: Router, content: ContentPack) -> None:
    chat = Conversation(router, Address("console", "c1", "u1"), language_code="es")
    await chat.send("/start")
    await chat.send("Español")
    await chat.send("vivo en Leeds")
    uk = content.country_label("es", "GB")
    assert chat.text == content.text(
        "es", OnboardingMsg.TIMEZONE_CONFIRM, place=f"Leeds, {uk} (Europe/London)", time="09:00"
    )
    await chat.send("no")
    await chat.send("Londres")
    assert f"Londres, {uk} (Europe/London)" in chat.text
    await chat.send("no")
    await chat.send("Nueva York")
    assert "(America/New_York)" in chat.text


async def at_the_time_question(chat: Conversation) -> None:
    await chat.send("/start")
    await chat.send("Berlin")
    await chat.send("yes")


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("eight pm", "20:00"),
        ("Eight in the evening", "20:00"),
        ("half eight", "08:30"),
        ("half past seven pm", "19:30"),
        ("quarter to nine", "08:45"),
        ("9ish", "09:00"),
        ("around 9pm", "21:00"),
        ("ten at night", "22:00"),
        ("seven thirty am", "07:30"),
    ],
)
async def test_times_in_words(
    chat: Conversation, services: Services, typed: str, value: str
) -> None:
    await at_the_time_question(chat)
    await chat.send(typed)
    slots = await checkin_slots.list_slots(services.db, (await me(services)).id)
    assert [slot.local_time for slot in slots] == [value]


@pytest.mark.parametrize(
    ("typed", "refusal"),
    [
        ("13pm", OnboardingMsg.BAD_TIME_12H),
        ("25:00", OnboardingMsg.BAD_TIME),
        ("8:75", AnswersMsg.TIME_BAD_MINUTES),
        ("whenever suits", AnswersMsg.TIME_NOT_READ),
    ],
)
async def test_each_refusal_names_the_real_problem(
    chat: Conversation, text_of: Callable[..., str], typed: str, refusal: Msg
) -> None:
    await at_the_time_question(chat)
    await chat.send(typed)
    assert chat.text == text_of(refusal)


async def test_a_part_of_the_day_offers_its_times(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await at_the_time_question(chat)
    await chat.send("evening")
    assert chat.text == text_of(AnswersMsg.TIMES_PICK)
    await chat.press("20:00 (8:00 pm)")
    slots = await checkin_slots.list_slots(services.db, (await me(services)).id)
    assert [slot.local_time for slot in slots] == ["20:00"]


async def test_days_said_with_the_time_are_kept(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await at_the_time_question(chat)
    await chat.send("weekdays 8pm")
    assert text_of(AnswersMsg.TIME_DAYS_TOO, days="mon-fri") in chat.text
    user = await me(services)
    assert user.weekdays == frozenset(range(5))


async def test_times_in_spanish(router: Router, services: Services, content: ContentPack) -> None:
    chat = Conversation(router, Address("console", "c1", "u1"), language_code="es")
    for line in ("/start", "Español", "Madrid", "sí"):
        await chat.send(line)
    await chat.send("por la noche")
    assert chat.text == content.text("es", AnswersMsg.TIMES_PICK)
    await chat.send("/cancel")
    await chat.send("/settings")
    await chat.press(content.text("es", SettingsMsg.SETTINGS_CHANGE_TIMES))
    await chat.send("8:75")
    assert chat.text == content.text("es", AnswersMsg.TIME_BAD_MINUTES)


async def test_in_the_console(router: Router, tmp_path: Path, text_of: Callable[..., str]) -> None:
    me_ = ConsoleUser(router, tmp_path)
    await me_.types("/start")
    said = await me_.types("i live in leeds")
    assert LEEDS in said
    await me_.types("yes")
    said = await me_.types("morning")
    assert text_of(AnswersMsg.TIMES_PICK) in said
    said = await me_.presses("08:00 (8:00 am)")
    assert (
        text_of(OnboardingMsg.ONBOARDING_DONE, time="08:00 (8:00 am)", timezone="Europe/London")
        in said
    )


async def test_on_telegram(telegram: TelegramWorld, text_of: Callable[..., str]) -> None:
    await telegram.says(61, "/start")
    await telegram.says(61, "leeds")
    assert telegram.last_text(61) == text_of(
        OnboardingMsg.TIMEZONE_CONFIRM, place=LEEDS, time="09:00"
    )
    await telegram.says(61, "yes")
    await telegram.says(61, "eight pm")
    assert text_of(
        OnboardingMsg.ONBOARDING_DONE, time="20:00 (8:00 pm)", timezone="Europe/London"
    ) in (telegram.tg.sent_texts(61))


def test_the_list_of_towns_is_read_on_first_use_not_at_start() -> None:
    """Importing everything a worker runs reads no place data (start-up stays fast)."""
    probe = (
        "import bot.app, bot.engine.router, bot.flows.onboarding\n"
        "from bot.flows.parsing.places import places_ready\n"
        "print(places_ready())"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "False"
