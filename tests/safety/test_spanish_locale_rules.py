"""The Spanish locale's own rules (content/es/detection.yaml): urges and contact are
recognised in Spanish, everyday Spanish raises neither, and the file adds nothing the
Spanish language file already holds.

The detector is built as the safety screen builds it for a Spanish-locale user: the
locale's own file, the default locale's, and every language file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.content_pack.schema import DetectionFile
from bot.content_pack.yaml_lines import load_located
from bot.safety.rules import Detector, Intent, compile_detector

CONTENT = Path(__file__).resolve().parents[2] / "content"
PHRASES = yaml.safe_load((Path(__file__).parent / "phrases_es_locale.yaml").read_text("utf-8"))
FLOOR = 0.85


def _file(path: Path) -> DetectionFile:
    return DetectionFile.model_validate(load_located(path.read_text("utf-8")).data)


@pytest.fixture(scope="module")
def detector() -> Detector:
    languages = [_file(path) for path in sorted((CONTENT / "detection").glob("*.yaml"))]
    own = _file(CONTENT / "es" / "detection.yaml")
    return compile_detector([own, _file(CONTENT / "en" / "detection.yaml"), *languages])


def test_the_locale_file_repeats_no_rule_of_the_language_files() -> None:
    own = {rule.id for rule in _file(CONTENT / "es" / "detection.yaml").rules}
    others = {
        rule.id
        for path in [*(CONTENT / "detection").glob("*.yaml"), CONTENT / "en" / "detection.yaml"]
        for rule in _file(path).rules
    }
    assert own and not own & others
    assert {rule.intent for rule in _file(CONTENT / "es" / "detection.yaml").rules} == {
        "urge",
        "contacted",
    }


@pytest.mark.parametrize(("label", "intent"), [("urge", Intent.URGE),
                                               ("contacted", Intent.CONTACTED)])  # fmt: skip
def test_spanish_urges_and_contact_are_recognised(
    detector: Detector, label: str, intent: Intent
) -> None:
    phrases = PHRASES[label]
    missed = [text for text in phrases if intent not in detector.detect(text).intents]
    recall = 1 - len(missed) / len(phrases)
    print(f"\n{label} recall: {recall:.0%}; missed: {missed}")
    assert recall >= FLOOR


def test_everyday_spanish_raises_nothing(detector: Detector) -> None:
    flagged = [text for text in PHRASES["ordinary"] if detector.detect(text).intents]
    assert flagged == []


def test_an_urge_in_spanish_is_not_a_crisis(detector: Detector) -> None:
    for text in PHRASES["urge"] + PHRASES["contacted"]:
        assert not detector.detect(text).needs_safety_reply, text
