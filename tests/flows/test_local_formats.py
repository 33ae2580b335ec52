"""Dates and numbers in the user's locale (Babel): the region is their country when set,
else the region of the app's language tag ("en-GB"); "14 March" in Britain, "March 14" in
the United States, "2,0" in Spanish; in the core, the console and on Telegram."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bot.content_pack.ids import CheckinMsg, DatesMsg
from bot.content_pack.pack import ContentPack
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.local_formats import one_decimal, regional_locale
from tests.helpers.console_chat import ConsoleUser
from tests.helpers.conversation import Conversation
from tests.helpers.telegram_world import TelegramWorld


async def add_a_date(chat: Conversation, text_of: Callable[..., str]) -> str:
    await chat.send("/dates")
    await chat.press(text_of(DatesMsg.DATES_ADD))
    await chat.press(text_of(DatesMsg.DATES_KIND_ANNIVERSARY))
    await chat.send("14 March")
    await chat.press(text_of(DatesMsg.DATES_YEARLY))
    await chat.send("The day I left")
    return chat.last[0].text


@pytest.mark.parametrize(("place", "shown"), [("London", "14 March"), ("New York", "March 14")])
async def test_a_date_as_the_user_s_country_writes_it(
    chat: Conversation, text_of: Callable[..., str], place: str, shown: str
) -> None:
    for line in ("/start", place, "yes", "8pm", "yes"):  # the country suggested: yes
        await chat.send(line)
    said = await add_a_date(chat, text_of)
    assert said.startswith(text_of(DatesMsg.DATES_ADDED, date=shown).split(".")[0])


async def test_without_a_country_the_app_s_language_tag_says(
    router: Router, text_of: Callable[..., str]
) -> None:
    chat = Conversation(router, Address("console", "c1", "u1"), language_code="en-GB")
    said = await add_a_date(chat, text_of)
    assert "14 March" in said and "March 14" not in said
    american = Conversation(router, Address("console", "c2", "u2"), language_code="en-US")
    assert "March 14" in await add_a_date(american, text_of)


def test_the_region_chosen() -> None:
    assert regional_locale("en", "GB") == "en_GB"
    assert regional_locale("en", None, "en-GB") == "en_GB"
    assert regional_locale("en", "US", "en-GB") == "en_US"  # the country comes first
    assert regional_locale("es", "MX") == "es_MX"
    assert regional_locale("en", None, "en") == "en"
    assert regional_locale("en", "AQ") in {"en", "en_AQ"}  # a region Babel may not have
    assert one_decimal(2.0, "es") == "2,0" and one_decimal(2.0, "en_GB") == "2.0"


async def test_an_average_in_spanish(router: Router, content: ContentPack) -> None:
    chat = Conversation(router, Address("console", "c1", "u1"), language_code="es")
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send(content.text("es", CheckinMsg.URGE_NONE))
    await chat.send(content.text("es", CheckinMsg.SKIP_NOTE))
    await chat.send("/historial")
    assert "2,0" in chat.text and "2.0" not in chat.text


async def test_an_average_in_spanish_in_the_console(
    router: Router, tmp_path: Path, content: ContentPack
) -> None:
    me = ConsoleUser(router, tmp_path, language_code="es")
    for line in ("/checkin", "b", "1", content.text("es", CheckinMsg.SKIP_NOTE)):
        await me.types(line)
    said = await me.types("/historial")
    assert "2,0" in said


async def test_on_telegram_with_an_en_gb_app(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    for line, label in (
        ("/dates", DatesMsg.DATES_ADD),
        (None, DatesMsg.DATES_KIND_ANNIVERSARY),
    ):
        if line:
            await telegram.says(71, line, language_code="en-GB")
        await telegram.taps(71, text_of(label))
    await telegram.says(71, "14 March", language_code="en-GB")
    await telegram.taps(71, text_of(DatesMsg.DATES_YEARLY))
    await telegram.says(71, "A hard day", language_code="en-GB")
    assert any("14 March" in text for text in telegram.tg.sent_texts(71))


async def test_on_telegram_in_spanish(telegram: TelegramWorld, content: ContentPack) -> None:
    none, skip = content.text("es", CheckinMsg.URGE_NONE), content.text("es", CheckinMsg.SKIP_NOTE)
    for line in ("/checkin", "2", none, skip, "/historial"):
        await telegram.says(72, line, language_code="es")
    assert any("2,0" in text for text in telegram.tg.sent_texts(72))
