"""A number two sources do not confirm is never stated as certain: the reply says so plainly
and gives what is known to work there. The facts' own fields (`fallback`, a helpline's
`languages`) are read where the data has them; entries without them still answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from pydantic import Field

from bot.content_pack.countries import country_names
from bot.content_pack.ids import SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import CrisisResource, EmergencyNumbers
from bot.safety.crisis_reply import CrisisReplies
from bot.safety.emergency_lines import ReplyKind
from bot.safety.screen import SafetyScreen


class EntryWithFallback(EmergencyNumbers):
    """An entry as the sourced data writes one: `fallback` for what works from a mobile."""

    fallback: list[str] = Field(default_factory=list)
    note: str | None = None


class LineWithLanguages(CrisisResource):
    languages: list[str] = Field(default_factory=list)


@pytest.fixture(scope="module")
def safety(content: ContentPack) -> SafetyScreen:
    return SafetyScreen(content)


def with_entry(content: ContentPack, entry: EmergencyNumbers) -> ContentPack:
    return replace(content, emergency={**content.emergency, entry.code: entry})


def test_every_unconfirmed_entry_is_said_to_be_unconfirmed(
    content: ContentPack, safety: SafetyScreen, text_of: Callable[..., str]
) -> None:
    marked = [code for code in country_names() if content.emergency[code].review]
    assert marked
    nearby = text_of(SafetyMsg.SAFETY_UNCONFIRMED_NEARBY)
    for code in country_names():
        numbers = content.emergency[code]
        for danger_first in (False, True):
            text = safety.full_reply("en", code, danger_first).text
            where = content.country_in_sentence("en", code)
            stated = f"call {numbers.police_number} in {where}"
            tried = f"try {numbers.police_number} in {where}"
            # (A helpline's own number may be unconfirmed where the emergency one is not:
            # "I couldn't confirm its number." is that line's, not the emergency number's.)
            if numbers.review:
                assert nearby in text and "I couldn't confirm that" in text, code
                assert stated not in text, code
                if numbers.police_number == numbers.ambulance_number or danger_first:
                    assert tried in text, code
            else:
                assert nearby not in text and "I couldn't confirm that" not in text, code


def test_an_unconfirmed_entry_in_spanish_and_german(content: ContentPack) -> None:
    chad = EntryWithFallback(
        code="TD",
        police="17",
        ambulance="18",
        checked=content.emergency["TD"].checked,
        review=True,
        source="one site each",
    )
    replies = CrisisReplies(with_entry(content, chad))
    spanish = replies.full(replies.voice("es"), "TD", ReplyKind.DANGER).text
    assert "prueba el 17 en Chad para la policía" in spanish
    assert "No pude confirmar que estos números respondan allí." in spanish
    german = replies.full(replies.voice("en", "de"), "TD", ReplyKind.DANGER).text
    assert "versuch 17 für die Polizei oder 18 für den Rettungsdienst (Tschad)" in german
    assert "Ich konnte nicht bestätigen" in german


def test_the_fallback_the_data_gives_is_offered_from_a_mobile(content: ContentPack) -> None:
    # Built as the sourced data may hold it: a police number and a fallback, nothing more.
    chad = EntryWithFallback.model_construct(
        code="TD",
        police="17",
        checked=content.emergency["TD"].checked,
        review=True,
        fallback=["112"],
        note="Police 17 on one site only.",
        source="one site",
    )
    replies = CrisisReplies(with_entry(content, chad))
    text = replies.full(replies.voice("en"), "TD", ReplyKind.DANGER).text
    # No ambulance number of its own: the one a mobile phone places is the one to try.
    assert "try 17 in Chad for the police, or 112 for an ambulance." in text
    assert "I couldn't confirm that these answer there." in text
    assert "from a mobile phone" not in text  # 112 is named already
    albania = EntryWithFallback(
        code="AL",
        police="129",
        ambulance="127",
        checked=content.emergency["AL"].checked,
        review=True,
        fallback=["112"],
        source="one site each",
    )
    replies = CrisisReplies(with_entry(content, albania))
    text = replies.full(replies.voice("en"), "AL", ReplyKind.CRISIS).text
    assert "try 127 in Albania for an ambulance, or 129 for the police." in text
    assert "If that doesn't connect, try 112 from a mobile phone." in text
    german = replies.full(replies.voice("en", "de"), "AL", ReplyKind.CRISIS).text
    assert "versuch vom Handy aus 112" in german


def test_a_confirmed_entry_with_a_fallback_states_its_numbers(content: ContentPack) -> None:
    germany = EntryWithFallback.model_validate(
        {**content.emergency["DE"].model_dump(), "fallback": ["112"]}
    )
    replies = CrisisReplies(with_entry(content, germany))
    text = replies.full(replies.voice("en"), "DE", ReplyKind.DANGER).text
    assert "call 110 in Germany for the police, or 112 for an ambulance." in text
    assert "I couldn't confirm that" not in text and "from a mobile phone" not in text


def test_a_line_in_another_language_says_which_and_an_unconfirmed_line_says_so(
    content: ContentPack,
) -> None:
    found = content.country_resources("en", "DE")
    assert found is not None
    seelsorge = LineWithLanguages.model_validate(
        {**found.resources[0].model_dump(), "languages": ["de"], "review": True}
    )
    crisis = content.crisis("en")
    countries = [
        country.model_copy(update={"resources": [seelsorge, *country.resources[1:]]})
        if country.code == "DE"
        else country
        for country in crisis.countries
    ]
    english = content.locales["en"]
    changed = replace(english, crisis=crisis.model_copy(update={"countries": countries}))
    pack = replace(content, locales={**content.locales, "en": changed})
    replies = CrisisReplies(pack)
    text = replies.full(replies.voice("en"), "DE", ReplyKind.CRISIS).text
    first = text.splitlines()[2]
    assert first.startswith("TelefonSeelsorge: ")
    assert "(24/7). Answers in German. I couldn't confirm its number." in first
    german = replies.full(replies.voice("en", "de"), "DE", ReplyKind.CRISIS).text
    assert "Beratung auf" not in german  # it answers in German: nothing to say
    assert "Die Nummer konnte ich nicht bestätigen." in german
