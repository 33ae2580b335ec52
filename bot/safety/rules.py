"""Detection rules: data from the content pack, compiled once, applied to normalised text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from bot.content_pack.schema import DetectionFile
from bot.safety.normalise import as_displayed, normalise, unmask_lookalikes


class Intent(StrEnum):
    CRISIS = "crisis"  # suicide, self-harm
    DANGER = "danger"  # immediate danger from another person
    CONTACTED = "contacted"  # the other person got in touch
    URGE = "urge"  # the pull to reach out or go back


# The order in which intents are reported: the most urgent first.
PRIORITY = (Intent.CRISIS, Intent.DANGER, Intent.CONTACTED, Intent.URGE)
SAFETY_INTENTS = frozenset({Intent.CRISIS, Intent.DANGER})


@dataclass(frozen=True, slots=True)
class CompiledRule:
    id: str
    intent: Intent
    pattern: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class Match:
    intent: Intent
    rule_id: str


@dataclass(frozen=True, slots=True)
class Detection:
    normalised: str
    matches: tuple[Match, ...]

    @property
    def intents(self) -> frozenset[Intent]:
        return frozenset(match.intent for match in self.matches)

    @property
    def needs_safety_reply(self) -> bool:
        return bool(self.intents & SAFETY_INTENTS)


@dataclass(frozen=True, slots=True)
class Detector:
    exceptions: tuple[re.Pattern[str], ...]
    rules: tuple[CompiledRule, ...]

    def detect(self, text: str) -> Detection:
        normalised = normalise(text)
        found: dict[Intent, str] = {}
        # What the reader sees counts, not only the characters: the text as written,
        # in the order overrides show it, and with look-alike letters read as Latin.
        shown = as_displayed(text) or text
        readings = {normalised, normalise(shown), normalise(unmask_lookalikes(shown))}
        for reading in readings:
            self._match(reading, found)
        matches = tuple(Match(intent, found[intent]) for intent in PRIORITY if intent in found)
        return Detection(normalised, matches)

    def _match(self, normalised: str, found: dict[Intent, str]) -> None:
        screened = normalised
        # Harmless idioms ("killing it at work") are blanked out first; a real
        # crisis phrase elsewhere in the same message still matches its rule.
        for exception in self.exceptions:
            screened = exception.sub(" ", screened)
        for rule in self.rules:
            if rule.intent not in found and rule.pattern.search(screened):
                found[rule.intent] = rule.id


def compile_detector(detection: DetectionFile) -> Detector:
    """Compiled once, when the screen is built; the pack checked every pattern compiles."""
    return Detector(
        exceptions=tuple(re.compile(item.pattern) for item in detection.exceptions),
        rules=tuple(
            CompiledRule(rule.id, Intent(rule.intent), re.compile(rule.pattern))
            for rule in detection.rules
        ),
    )
