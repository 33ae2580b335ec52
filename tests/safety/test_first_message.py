"""The first crisis message after a start is screened by every rule at once: nothing it
needs is left to compile when it comes (a compile then would hold its reply up)."""

from __future__ import annotations

import re
from pathlib import Path
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from typing import Any, NoReturn

import pytest
import yaml

from bot.content_pack.pack import ContentPack
from bot.safety import context
from bot.safety.screen import detectors_for

HERE = Path(__file__).parent


def _first_crisis_phrase_of_each_language() -> dict[str, str]:
    phrases = yaml.safe_load((HERE / "phrases.yaml").read_text("utf-8"))
    found = {"en": phrases["crisis"][0]}
    found |= {code: lines["crisis"][0] for code, lines in phrases["languages"].items()}
    newer = yaml.safe_load((HERE / "phrases_new_languages.yaml").read_text("utf-8"))
    found |= {code: lines["full"][0] for code, lines in newer["languages"].items()}
    return found


def test_the_first_message_of_each_language_compiles_nothing(
    content: ContentPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    locales = {locale: pack.detection for locale, pack in content.locales.items()}
    detectors = detectors_for(locales, content.languages)  # built as at a start: nothing read yet
    phrases = _first_crisis_phrase_of_each_language()
    assert set(phrases) >= {file.locale for file in content.languages}

    def refused(*args: Any, **kwargs: Any) -> NoReturn:
        raise AssertionError("compiled while a message waited")

    monkeypatch.setattr(context, "compile_cues", refused)
    monkeypatch.setattr(sre_compile, "compile", refused)
    re.purge()  # so that no pattern compiled at build time can come from re's own cache

    for language, phrase in sorted(phrases.items()):
        detection = detectors["en"].detect(phrase)
        assert detection.needs_safety_reply, language
