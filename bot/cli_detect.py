"""`steady detect`: what the safety screen reads in a text, for operators tuning it.

`steady detect TEXT` prints each intent with the rule that found it, and the learned
stage's reading; `--json` prints one JSON object instead; a TEXT of `-` reads one text a
line from standard input and answers each, in order, one a line, in a single process.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import TextIO

from bot.config import Settings
from bot.content_pack.loader import ContentError, load_detection
from bot.content_pack.pattern_book import pattern_book
from bot.safety.rules import Detection
from bot.safety.screen import detectors_for
from bot.safety.second_stage import stage_for

EXIT_USAGE = 2
FROM_STDIN = "-"


def detect(
    settings: Settings,
    text: str,
    locale: str | None,
    as_json: bool = False,
    lines: Iterable[str] | None = None,
    out: TextIO | None = None,
) -> int:
    out = out or sys.stdout
    try:
        # The compiled patterns from the data folder's book, where it has one (the book is
        # written there, never the folder made: an operator's check leaves no data behind).
        with pattern_book(settings.data_dir) as book:
            # The rules alone, not the whole pack: nothing here is said to anyone.
            locales, languages = load_detection(settings.content_dir)
            detectors = detectors_for(locales, languages)
    except ContentError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        return EXIT_USAGE
    book.keep()
    detector = (
        detectors.get(locale or settings.default_locale) or detectors[settings.default_locale]
    )
    stage = stage_for(settings.content_dir)
    texts = (line.rstrip("\r\n") for line in (lines or sys.stdin)) if text == FROM_STDIN else [text]
    for number, each in enumerate(texts):
        detection = stage.detect(detector, each)
        if number == 0 and detection.model is None:
            reason = stage.status.reason
            print(f"steady: screening with the rules alone ({reason}).", file=sys.stderr)
        if as_json:
            print(json.dumps(as_record(detection), ensure_ascii=False), file=out, flush=True)
        else:
            print("\n".join(described(detection)), file=out, flush=True)
    return 0


def as_record(detection: Detection) -> dict[str, object]:
    intents = [{"intent": m.intent.value, "rule": m.rule_id} for m in detection.matches]
    model = detection.model
    return {
        "normalised": detection.normalised,
        "intents": intents,
        "reply": detection.reply.value,
        "model": None
        if model is None
        else {"language": model.language, "score": model.score, "raised": model.raised},
    }


def described(detection: Detection) -> list[str]:
    lines = [f"normalised: {detection.normalised}"]
    lines += [f"{match.intent.value}: rule {match.rule_id}" for match in detection.matches]
    model = detection.model
    if model is not None:
        raised = "raised to a check" if model.raised else "not raised"
        lines.append(f"model: {model.language}, score {model.score:.3f}, {raised}")
    lines.append(f"reply: {detection.reply.value}")
    return lines
