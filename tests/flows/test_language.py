"""The language a user is written to: guessed from their app on first contact, confirmed
with one tap in onboarding, changed in /settings; typed local command names; opening
hours, dates and helplines in the user's language."""

from __future__ import annotations

import shutil
from datetime import date, timedelta
from pathlib import Path

import yaml

from bot.content_pack.ids import (
    AnswersMsg,
    CheckinMsg,
    GeneralMsg,
    OnboardingMsg,
    SafetyMsg,
    SettingsMsg,
)
from bot.content_pack.loader import load_pack
from bot.content_pack.pack import ContentPack
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.chart import ChartLabels, DayPoint, progress_figure
from bot.flows.context import Services
from bot.flows.parsing.days import read_days
from bot.safety.rules import Intent
from bot.safety.screen import SafetyScreen
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation
from tests.helpers.spanish import english_in

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"


def spanish_app(router: Router, language: str = "es-MX") -> Conversation:
    return Conversation(router, Address("console", "c1", "u1"), language_code=language)


async def locale_of(services: Services) -> str:
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    return user.locale


async def test_a_spanish_app_is_asked_first_in_spanish_and_stays_spanish(
    router: Router, services: Services, content: ContentPack
) -> None:
    assert [content.resolve_locale(code) for code in ("es-419", "es_MX", "ES", "pt-BR")] == [
        "es", "es", "es", "en",
    ]  # fmt: skip
    chat = spanish_app(router)
    await chat.send("/start")
    [question] = chat.last
    assert question.text == content.text("es", OnboardingMsg.LANGUAGE_ASK)
    assert [b.label for b in question.flat_buttons] == ["Español", "English"]
    assert await locale_of(services) == "es"  # es-MX is the pack's es, from the first contact

    await chat.press("Español")
    assert [reply.text for reply in chat.last] == [
        content.text("es", OnboardingMsg.WELCOME),
        content.text("es", OnboardingMsg.ASK_TIMEZONE),
    ]
    assert await locale_of(services) == "es"


async def test_english_chosen_on_a_spanish_app_switches_at_once(
    router: Router, services: Services, content: ContentPack
) -> None:
    chat = spanish_app(router, "es-419")
    await chat.send("/start")
    await chat.press("English")
    assert [reply.text for reply in chat.last] == [
        content.text("en", OnboardingMsg.WELCOME),
        content.text("en", OnboardingMsg.ASK_TIMEZONE),
    ]
    assert await locale_of(services) == "en"
    await chat.send("Europe/Madrid")
    assert "Madrid, Spain (Europe/Madrid)" in chat.text


async def test_the_language_can_be_typed_by_its_name(
    router: Router, services: Services, content: ContentPack
) -> None:
    chat = spanish_app(router, "es")
    await chat.send("/start")
    await chat.send("english")
    assert chat.last[0].text == content.text("en", OnboardingMsg.WELCOME)
    assert await locale_of(services) == "en"


async def test_an_app_in_the_default_language_is_not_asked(
    router: Router, services: Services, content: ContentPack
) -> None:
    for language in ("en", "en-GB", "de", None):  # German has no locale: the default, unasked
        chat = Conversation(router, Address("console", f"c-{language}", f"u-{language}"))
        chat.language_code = language
        await chat.send("/start")
        assert chat.last[0].text == content.text("en", OnboardingMsg.WELCOME), language


async def test_settings_change_the_language_and_show_the_menu_in_it(
    chat: Conversation, services: Services, content: ContentPack
) -> None:
    await chat.send("/start")
    await chat.send("Europe/Madrid")
    await chat.send("08:30")
    await chat.send("/settings")
    await chat.press(content.text("en", SettingsMsg.SETTINGS_CHANGE_LANGUAGE))
    assert chat.last[0].text == content.text("en", OnboardingMsg.LANGUAGE_ASK)
    assert [b.label for b in chat.last[0].flat_buttons] == ["English", "Español"]
    await chat.press("Español")
    saved, menu = chat.last
    assert saved.text == content.text("es", OnboardingMsg.LANGUAGE_SAVED)
    assert content.text("es", SettingsMsg.SETTINGS_CHANGE_LANGUAGE) in [
        b.label for b in menu.flat_buttons
    ]
    assert content.text("es", SettingsMsg.SETTINGS_DONE) in [b.label for b in menu.flat_buttons]
    assert await locale_of(services) == "es"
    await chat.send("/checkin")  # and what comes after is in Spanish too
    assert content.text("es", CheckinMsg.MOOD_4) in [b.label for b in chat.last[-1].flat_buttons]


