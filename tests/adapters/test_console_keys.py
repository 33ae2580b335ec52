"""The console keeps every shown button reachable, as Telegram does: choices stay live
while their message is on screen, keys are unique across the messages shown (a crisis
reply's letters stay when a question follows it), and a reply that refuses an answer
shows the choices again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.content_pack.ids import (
    AnswersMsg,
    CaringMsg,
    DataMsg,
    DatesMsg,
    GeneralMsg,
    SafetyMsg,
)
from bot.content_pack.pack import ContentPack
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage.users import find_user
from tests.helpers.console_chat import ConsoleUser, keys_in

DOMESTIC_ABUSE_LINE = "National Domestic Abuse Helpline"
MORE_HELPLINES = "More helplines in the United Kingdom"


async def onboarded_in_london(me: ConsoleUser) -> None:
    for line in ("/start", "London", "yes", "8pm", "yes"):
        await me.types(line)


async def test_sos_mid_pause_keeps_its_letters_and_the_question_its_numbers(
    router: Router, tmp_path: Path, text_of: Callable[..., str]
) -> None:
    me = ConsoleUser(router, tmp_path)
    await onboarded_in_london(me)
    await me.types("/pause")
    shown = await me.types("/sos")
    assert DOMESTIC_ABUSE_LINE in shown  # /sos names an abuse line among its first lines
    keys = keys_in(shown)
    assert len(keys) == len(set(keys))  # unique across both messages
    more = me.key(text_of(SafetyMsg.SAFETY_MORE_BUTTON))
    assert more.isalpha()
    said = await me.types(more)
    assert MORE_HELPLINES in said
    assert text_of(GeneralMsg.USE_BUTTONS) not in said
    said = await me.types("1")  # the pause question's first choice, still live
    assert (
        text_of(GeneralMsg.USE_BUTTONS) not in said
        and text_of(GeneralMsg.UNEXPECTED_TEXT) not in said
    )
    assert me.key(text_of(SafetyMsg.SAFETY_MORE_BUTTON)) == more  # the crisis reply's letters stay
    assert MORE_HELPLINES in await me.types(more)


async def test_the_caring_offer_s_no_thanks_is_reachable_beside_the_question(
    router: Router, services: Services, tmp_path: Path, text_of: Callable[..., str]
) -> None:
    me = ConsoleUser(router, tmp_path)
    await onboarded_in_london(me)
    await me.types("/pause")
    shown = await me.types("i want to kill myself")
    assert text_of(CaringMsg.CARING_OFFER) in shown
    keys = keys_in(shown)
    assert len(keys) == len(set(keys))
    await me.presses(text_of(CaringMsg.CARING_OFFER_YES))
    said = await me.presses(text_of(CaringMsg.CARING_OFFER_NO))  # changed their mind, later
    assert text_of(CaringMsg.CARING_DECLINED) in said
    row = await services.db.fetch_one("SELECT next_due_at FROM caring_checks")
    assert row is not None and row["next_due_at"] is None


async def test_a_refusal_shows_the_choices_again_and_numbers_keep_working(
    router: Router, tmp_path: Path, text_of: Callable[..., str]
) -> None:
    me = ConsoleUser(router, tmp_path)
    await onboarded_in_london(me)
    await me.types("/dates")
    said = await me.types("xyz")
    assert text_of(AnswersMsg.USE_BUTTONS_BELOW) in said
    assert f"1) {text_of(DatesMsg.DATES_ADD)}" in said
    said = await me.types("1")
    assert text_of(DatesMsg.DATES_ASK_KIND) in said
    await me.types("/cancel")
    await me.types("/forget")
    said = await me.types("maybe")
    assert text_of(AnswersMsg.USE_BUTTONS_BELOW) in said
    said = await me.types(me.key(text_of(DataMsg.FORGET_NO)))
    assert text_of(DataMsg.FORGET_KEPT) in said


async def test_a_spanish_console_user_reaches_the_crisis_reply_by_key_and_by_name(
    router: Router, services: Services, tmp_path: Path, content: ContentPack
) -> None:
    me = ConsoleUser(router, tmp_path, language_code="es")
    shown = await me.types("quiero morirme")
    spain = content.country_label("es", "ES")
    assert f") {spain}" in shown
    said = await me.types("españa")
    assert "112" in said
    said = await me.presses(content.country_label("es", "MX"))  # an older key, still live
    assert "911" in said
    user = await find_user(services.db, "console", "console")
    assert user is not None and user.country == "MX"
