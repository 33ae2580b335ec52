"""A fresh batch in the ten languages besides English, scored: every crisis and danger
phrase gets the full reply, no ordinary phrase does (a check is allowed for a hard idiom).

The batch was written apart from the rules and measured first (the figures are in the file's
header); its misses were then covered as families of phrasings, so it is now tuned on.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.content_pack.pack import ContentPack
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen

FRESH = yaml.safe_load((Path(__file__).parent / "fresh_multilingual.yaml").read_text("utf-8"))
LANGUAGES = ("es", "de", "fr", "pt", "it", "nl", "pl", "ru", "tr", "hi")
FULL = frozenset({ReplyLevel.CRISIS, ReplyLevel.DANGER})


def test_every_language_has_a_batch_of_the_asked_size() -> None:
    languages = FRESH["languages"]
    assert set(languages) == set(LANGUAGES)
    spanish = languages["es"]
    assert len(spanish["crisis"]) >= 60 and len(spanish["danger"]) >= 30
    assert len(spanish["ordinary"]) >= 40
    for code in LANGUAGES:
        sets = languages[code]
        assert len(sets["crisis"]) >= 19 and len(sets["danger"]) >= 10, code
        assert len(sets["ordinary"]) >= 15, code


@pytest.mark.parametrize("code", LANGUAGES)
def test_crisis_and_danger_get_the_full_reply(content: ContentPack, code: str) -> None:
    detector = SafetyScreen(content).detector("en")
    sets = FRESH["languages"][code]
    dangerous = sets["crisis"] + sets["danger"]
    missed = [text for text in dangerous if detector.detect(text).reply not in FULL]
    caught = len(dangerous) - len(missed)
    print(f"\n{code}: full reply {caught}/{len(dangerous)} ({caught / len(dangerous):.0%})")
    assert missed == []


@pytest.mark.parametrize("code", LANGUAGES)
def test_ordinary_talk_never_gets_the_full_reply(content: ContentPack, code: str) -> None:
    detector = SafetyScreen(content).detector("en")
    ordinary = FRESH["languages"][code]["ordinary"]
    flagged = [text for text in ordinary if detector.detect(text).reply in FULL]
    checks = [text for text in ordinary if detector.detect(text).reply is ReplyLevel.CHECK]
    print(f"\n{code}: ordinary full {len(flagged)}/{len(ordinary)}, check {len(checks)}")
    assert flagged == []


@pytest.mark.parametrize(
    ("group", "batch"),
    [
        ("spanish_later", "second"),
        ("spanish_later", "third"),
        ("spanish_later", "fourth"),
        ("spanish_later", "reviewer"),
        ("second_batches", "pt"),
        ("second_batches", "de"),
        ("second_batches", "fr"),
    ],
)
def test_the_later_batches_are_caught(content: ContentPack, group: str, batch: str) -> None:
    detector = SafetyScreen(content).detector("en")
    sets = FRESH[group][batch]
    dangerous = sets["crisis"] + sets["danger"]
    missed = [text for text in dangerous if detector.detect(text).reply not in FULL]
    flagged = [text for text in sets["ordinary"] if detector.detect(text).reply in FULL]
    assert (missed, flagged) == ([], [])


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("me quiero morir de la verguenza", ReplyLevel.NONE),
        ("me quiero morir", ReplyLevel.CRISIS),
        ("me kiero matar", ReplyLevel.CRISIS),
        ("quiero matarme", ReplyLevel.CRISIS),
        ("hoy me mato", ReplyLevel.CRISIS),
        ("me mato estudiando para el examen", ReplyLevel.NONE),
        ("no aguanto mas el calor", ReplyLevel.NONE),
        ("ya no aguanto mas", ReplyLevel.CRISIS),
        ("mi mama me va a matar si llego tarde", ReplyLevel.NONE),
        ("me va a matar", ReplyLevel.DANGER),
        ("me volvi a cortar el pelo", ReplyLevel.NONE),
        ("me volvi a cortar los brazos", ReplyLevel.CRISIS),
        ("me pego el resfriado", ReplyLevel.NONE),
        ("me pego una cachetada", ReplyLevel.DANGER),
        ("questo e il mio ultimo messaggio", ReplyLevel.CRISIS),
        ("me quiero morir de lo cute que es mi gato", ReplyLevel.NONE),
        ("me quiero morir de lo mal que estoy", ReplyLevel.CRISIS),
        ("nose xq sigo viva", ReplyLevel.CRISIS),
        ("la clase de hoy me mato", ReplyLevel.NONE),
    ],
)
def test_a_family_and_the_idiom_beside_it(
    content: ContentPack, text: str, level: ReplyLevel
) -> None:
    """Each family of phrasings catches its forms, and the everyday idiom that shares its
    words stays ordinary."""
    assert SafetyScreen(content).detector("en").detect(text).reply is level


def test_a_threat_to_kill_the_writer_gets_the_danger_reply_not_the_crisis_one(
    content: ContentPack,
) -> None:
    detector = SafetyScreen(content).detector("es")
    for threat in ("me amenazó con matarme", "va a matarme", "me quiere matar"):
        assert detector.detect(threat).reply is ReplyLevel.DANGER, threat
    for own in ("quiero matarme", "me voy a matar", "pienso en matarme"):
        assert detector.detect(own).reply is ReplyLevel.CRISIS, own
