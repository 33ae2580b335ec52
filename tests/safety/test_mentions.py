"""Softened mentions in the ten first languages besides English: crisis words about
someone else, the past or the news get a check (one line, two buttons) even where the
first-person rules do not read them, and a mention alone never gets the full reply;
killing a plant, a spider or a match is no mention."""

from __future__ import annotations

import pytest

from bot.content_pack.pack import ContentPack
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen


@pytest.mark.parametrize(
    "text",
    [
        "mi tio se suicido cuando yo era chica",
        "meine nachbarin hat sich letztes jahr umgebracht",
        "mon cousin voulait mourir apres son divorce",
        "mio zio si e ucciso nel garage",
        "haar vriend sloeg haar elke week",
        "moja kolezanka chciala umrzec w liceum",
        "мой дядя покончил с собой",
        "komsumuz aile ici siddet goruyor",
        "uski behen ne aatmhatya kar li",
        "o pai dela batia nela quando era pequena",
    ],
)
def test_a_softened_mention_gets_a_check(content: ContentPack, text: str) -> None:
    assert SafetyScreen(content).detector("en").detect(text).reply is ReplyLevel.CHECK


@pytest.mark.parametrize(
    "text",
    [
        "ich hab die spinne umgebracht",
        "el partido fue una masacre, nos mataron",
        "ze hebben de lampen opgehangen",
        "powiesilam pranie na balkonie",
        "повесила куртку в шкаф",
    ],
)
def test_everyday_words_are_no_mention(content: ContentPack, text: str) -> None:
    assert SafetyScreen(content).detector("en").detect(text).reply is ReplyLevel.NONE


def test_a_crisis_beside_a_mention_still_gets_the_full_reply(content: ContentPack) -> None:
    text = "mein bruder hat sich umgebracht und jetzt will ich auch sterben"
    assert SafetyScreen(content).detector("en").detect(text).reply is ReplyLevel.CRISIS