async def test_a_command_typed_by_its_spanish_name_runs_it(
    router: Router, content: ContentPack
) -> None:
    chat = spanish_app(router)
    await chat.send("/start")
    await chat.press("Español")
    await chat.send("/ajustes")
    assert content.text("es", SettingsMsg.SETTINGS_DONE) in [
        b.label for b in chat.last[-1].flat_buttons
    ]
    await chat.send("/AYUDA")
    assert chat.text != content.text("es", GeneralMsg.UNKNOWN_COMMAND)
    assert content.command_named("fechas") is not None
    assert content.command_named("nada-de-esto") is None


def test_opening_hours_read_in_the_users_language(content: ContentPack) -> None:
    daily = content.text("es", SafetyMsg.HOURS_DAILY)
    assert content.hours("es", "Mon–Fri 8:00–24:00") == "lun–vie 8:00–24:00"
    assert content.hours("es", "Daily 8:00–24:00") == f"{daily} 8:00–24:00"
    assert content.hours("es", "Sat–Sun 10:00–14:00, Mon 9:00–12:00") == (
        "sáb–dom 10:00–14:00, lun 9:00–12:00"
    )
    assert content.hours("es", "Hours vary") == content.text("es", SafetyMsg.HOURS_VARY)
    assert content.hours("es", "24/7") == "24/7"
    # The default locale reads them exactly as the data writes them.
    for country in content.crisis("en").countries:
        for resource in country.resources:
            assert content.hours("en", resource.hours) == resource.hours


async def test_a_pause_until_a_date_names_the_day_in_spanish(
    router: Router, services: Services, content: ContentPack
) -> None:
    chat = spanish_app(router, "es-ES")
    await chat.send("/start")
    await chat.press("Español")
    await chat.send("Europe/Madrid")
    await chat.send("08:30")
    await chat.send("/ajustes")
    await chat.press(content.text("es", SettingsMsg.SETTINGS_PAUSE))
    await chat.send("3")
    # Three days with today: back on Thursday 5 March, "jue 05 mar".
    assert chat.text == content.text("es", SettingsMsg.PAUSED, date="jue 05 mar")


def test_helplines_of_a_country_the_spanish_pack_lacks_come_framed_in_spanish(
    tmp_path: Path, content: ContentPack
) -> None:
    copy = tmp_path / "content"
    shutil.copytree(REPO_CONTENT, copy)
    crisis = copy / "es" / "crisis.yaml"
    data = yaml.safe_load(crisis.read_text("utf-8"))
    data["countries"] = [c for c in data["countries"] if c["code"] != "GB"]
    crisis.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "utf-8")
    pack = load_pack(copy, "en")
    assert pack.country_resources("es", "GB") == pack.country_resources("en", "GB")
    replies = SafetyScreen(pack).sos_replies("es", "GB", False, None)
    text = "\n".join(reply.text for reply in replies)
    assert "116 123" in text  # Samaritans, borrowed with its own name and number
    assert pack.country_in_sentence("es", "GB") in text  # "el Reino Unido"
    labels = [b.label for reply in replies for b in reply.flat_buttons]
    assert english_in(content, [text], labels) == []  # every sentence around it in Spanish


def test_every_locale_screens_every_locales_words(content: ContentPack) -> None:
    """Someone whose locale is Spanish may write in English, and the other way round."""
    screen = SafetyScreen(content)
    assert screen.detector("es").detect("i want to kill myself").needs_safety_reply
    assert Intent.CONTACTED in screen.detector("es").detect("he texted me again").intents
    assert Intent.URGE in screen.detector("en").detect("quiero escribirle ya").intents


def test_days_are_read_in_spanish_as_the_menu_shows_them() -> None:
    weekdays, weekend = frozenset(range(5)), frozenset({5, 6})
    assert read_days("de lunes a viernes") == weekdays
    assert read_days("Entre semana") == weekdays
    assert read_days("lun-vie") == weekdays
    assert read_days("sáb y dom") == weekend
    assert read_days("los fines de semana") == weekend
    assert read_days("lun, mié, vie") == frozenset({0, 2, 4})
    assert read_days("todos los días") == frozenset(range(7))
    assert read_days("Monday to Friday") == weekdays  # English still reads
    assert read_days("cuando pueda") is None


