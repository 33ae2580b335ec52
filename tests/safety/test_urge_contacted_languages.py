"""The pull back and being contacted in the twenty languages beside English and Spanish:
each language's urge phrases get the pause offered for an urge, its contacted phrases the
one offered when they got in touch, and the same words negated, past or about someone
else get nothing.

The phrases (phrases_urge_contacted.yaml) were written before these rules and scored on
first contact (0/100 urge, 0/100 contacted: no rule existed); the rules were then written
as classes, so this set now asserts them. The labelled corpus, whose urge and contacted
messages were written by others, measures how the rules meet new wording.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.content_pack.pack import ContentPack
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen

HERE = Path(__file__).parent
PHRASES = yaml.safe_load((HERE / "phrases_urge_contacted.yaml").read_text("utf-8"))["languages"]
LANGUAGES = (
    *("de", "fr", "pt", "it", "nl", "pl", "ru", "tr", "hi", "ar"),
    *("zh", "ja", "ko", "uk", "sv", "id", "tl", "ro", "el", "vi"),
)
WANTED = {"urge": ReplyLevel.URGE, "contacted": ReplyLevel.CONTACTED, "not": ReplyLevel.NONE}


def test_every_language_has_its_phrases() -> None:
    assert set(PHRASES) == set(LANGUAGES)
    for code in LANGUAGES:
        assert {kind: len(PHRASES[code][kind]) >= 4 for kind in WANTED} == dict.fromkeys(
            WANTED, True
        ), code


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("kind", list(WANTED))
def test_each_phrase_gets_its_reply(content: ContentPack, code: str, kind: str) -> None:
    detector = SafetyScreen(content).detector("en")
    wrong = {
        text: detector.detect(text).reply.value
        for text in PHRASES[code][kind]
        if detector.detect(text).reply is not WANTED[kind]
    }
    assert wrong == {}


@pytest.mark.parametrize(
    ("text", "level"),
    [
        # a crisis said beside the pull back still gets the full reply
        ("ich vermisse ihn so sehr, ich will nicht mehr leben", ReplyLevel.CRISIS),
        # "mi manca da morire" is missing someone badly, not a wish to die
        ("mi manca da morire", ReplyLevel.URGE),
        # someone else got in touch: nothing to pause for
        ("minha mae me ligou hoje", ReplyLevel.NONE),
        ("m-a sunat mama aseara", ReplyLevel.NONE),
        # "给他发消息" is the writer writing to him, not him writing
        ("好想给他发消息", ReplyLevel.URGE),
    ],
)
def test_the_pull_back_beside_other_words(
    content: ContentPack, text: str, level: ReplyLevel
) -> None:
    assert SafetyScreen(content).detector("en").detect(text).reply is level
