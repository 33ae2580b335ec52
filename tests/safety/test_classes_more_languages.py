"""The classes of issue 24 in the ten first languages besides English, phrased anew: crisis
and danger get the full reply, softened words a check, ordinary talk nothing; words that
are cues in one language and everyday words in another do not mislead; grief in Spanish is
not taken for the pull to go back."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.content_pack.pack import ContentPack
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen

PHRASES = yaml.safe_load((Path(__file__).parent / "classes_more_languages.yaml").read_text("utf-8"))
LANGUAGES = ("es", "de", "fr", "pt", "it", "nl", "pl", "ru", "tr", "hi")
FULL = frozenset({ReplyLevel.CRISIS, ReplyLevel.DANGER})


def _cases(labels: tuple[str, ...]) -> list[tuple[str, str, str]]:
    return [
        (code, label, text)
        for code in LANGUAGES
        for label in labels
        for text in PHRASES["languages"][code][label]
    ]


def test_every_language_has_every_kind() -> None:
    assert set(PHRASES["languages"]) == set(LANGUAGES)
    for sets in PHRASES["languages"].values():
        assert sets["crisis"] and sets["danger"] and sets["softened"] and sets["ordinary"]


@pytest.mark.parametrize(("code", "label", "text"), _cases(("crisis", "danger")))
def test_crisis_and_danger_get_the_full_reply(
    content: ContentPack, code: str, label: str, text: str
) -> None:
    reply = SafetyScreen(content).detector("en").detect(text).reply
    assert reply is ReplyLevel(label), (code, text)


@pytest.mark.parametrize(("code", "label", "text"), _cases(("softened",)))
def test_softened_words_get_a_check(content: ContentPack, code: str, label: str, text: str) -> None:
    assert SafetyScreen(content).detector("en").detect(text).reply is ReplyLevel.CHECK, (code, text)


@pytest.mark.parametrize(("code", "label", "text"), _cases(("ordinary",)))
def test_ordinary_talk_gets_nothing(content: ContentPack, code: str, label: str, text: str) -> None:
    reply = SafetyScreen(content).detector("en").detect(text).reply
    assert reply not in FULL | {ReplyLevel.CHECK}, (code, text)


@pytest.mark.parametrize(("text", "level"), PHRASES["collisions"])
def test_a_cue_word_of_another_language_does_not_mislead(
    content: ContentPack, text: str, level: str
) -> None:
    assert SafetyScreen(content).detector("en").detect(text).reply is ReplyLevel(level)


@pytest.mark.parametrize("text", PHRASES["grief"])
def test_grief_is_not_the_pull_to_go_back(content: ContentPack, text: str) -> None:
    assert SafetyScreen(content).detector("es").detect(text).reply is ReplyLevel.NONE