async def test_the_settings_menu_names_days_in_spanish(
    router: Router, services: Services, content: ContentPack
) -> None:
    chat = spanish_app(router, "es-ES")
    await chat.send("/start")
    await chat.press("Español")
    await chat.send("Europe/Madrid")
    await chat.send("08:30")
    await chat.send("/ajustes")
    assert content.text("es", SafetyMsg.HOURS_DAILY) in chat.text  # every day, in Spanish
    await chat.press(content.text("es", SettingsMsg.SETTINGS_CHANGE_DAYS))
    await chat.send("de lunes a viernes")
    assert "lun-vie" in chat.text
    user = await find_user(services.db, "console", "u1")
    assert user is not None and user.weekdays == frozenset(range(5))


async def test_places_and_countries_typed_in_spanish_are_understood(
    router: Router, services: Services, content: ContentPack
) -> None:
    chat = spanish_app(router, "es-MX")
    await chat.send("/start")
    await chat.press("Español")
    await chat.send("Ciudad de México")
    assert "(America/Mexico_City)" in chat.text
    await chat.send("08:30")
    await chat.press(content.text("es", OnboardingMsg.COUNTRY_OTHER))
    await chat.send("estados unidos")  # typed, as a Spanish speaker names it
    user = await find_user(services.db, "console", "u1")
    assert user is not None and (user.timezone, user.country) == ("America/Mexico_City", "US")
    # A country that disagrees with the time zone is asked about, once, in Spanish.
    mexico, us = content.country_label("es", "MX"), content.country_label("es", "US")
    assert chat.text == content.text(
        "es", AnswersMsg.COUNTRY_ZONE_MISMATCH, zone_country=mexico, country=us
    )
    await chat.send("los dos son correctos")  # a label typed, in Spanish
    assert chat.text == content.text(
        "es", AnswersMsg.MISMATCH_KEPT, country=content.country_in_sentence("es", "US")
    )


async def test_a_place_typed_instead_of_a_language_keeps_the_guess_and_is_read(
    router: Router, services: Services, content: ContentPack
) -> None:
    chat = spanish_app(router, "es-ES")
    await chat.send("/start")
    await chat.send("Madrid")  # no tap: Spanish it is, and Madrid answers the next question
    welcome, confirm = chat.last
    assert welcome.text == content.text("es", OnboardingMsg.WELCOME)
    assert "Madrid, España (Europe/Madrid)" in confirm.text
    assert await locale_of(services) == "es"
    other = Conversation(router, Address("console", "c2", "u2"), language_code="es")
    await other.send("/start")
    await other.send("hola")  # neither a language nor a place: Spanish, and the usual start
    assert [reply.text for reply in other.last] == [
        content.text("es", OnboardingMsg.WELCOME),
        content.text("es", OnboardingMsg.ASK_TIMEZONE),
    ]


def test_the_chart_names_its_months_in_the_users_language() -> None:
    day = date(2026, 1, 30)
    labels = ChartLabels(mood="Ánimo", pull="Impulso", locale="es")
    figure = progress_figure([DayPoint(day, 3.0, 1)], day - timedelta(days=29), day, labels)
    ticks = [tick.get_text() for tick in figure.axes[0].get_xticklabels()]
    assert ticks[0] == "01 ene" and "08 ene" in ticks


def test_spanish_speakers_in_the_united_states_get_the_spanish_options(
    content: ContentPack,
) -> None:
    spanish = content.country_resources("es", "US")
    english = content.country_resources("en", "US")
    assert spanish is not None and english is not None and spanish != english
    assert {r.kind for r in spanish.resources} == {"crisis", "domestic_abuse"}
    assert all("español" in r.contact for r in spanish.resources)
    for code in ("ES", "MX", "AR", "CO", "CL", "PE", "UY", "PR"):
        found = content.country_resources("es", code)
        assert found is not None and found.resources, code
        assert found in content.crisis("es").countries, code  # written in Spanish, not borrowed
