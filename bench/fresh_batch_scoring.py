"""Screening a fresh batch as the bot screens a user's message, and counting what came back.

Each phrase goes through `SafetyScreen.screen` exactly as the router calls it for a
private message of an English-locale user (every language's rules run on every message,
whatever the locale), and, when the screen sends nothing, through `SafetyScreen.detect` as
the router does for free text, to see whether it would offer the pause (urge) or the
"they contacted me" flow.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from bench.fresh_batch_files import LanguageFile
from bot.safety.rules import Detection, Intent, ReplyLevel
from bot.safety.screen import SafetyScreen, ScreenResult

USER_LOCALE = "en"
FULL_LEVELS = (ReplyLevel.CRISIS, ReplyLevel.DANGER)
# What each intent label wants found, and the flow the router offers for it.
INTENT_OF_LABEL = {"urge": Intent.URGE, "contacted": Intent.CONTACTED}


class Outcome(Enum):
    FULL = "full"  # the crisis or danger reply, with every contact
    CHECK = "check"  # the short "are you safe?" check
    NOTHING = "nothing"  # no safety reply at all


@dataclass(frozen=True)
class Screened:
    """One phrase and what a user who wrote it would have got."""

    language: str
    label: str
    text: str
    outcome: Outcome
    level: str  # the detection's reply level, as `steady detect` prints it
    intents: frozenset[str]
    offer: str | None  # with no safety reply: "contacted" or "urge", as the router offers
    model_seen: bool  # a learned stage gave a verdict on this message
    model_raised: bool  # ... and that verdict raised the reply to a check


def model_verdict(*holders: object) -> tuple[bool, bool]:
    """(seen, raised) of a learned stage's verdict, wherever the screen exposes one.

    Today's screen has no learned stage. When one lands, a detection or screen result may
    carry its verdict as `model` (an object or a mapping with `raised`); a check it raised
    counts as a check. Nothing else about its shape is assumed.
    """
    for holder in holders:
        verdict = getattr(holder, "model", None)
        if verdict is None:
            continue
        raised = (
            verdict.get("raised")
            if isinstance(verdict, Mapping)
            else getattr(verdict, "raised", None)
        )
        return True, bool(raised)
    return False, False


def screen_phrase(screen: SafetyScreen, language: str, label: str, text: str) -> Screened:
    result: ScreenResult | None = screen.screen(text, USER_LOCALE, None, False)
    detection: Detection = (
        result.detection if result is not None else screen.detect(text, USER_LOCALE)
    )
    seen, raised = model_verdict(detection, result)
    if detection.reply in FULL_LEVELS and result is not None:
        outcome = Outcome.FULL
    elif result is not None or raised:
        outcome = Outcome.CHECK
    else:
        outcome = Outcome.NOTHING
    intents = detection.intents
    offer = None
    if result is None:  # the router's order for free text: a contact first, then an urge
        if Intent.CONTACTED in intents:
            offer = "contacted"
        elif Intent.URGE in intents:
            offer = "urge"
    return Screened(
        language=language,
        label=label,
        text=text,
        outcome=outcome,
        level=detection.reply.value,
        intents=frozenset(intent.value for intent in intents),
        offer=offer,
        model_seen=seen,
        model_raised=raised,
    )


def screen_batch(screen: SafetyScreen, files: Iterable[LanguageFile]) -> list[Screened]:
    return [
        screen_phrase(screen, file.language, label, text)
        for file in files
        for label, phrases in file.labels.items()
        for text in phrases
    ]


@dataclass
class Tally:
    """What one label (of one language, or of a group) got."""

    phrases: int = 0
    full: int = 0
    check: int = 0
    nothing: int = 0
    intent_found: int = 0  # urge/contacted: the label's own intent among those found
    offered: int = 0  # urge/contacted: the router would offer the label's own flow
    other_full: int = 0  # crisis answered with the danger reply, or danger with the crisis one
    offered_instead: int = 0  # crisis/danger with no safety reply, offered urge or contact
    flow_intent: int = 0  # ordinary/softened: an urge or contact intent found
    model_seen: int = 0
    model_raised: int = 0

    def add(self, item: Screened) -> None:
        self.phrases += 1
        match item.outcome:
            case Outcome.FULL:
                self.full += 1
            case Outcome.CHECK:
                self.check += 1
            case Outcome.NOTHING:
                self.nothing += 1
        wanted = INTENT_OF_LABEL.get(item.label)
        if wanted is not None:
            self.intent_found += int(wanted.value in item.intents)
            self.offered += int(item.offer == item.label)
        if item.label in ("crisis", "danger"):
            self.other_full += int(item.outcome is Outcome.FULL and item.level != item.label)
            self.offered_instead += int(item.offer is not None)
        if item.label in ("ordinary", "softened"):
            self.flow_intent += int(bool(item.intents & {"urge", "contacted"}))
        self.model_seen += int(item.model_seen)
        self.model_raised += int(item.model_raised)


def tally(items: Iterable[Screened], languages: Iterable[str], labels: Iterable[str]) -> Tally:
    """One tally over the given languages and labels."""
    wanted_languages, wanted_labels = set(languages), set(labels)
    total = Tally()
    for item in items:
        if item.language in wanted_languages and item.label in wanted_labels:
            total.add(item)
    return total


def percent(part: int, whole: int) -> float | None:
    return None if whole == 0 else round(100 * part / whole, 1)
