"""Several languages' context cues read together soften exactly the matches that one
pattern joining them as alternatives softens: they are joined from each language's
compiled cues, with nothing to compile while a message waits."""

from __future__ import annotations

import random

from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import DetectionContext
from bot.safety.context import CuesByLanguage, compile_cues, softened
from bot.safety.normalise import normalise
from bot.safety.screen import detectors_for
from tests.helpers.phrase_files import phrases_of

YEAR = 2026


def test_cues_of_several_languages_soften_as_one_joined_pattern_does(
    content: ContentPack,
) -> None:
    locales = {locale: pack.detection for locale, pack in content.locales.items()}
    book = detectors_for(locales, content.languages)["en"].book
    contexts: dict[str, list[DetectionContext]] = {}
    for file in book.files:
        if file.context is not None:
            contexts.setdefault(file.locale, []).append(file.context)
    languages = sorted(contexts)
    by_language = CuesByLanguage(contexts)
    rng = random.Random(24)
    # Sets the phrases meet ("suicid..." reads in ten languages), and others at random.
    sets = [frozenset(chosen.split()) for chosen in ("en es fr it nl pt ro ru sv id", "es pt")]
    sets += [frozenset(rng.sample(languages, size)) for size in (2, 2, 2, 3, 4, 10)]
    sets.append(frozenset(languages))
    texts = [normalise(text) for text in phrases_of("phrases", "phrases_new_languages", "holdout")]
    hits = [
        (text, hit)
        for text in texts
        for found in book.rule_index.matches(text).values()
        for hit in found
    ]
    assert len(hits) > 1000
    compared = 0
    for chosen in sets:
        joined = by_language.of(chosen)
        one = compile_cues(context for name in sorted(chosen) for context in contexts[name])
        for text, hit in hits:
            for danger in (False, True):
                expected = softened(text, hit, one, danger, YEAR)
                assert softened(text, hit, joined, danger, YEAR) is expected, (chosen, text)
                compared += 1
    assert compared > 10_000
