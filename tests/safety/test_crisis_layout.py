"""The crisis reply as someone in panic reads it: the number first, a few lines, the rest a tap
away, for every country there is."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from bot.content_pack.countries import country_names
from bot.content_pack.ids import SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.replies import Reply
from bot.safety.screen import SOS_CARD, SOS_COUNTRY, SOS_MISREAD, SafetyScreen
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation

CRISIS = "honestly i just want to die"
DANGER = "he's outside my door banging and says he'll kill me"
TELEGRAM_LIMIT = 4096


@pytest.fixture(scope="module")
def safety(content: ContentPack) -> SafetyScreen:
    return SafetyScreen(content)


def first_reply(safety: SafetyScreen, text: str, country: str | None) -> Reply:
    found = safety.screen(text, "en", country, is_group=False)
    assert found is not None
    [reply] = found.replies
    return reply


def words_before_first_number(text: str) -> tuple[int, str]:
    match = re.search(r"[0-9*]+", text)
    assert match is not None, text
    return len(text[: match.start()].split()), match.group()


def helplines_shown(content: ContentPack, code: str, text: str) -> list[str]:
    found = content.country_resources("en", code)
    resources = [] if found is None else found.resources
    return [resource.id for resource in resources if f"{resource.name}: " in text]


@pytest.mark.parametrize("message", [CRISIS, DANGER])
def test_every_country_gets_a_number_at_once_and_at_most_three_lines(
    content: ContentPack, safety: SafetyScreen, message: str
) -> None:
    for code in country_names():
        reply = first_reply(safety, message, code)
        count, _ = words_before_first_number(reply.text)
        assert count <= 25, (code, count)
        assert len(helplines_shown(content, code, reply.text)) <= 3, code
        assert len(reply.text) <= TELEGRAM_LIMIT, code
        for button in reply.flat_buttons:
            assert len(button.data.encode()) <= 64 and len(button.label) <= 40


def test_more_helplines_shows_the_rest(content: ContentPack, safety: SafetyScreen) -> None:
    more_label = content.text("en", SafetyMsg.SAFETY_MORE_BUTTON)
    with_more = 0
    for country in content.crisis("en").countries:
        for message in (CRISIS, DANGER):
            reply = first_reply(safety, message, country.code)
            first = helplines_shown(content, country.code, reply.text)
            buttons = {button.label: button.data for button in reply.flat_buttons}
            if more_label not in buttons:
                assert len(first) == len(country.resources), country.code
                continue
            with_more += 1
            danger_first = message == DANGER
            rest = safety.more_helplines_reply("en", country.code, danger_first)
            shown_later = helplines_shown(content, country.code, rest.text)
            assert not set(first) & set(shown_later), country.code
            assert sorted(first + shown_later) == sorted(r.id for r in country.resources)
    assert with_more >= 3


def test_lines_for_those_who_cannot_speak_come_first(
    content: ContentPack, safety: SafetyScreen
) -> None:
    reply = first_reply(safety, CRISIS, "US")
    assert reply.text.index("988") < reply.text.index("741741") < len(reply.text)
    # A crisis leads with a line that answers a call at once (Samaritans); of the rest, a
    # line that takes texts (Shout) comes before one that only takes calls at set hours.
    uk = first_reply(safety, CRISIS, "GB").text
    assert uk.index("116 123") < uk.index("85258") < uk.index("0800 58 58 58")


def test_the_reply_has_hope_and_says_no_certainty_is_needed(
    safety: SafetyScreen, text_of: Callable[..., str]
) -> None:
    crisis = first_reply(safety, CRISIS, "GB").text
    assert "call 999 in the United Kingdom." in crisis
    assert (
        text_of(SafetyMsg.SAFETY_NOT_SURE) in crisis
        and text_of(SafetyMsg.SAFETY_HOPE_CRISIS) in crisis
    )
    danger = first_reply(safety, DANGER, "NL").text
    assert (
        "call 112 in the Netherlands." in danger and text_of(SafetyMsg.SAFETY_HOPE_DANGER) in danger
    )
    assert "in the Philippines" in first_reply(safety, CRISIS, "PH").text


def test_where_emergency_services_take_texts_the_reply_says_so(safety: SafetyScreen) -> None:
    france = first_reply(safety, DANGER, "FR").text
    assert "call 17 in France for the police, or 15 for an ambulance. 112 works too." in france
    assert "text 114 instead" in france
    assert "text 114" not in first_reply(safety, DANGER, "BE").text


def test_hours_are_written_one_way(content: ContentPack, safety: SafetyScreen) -> None:
    hours = {r.hours for c in content.crisis("en").countries for r in c.resources}
    assert "24/7" in hours
    for value in hours:
        # One span, or several joined by commas ("Mon–Thu 8:00–20:00, Fri 8:00–15:00").
        span = r"(Daily|Mon|Tue|Wed|Thu|Fri|Sat|Sun)(–\w+)? \d{1,2}:\d{2}–\d{1,2}:\d{2}"
        assert value in {"24/7", "Hours vary"} or re.fullmatch(rf"{span}(, {span})*", value), value
    assert "(24/7)." in first_reply(safety, CRISIS, "GB").text


def test_the_safety_card_is_one_tap_away_and_names_no_one(
    safety: SafetyScreen, text_of: Callable[..., str]
) -> None:
    danger = first_reply(safety, DANGER, "GB")
    assert SOS_CARD in [button.data for button in danger.flat_buttons]
    assert SOS_CARD not in [b.data for b in first_reply(safety, CRISIS, "GB").flat_buttons]
    card = safety.safety_card_reply("en").text
    assert card == text_of(SafetyMsg.SAFETY_CARD)
    for topic in ("call list", "browser history", "location", "apps", "previews", "/wipe"):
        assert topic in card
    for topic in ("Records", "Protection orders", "neck", "no marks", "safety plan", "helplines"):
        assert topic in card
    # Safe if someone else reads it: no one named, and nothing that spells out the danger.
    words = set(re.findall(r"[a-z']+", card.lower()))
    named = {"he", "she", "him", "her", "his", "partner", "ex", "abuser", "husband", "wife"}
    named |= {"boyfriend", "girlfriend", "abuse", "abusive", "violence", "perpetrator"}
    assert not words & named


async def test_the_buttons_work_in_a_conversation(chat: Conversation) -> None:
    await chat.send("/start")
    await chat.send("Europe/London")
    await chat.send("08:30")
    await chat.send("United Kingdom")
    await chat.send(DANGER)
    await chat.press("More helplines")
    assert "More helplines in the United Kingdom:" in chat.text
    assert "0808 802 1414" in chat.text  # Northern Ireland's line, left out of the first
    await chat.press("Privacy and safety tips")
    assert "/wipe" in chat.text


async def test_an_unknown_country_is_asked_for_and_remembered(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send(CRISIS)
    [reply] = chat.last
    assert text_of(SafetyMsg.SAFETY_NO_COUNTRY) in reply.text and "findahelpline.com" in reply.text
    data = [button.data for button in reply.flat_buttons]
    assert data[-1] == SOS_MISREAD and all(d.startswith(SOS_COUNTRY) for d in data[:-1])
    await chat.press("Ireland")
    assert "call 112 in Ireland." in chat.text and "116 123" in chat.text
    assert text_of(SafetyMsg.SAFETY_COUNTRY_SAVED, country="Ireland") in chat.text
    user = await find_user(chat.router.services.db, "console", "u1")
    assert user is not None and user.country == "IE"
    await chat.send("/sos")
    assert "call 112 in Ireland." in chat.text


async def test_a_time_zone_suggests_its_countries(chat: Conversation) -> None:
    await chat.send("/start")
    await chat.send("Europe/Brussels")
    await chat.send("08:30")
    await chat.press("Skip")
    await chat.send(DANGER)  # the time zone's own country stands in for a choice
    # Belgium's own number (112; its police's 101 awaits a second source) is the one given.
    assert "call 112 in Belgium." in chat.text


def test_without_a_country_the_buttons_come_from_the_time_zone(safety: SafetyScreen) -> None:
    reply = safety.resources_reply("en", None, timezone="Europe/Brussels")
    assert [button.label for button in reply.flat_buttons][:3] == [
        "Belgium",
        "Luxembourg",
        "Netherlands",
    ]
    danger = safety.resources_reply("en", None, danger_first=True, timezone="Europe/Brussels")
    assert danger.flat_buttons[0].data == f"{SOS_COUNTRY}BE:danger"


async def test_a_country_tap_answers_even_when_it_cannot_be_stored(
    chat: Conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> object:
        raise OSError("disk gone")

    monkeypatch.setattr(chat.router.services.db, "transaction", broken)
    await chat.press_data(f"{SOS_COUNTRY}JP:danger")
    assert "call 110 in Japan for the police, or 119 for an ambulance." in chat.text
    assert "I've saved" not in chat.text
