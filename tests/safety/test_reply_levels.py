"""The reply level each labelled phrase gets, scored against the targets the screen is held to.

Crisis and danger: the full reply or a check for at least 98%, the full reply for at least 90%.
Ordinary talk: the full reply for at most 3%, a check for at most 10%. Both phrase sets are
scored, English and every other language together; the rates are printed for the record.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.content_pack.pack import ContentPack
from bot.safety.rules import Detector, ReplyLevel
from bot.safety.screen import SafetyScreen

HERE = Path(__file__).parent
SETS = {
    name: yaml.safe_load((HERE / f"{name}.yaml").read_text("utf-8"))
    for name in ("phrases", "holdout")
}
FULL = frozenset({ReplyLevel.CRISIS, ReplyLevel.DANGER})
LANGUAGES = ("es", "de", "fr", "pt", "it", "nl", "pl", "ru", "tr", "hi")


@dataclass(frozen=True)
class Rates:
    full: float
    check: float
    count: int


def _rates(detector: Detector, texts: list[str]) -> Rates:
    replies = [detector.detect(text).reply for text in texts]
    full = sum(reply in FULL for reply in replies) / len(replies)
    check = sum(reply is ReplyLevel.CHECK for reply in replies) / len(replies)
    return Rates(full, check, len(replies))


def _dangerous(phrases: dict[str, Any]) -> list[str]:
    found = phrases["crisis"] + phrases["danger"]
    for extra in ("near_cues", "later"):  # batches written after the first
        found += phrases.get(extra, {}).get("crisis", []) + phrases.get(extra, {}).get("danger", [])
    for sets in phrases["languages"].values():
        found += sets.get("crisis", []) + sets.get("danger", [])
    return found


def _ordinary(phrases: dict[str, Any]) -> list[str]:
    found = list(phrases["ordinary"]) + phrases.get("later", {}).get("ordinary", [])
    for sets in phrases["languages"].values():
        found += sets.get("ordinary", [])
    return found


@pytest.mark.parametrize("name", SETS)
def test_every_language_is_in_the_phrase_set(name: str) -> None:
    languages = SETS[name]["languages"]
    assert set(languages) == set(LANGUAGES)
    for sets in languages.values():
        assert sets["crisis"] and sets["danger"] and sets["ordinary"]


@pytest.mark.parametrize("name", SETS)
def test_crisis_and_danger_get_the_full_reply_or_a_check(content: ContentPack, name: str) -> None:
    detector = SafetyScreen(content).detector("en")
    dangerous = _dangerous(SETS[name])
    rates = _rates(detector, dangerous)
    print(f"\n{name}: crisis/danger n={rates.count} full={rates.full:.1%} check={rates.check:.1%}")
    for text in dangerous:
        reply = detector.detect(text).reply
        if reply not in FULL:
            print(f"  {reply.value}: {text}")
    assert rates.full + rates.check >= 0.98
    assert rates.full >= 0.90


@pytest.mark.parametrize("name", SETS)
def test_ordinary_talk_rarely_gets_a_reply(content: ContentPack, name: str) -> None:
    detector = SafetyScreen(content).detector("en")
    ordinary = _ordinary(SETS[name])
    rates = _rates(detector, ordinary)
    print(f"\n{name}: ordinary n={rates.count} full={rates.full:.1%} check={rates.check:.1%}")
    assert rates.full <= 0.03
    assert rates.check <= 0.10


@pytest.mark.parametrize("name", SETS)
def test_softened_words_get_a_check_not_the_full_reply(content: ContentPack, name: str) -> None:
    """Negation, the past, someone else, a title, an accident, anger at the other person."""
    detector = SafetyScreen(content).detector("en")
    categories: dict[str, list[str]] = SETS[name]["check"]
    assert set(categories) == {"negation", "past", "someone_else", "title", "accident", "anger"}
    softened = [text for texts in categories.values() for text in texts]
    for sets in SETS[name]["languages"].values():
        softened += sets.get("check", [])
    rates = _rates(detector, softened)
    print(f"\n{name}: softened n={rates.count} full={rates.full:.1%} check={rates.check:.1%}")
    assert rates.check >= 0.75
    assert rates.full <= 0.10


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("I'm not going to hurt myself, don't worry", ReplyLevel.CHECK),
        ("he used to hit me, I've been safe for a year", ReplyLevel.CHECK),
        ("I haven't self-harmed in years", ReplyLevel.CHECK),
        ("my friend died by suicide", ReplyLevel.CHECK),
        ('the song "kill myself" came on', ReplyLevel.CHECK),
        ("I accidentally cut myself with a knife", ReplyLevel.CHECK),
        ("I wish he was dead", ReplyLevel.CHECK),
        ("i want to die", ReplyLevel.CRISIS),
        ("i would never kill myself, but tonight i might", ReplyLevel.CRISIS),
        ("i used to self harm and now i'm doing it again", ReplyLevel.CRISIS),
        ("they would all be better off without me", ReplyLevel.CRISIS),
        ("he said he'll kill me if i leave", ReplyLevel.DANGER),
        ("he threatened to kill himself if i left", ReplyLevel.CHECK),
        ("i miss him so much", ReplyLevel.URGE),
        ("he texted me last night", ReplyLevel.CONTACTED),
        ("had pasta for lunch", ReplyLevel.NONE),
        ("no quiero morir, solo estoy cansada", ReplyLevel.CHECK),
        ("quiero morir", ReplyLevel.CRISIS),
    ],
)
def test_the_reply_level_is_what_the_bot_answers(
    content: ContentPack, text: str, level: ReplyLevel
) -> None:
    assert SafetyScreen(content).detector("en").detect(text).reply is level


def test_every_language_is_screened_whatever_the_locale(content: ContentPack) -> None:
    """The rules of every language are in the one detector each locale uses."""
    detector = SafetyScreen(content).detector("en")
    for text in ("je veux mourir", "ich will sterben", "хочу умереть", "ölmek istiyorum"):
        assert detector.detect(text).reply is ReplyLevel.CRISIS
    assert (
        SafetyScreen(content).detector("xx") is detector
    )  # an unknown locale falls back, still all of them
