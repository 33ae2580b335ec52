"""Short answers are never codes: a yes or a no, in any language the pack reads, answers
the question that can take it and is never a country or a zone; a code is read only
where nothing else fits, always confirmed by name; a country that disagrees with the
time zone is asked about once."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.content_pack.ids import AnswersMsg, OnboardingMsg, SettingsMsg
from bot.content_pack.pack import ContentPack
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage.users import User, find_user
from tests.helpers.conversation import Conversation


async def me(services: Services, user: str = "u1") -> User:
    found = await find_user(services.db, "console", user)
    assert found is not None
    return found


async def at_the_country_question(chat: Conversation, place: str = "Berlin") -> None:
    await chat.send("/start")
    await chat.send(place)
    await chat.send("yes")
    await chat.send("8pm")


@pytest.mark.parametrize("no", ["no", "No", "NO", "nope", "no thanks", "nein", "non", "nahi"])
async def test_no_at_the_suggested_country_asks_for_another_never_norway(
    chat: Conversation, services: Services, text_of: Callable[..., str], no: str
) -> None:
    await at_the_country_question(chat)
    assert "Germany" in chat.text
    await chat.send(no)
    assert chat.text == text_of(OnboardingMsg.ASK_COUNTRY)
    await chat.send(no)  # again: still a no, never a code
    assert chat.text == text_of(OnboardingMsg.ASK_COUNTRY)
    assert (await me(services)).country is None
    await chat.send("/sos")
    assert "Norway" not in chat.text and "Niger" not in chat.text


@pytest.mark.parametrize("yes", ["yes", "Yes!", "yep", "ok", "sure", "ja", "oui", "sí", "si"])
async def test_yes_at_the_suggested_country_saves_it(
    chat: Conversation, services: Services, text_of: Callable[..., str], yes: str
) -> None:
    await at_the_country_question(chat)
    await chat.send(yes)
    assert (await me(services)).country == "DE"
    assert chat.text == text_of(OnboardingMsg.COUNTRY_SAVED, country="Germany")


async def test_a_code_is_confirmed_by_name_before_it_is_saved(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await at_the_country_question(chat)
    await chat.press(text_of(OnboardingMsg.COUNTRY_OTHER))
    await chat.send("at")
    assert chat.text == text_of(AnswersMsg.COUNTRY_CODE_CONFIRM, country="Austria")
    assert (await me(services)).country is None  # nothing saved before the yes
    await chat.send("no")
    assert chat.text == text_of(OnboardingMsg.ASK_COUNTRY)
    await chat.send("se")
    assert chat.text == text_of(AnswersMsg.COUNTRY_CODE_CONFIRM, country="Sweden")
    await chat.send("yes")
    assert (await me(services)).country == "SE"  # Berlin's time is Sweden's: no question


@pytest.mark.parametrize("word", ["yes", "no", "sí", "ok", "ja", "nein"])
async def test_a_yes_or_a_no_is_never_a_place(
    chat: Conversation, services: Services, text_of: Callable[..., str], word: str
) -> None:
    await chat.send("/start")
    await chat.send(word)
    assert chat.text == text_of(AnswersMsg.NOT_A_PLACE)
    assert (await me(services)).timezone is None


async def test_a_zone_confirmed_with_a_yes_in_another_language(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    await chat.send("Lisbon")
    await chat.send("nein")  # "No, try another place"
    assert chat.text == text_of(OnboardingMsg.TIMEZONE_ASK_AGAIN)
    await chat.send("Lisbon")
    await chat.send("oui")
    assert chat.text == text_of(OnboardingMsg.ASK_TIME)
    assert (await me(services)).timezone == "Europe/Lisbon"


def spanish(router: Router) -> Conversation:
    return Conversation(router, Address("console", "c1", "u1"), language_code="es-MX")


async def test_si_at_a_choice_of_mexican_zones_is_not_slovenia(
    router: Router, services: Services, content: ContentPack
) -> None:
    chat = spanish(router)
    await chat.send("/start")
    await chat.press("Español")
    await chat.send("México")
    assert chat.text == content.text("es", OnboardingMsg.TIMEZONE_PICK)
    await chat.send("sí")
    assert chat.text == content.text("es", AnswersMsg.NOT_A_PLACE)
    assert (await me(services)).timezone is None
    await chat.press("Ciudad de México")
    await chat.send("Sí")  # "Sí, es correcto"
    assert chat.text == content.text("es", OnboardingMsg.ASK_TIME)
    await chat.send("20:00")
    assert content.country_in_sentence("es", "MX") in chat.text  # "¿Es México?"
    await chat.send("sí, gracias")
    user = await me(services)
    assert (user.timezone, user.country) == ("America/Mexico_City", "MX")
    assert chat.text == content.text(
        "es", OnboardingMsg.COUNTRY_SAVED, country=content.country_in_sentence("es", "MX")
    )


async def test_a_country_against_the_zone_is_asked_about_once_and_fixed(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await at_the_country_question(chat, "Ljubljana")
    await chat.press(text_of(OnboardingMsg.COUNTRY_OTHER))
    await chat.send("Mexico")
    assert chat.text == text_of(
        AnswersMsg.COUNTRY_ZONE_MISMATCH, zone_country="Slovenia", country="Mexico"
    )
    await chat.send("mexico")  # the button's label, typed: Mexico is right, the zone is not
    assert chat.text == text_of(OnboardingMsg.TIMEZONE_PICK)
    await chat.press("Mexico City")
    await chat.send("yes")
    assert chat.text == text_of(AnswersMsg.ZONE_SAVED, place="Mexico City")
    user = await me(services)
    assert (user.timezone, user.country) == ("America/Mexico_City", "MX")
    await chat.send("/settings")  # asked once: nothing more about it
    assert text_of(
        AnswersMsg.COUNTRY_ZONE_MISMATCH, zone_country="Slovenia", country="Mexico"
    ) not in (chat.text)


async def test_the_zone_s_country_or_both_can_be_kept(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await at_the_country_question(chat, "Ljubljana")
    await chat.send("no")
    await chat.send("Mexico")
    await chat.press("Slovenia")
    assert (await me(services)).country == "SI"
    assert chat.text == text_of(OnboardingMsg.COUNTRY_SAVED, country="Slovenia")
    await chat.send("/settings")
    await chat.press(text_of(SettingsMsg.SETTINGS_CHANGE_TIMEZONE))
    await chat.send("Tokyo")
    await chat.send("yes")
    assert chat.text.endswith(
        text_of(AnswersMsg.ZONE_COUNTRY_MISMATCH, zone_country="Japan", country="Slovenia")
    )
    await chat.send("both are right")
    assert text_of(AnswersMsg.MISMATCH_KEPT, country="Slovenia") in chat.text
    user = await me(services)
    assert (user.timezone, user.country) == ("Asia/Tokyo", "SI")
