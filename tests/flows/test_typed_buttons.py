"""A typed answer works at every step that shows buttons, and at buttons of no step: a
crisis reply's countries, "More helplines", "My plan", the check's two buttons, the reply
to text nobody asked for, typed by label or (for a country) by name, in any case or
accent, in English and in Spanish."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.content_pack.ids import GeneralMsg, PlanMsg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation

CRISIS = "i want to kill myself"


@pytest.mark.parametrize(
    ("typed", "code", "number"),
    [
        ("United Kingdom", "GB", "999"),
        ("united kingdom", "GB", "999"),
        ("UK", "GB", "999"),
        ("germany", "DE", "112"),
        ("ESPAÑA", "ES", "112"),
        ("espana", "ES", "112"),
        ("Canada", "CA", "911"),  # a country the picker did not show
    ],
)
async def test_a_country_typed_at_the_crisis_picker_gives_its_numbers(
    chat: Conversation,
    services: Services,
    text_of: Callable[..., str],
    typed: str,
    code: str,
    number: str,
) -> None:
    [crisis] = await chat.send(CRISIS)
    assert text_of(SafetyMsg.SAFETY_NO_COUNTRY) in crisis.text  # asked with buttons
    [reply] = await chat.send(typed)
    assert number in reply.text
    assert text_of(GeneralMsg.UNEXPECTED_TEXT) not in chat.text
    user = await find_user(services.db, "console", "u1")
    assert user is not None and user.country == code


async def test_a_short_word_at_the_crisis_picker_is_not_a_code(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send(CRISIS)
    for word in ("no", "me", "in", "ok"):
        await chat.send(word)
        assert "Montenegro" not in chat.text and "Norway" not in chat.text
        assert "India" not in chat.text


async def test_a_spanish_user_types_a_country_at_the_crisis_picker(
    router: Router, services: Services, content: ContentPack
) -> None:
    chat = Conversation(router, Address("console", "c1", "u1"), language_code="es-ES")
    [crisis] = await chat.send("quiero morirme")
    assert content.text("es", SafetyMsg.SAFETY_NO_COUNTRY) in crisis.text
    [reply] = await chat.send("méxico")
    assert "911" in reply.text
    assert content.country_in_sentence("es", "MX") in reply.text


async def test_more_helplines_and_my_plan_typed_after_a_crisis_reply(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    await chat.send("London")
    await chat.send("yes")
    await chat.send("8pm")
    await chat.send("yes")  # the United Kingdom
    await chat.send("/plan")
    await chat.send("I stop sleeping")  # the first part of a plan is enough to have one
    await chat.send("/cancel")
    await chat.send(CRISIS)
    assert text_of(PlanMsg.PLAN_BUTTON) in [b.label for b in chat.last[0].flat_buttons]
    await chat.send("more helplines")
    assert chat.last[0].text.startswith(
        text_of(SafetyMsg.SAFETY_MORE_INTRO, country="the United Kingdom")
    )
    await chat.send("My plan")
    assert "I stop sleeping" in chat.text


async def test_the_check_s_buttons_typed(chat: Conversation, text_of: Callable[..., str]) -> None:
    await chat.send("I haven't self-harmed in years")
    assert chat.text == text_of(SafetyMsg.SAFETY_CHECK)
    await chat.send("I'm safe right now")
    assert chat.text == text_of(SafetyMsg.SAFETY_CHECK_SAFE_REPLY)
    await chat.send("my friend died by suicide")
    await chat.send("show me help")
    assert chat.last[0].text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))


async def test_the_check_s_buttons_typed_in_spanish(router: Router, content: ContentPack) -> None:
    chat = Conversation(router, Address("console", "c1", "u1"), language_code="es")
    await chat.send("hace años que no me hago daño")
    assert chat.text == content.text("es", SafetyMsg.SAFETY_CHECK)
    await chat.send(content.text("es", SafetyMsg.SAFETY_CHECK_SAFE_BUTTON).upper())
    assert chat.text == content.text("es", SafetyMsg.SAFETY_CHECK_SAFE_REPLY)


async def test_the_reply_to_unasked_text_takes_its_buttons_typed(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    await chat.send("Berlin")
    await chat.send("yes")
    await chat.send("8am")
    await chat.send("skip")
    await chat.send("the weather is grey")
    assert chat.last[0].text == text_of(GeneralMsg.UNEXPECTED_TEXT)
    await chat.send("take a pause")
    assert chat.last[-1].flat_buttons  # the pause's first question, with its choices
    assert text_of(GeneralMsg.UNEXPECTED_TEXT) not in chat.text
