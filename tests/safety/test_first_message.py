"""The first crisis message after a start is screened by every rule at once: nothing it
needs is left to compile when it comes (a compile then would hold its reply up)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from typing import Any

import pytest
import yaml

from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import DetectionContext
from bot.safety import context
from bot.safety.context import ContextCues
from bot.safety.screen import detectors_for

HERE = Path(__file__).parent
# Crisis words that rules of many languages read alike ("suicid..."): their context is
# read with the cues of all those languages together.
MIXED = ("suicidal again tonight", "estoy pensando en suicidarme", "vou me matar hoje")
CUTTING = {"possessive", "recipient"}  # the cues that cut words out, compiled as one


def _first_crisis_phrase_of_each_language() -> dict[str, str]:
    phrases = yaml.safe_load((HERE / "phrases.yaml").read_text("utf-8"))
    found = {"en": phrases["crisis"][0]}
    found |= {code: lines["crisis"][0] for code, lines in phrases["languages"].items()}
    newer = yaml.safe_load((HERE / "phrases_new_languages.yaml").read_text("utf-8"))
    found |= {code: lines["full"][0] for code, lines in newer["languages"].items()}
    return found


def test_the_first_messages_after_a_start_compile_nothing_but_two_word_lists(
    content: ContentPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first message of each language, and the first whose words match in several
    languages at once, find every rule and cue compiled; a set of languages first met
    together compiles at most the small lists of words cut out of a match."""
    locales = {locale: pack.detection for locale, pack in content.locales.items()}
    detectors = detectors_for(locales, content.languages)  # as at a start: nothing read yet
    phrases = _first_crisis_phrase_of_each_language()
    assert set(phrases) >= {file.locale for file in content.languages}
    asked: list[frozenset[str] | None] = []
    compiled: list[str] = []
    original_cues = context.compile_cues
    original_compile = sre_compile.compile

    def cues(contexts: Iterable[DetectionContext], only: frozenset[str] | None = None) -> Any:
        asked.append(only)
        before = len(compiled)
        found: ContextCues = original_cues(contexts, only)
        del compiled[before:]  # these are counted by `asked`
        return found

    def compile_(pattern: Any, *args: Any, **kwargs: Any) -> Any:
        compiled.append(str(pattern))
        return original_compile(pattern, *args, **kwargs)

    monkeypatch.setattr(context, "compile_cues", cues)
    monkeypatch.setattr(sre_compile, "compile", compile_)
    re.purge()  # so that no pattern compiled at build time can come from re's own cache

    for language, phrase in sorted(phrases.items()):
        assert detectors["en"].detect(phrase).needs_safety_reply, language
    assert (asked, compiled) == ([], [])

    for phrase in MIXED:
        assert detectors["en"].detect(phrase).needs_safety_reply, phrase
    assert compiled == []
    assert asked, "the mixed phrases no longer match in several languages: choose others"
    assert all(only is not None and only <= CUTTING for only in asked)
