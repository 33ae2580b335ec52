"""Detection rules: data from the content pack, compiled once, applied to normalised text."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum

from bot.content_pack.collector import collector_paused
from bot.content_pack.patterns import read
from bot.content_pack.schema import DetectionContext, DetectionFile
from bot.safety.context import CuesByLanguage, softened
from bot.safety.normalise import (
    as_displayed,
    expand_chat_spellings,
    join_spelled_out,
    normalise,
    unmask_lookalikes,
)
from bot.safety.starts import StartIndex, WordHeads, word_heads


class Intent(StrEnum):
    CRISIS = "crisis"  # suicide, self-harm
    DANGER = "danger"  # immediate danger from another person
    CONTACTED = "contacted"  # the other person got in touch
    URGE = "urge"  # the pull to reach out or go back


class ReplyLevel(StrEnum):
    """What the bot answers to a message, from the most urgent down."""

    CRISIS = "crisis"  # the full reply, helplines first
    DANGER = "danger"  # the full reply, domestic abuse lines first
    CHECK = "check"  # crisis words in a context that softens them: one kind line, two buttons
    URGE = "urge"  # the pull to reach out: a pause is offered
    CONTACTED = "contacted"  # they got in touch: a pause before replying is offered
    NONE = "none"  # ordinary talk


# The order in which intents are reported: the most urgent first.
PRIORITY = (Intent.CRISIS, Intent.DANGER, Intent.CONTACTED, Intent.URGE)
SAFETY_INTENTS = frozenset({Intent.CRISIS, Intent.DANGER})
SAFETY_REPLIES = frozenset({ReplyLevel.CRISIS, ReplyLevel.DANGER, ReplyLevel.CHECK})
_OPEN = frozenset(PRIORITY)  # every intent, before any is settled

# Long texts are screened in pieces of this size, each overlapping the one before by far
# more than a crisis phrase is long, so a phrase across a boundary is still found whole. Each piece
# then costs a bounded time, and a caller can yield between pieces.
PIECE = 4096
OVERLAP = 512
# Each run of white space read as one space: a run of two or more, or one that is not a
# plain space, replaced (what \s+ replaces, but for the single spaces between words, so
# the hundreds of those in a long message are not each replaced by itself).
_SPACES = re.compile(r"\s{2,}|[^\S ]")


@dataclass(frozen=True, slots=True)
class CompiledRule:
    id: str
    intent: Intent
    pattern: re.Pattern[str]
    # A mention: crisis or danger words in any person or tense, never the full reply on
    # their own, so that a softened mention the first-person rules do not read gets a check.
    mention: bool = False


@dataclass(frozen=True, slots=True)
class Match:
    intent: Intent
    rule_id: str
    # False when the words matched but their context (a negation, the past, someone else,
    # a title, an accident) says they may not be about the writer now: a check, not the
    # full reply.
    full: bool = True


@dataclass(frozen=True, slots=True)
class ModelVerdict:
    """What the learned stage (bot/safety/model.py) read in a text."""

    language: str  # the corpus language the text seems written in
    score: float  # 0 to 1: how likely the words call for a check
    raised: bool  # the score raised the reply to a check (the rules had left it lower)
    danger: bool  # the words lean to danger from another person, not a crisis of one's own


@dataclass(frozen=True, slots=True)
class Detection:
    normalised: str
    matches: tuple[Match, ...]
    model: ModelVerdict | None = None  # None: the rules alone screened the text

    @property
    def intents(self) -> frozenset[Intent]:
        return frozenset(match.intent for match in self.matches)

    @property
    def reply(self) -> ReplyLevel:
        """Exactly what the bot answers: the full reply for any crisis or danger said in
        the first person, now; a check when such words only appear softened, or when the
        learned stage raised the text to one; else the pause offers, or nothing."""
        full = {match.intent for match in self.matches if match.full}
        if Intent.CRISIS in full:
            return ReplyLevel.CRISIS
        if Intent.DANGER in full:
            return ReplyLevel.DANGER
        if self.intents & SAFETY_INTENTS or (self.model is not None and self.model.raised):
            return ReplyLevel.CHECK
        if Intent.CONTACTED in self.intents:
            return ReplyLevel.CONTACTED
        if Intent.URGE in self.intents:
            return ReplyLevel.URGE
        return ReplyLevel.NONE

    @property
    def needs_safety_reply(self) -> bool:
        return self.reply in SAFETY_REPLIES

    @property
    def check_leans_danger(self) -> bool:
        """For a check: whether danger lines should lead "Show me help now" (the rules'
        words when they matched, else the learned stage's lean)."""
        if self.intents & SAFETY_INTENTS:
            return Intent.CRISIS not in self.intents
        return self.model is not None and self.model.danger


@dataclass(frozen=True)
class RuleBook:
    """Every file's patterns, compiled and indexed: the costly part of a detector, done
    once. Each locale reads the same book (every language is screened whatever the
    locale); only the order its rules are tried in is its own."""

    files: tuple[DetectionFile, ...]
    exceptions: tuple[re.Pattern[str], ...]
    rules: tuple[CompiledRule, ...]  # file by file, each file's in its own order
    file_of_rule: tuple[int, ...]  # the position in `files` of each rule's file
    exception_index: StartIndex = field(repr=False)
    rule_index: StartIndex = field(repr=False)
    # Each language's context cues (a locale's file and the language's file together).
    cues: CuesByLanguage = field(repr=False, compare=False)
    # The numbers of the rules of each set of intents asked for (numbers_of), kept.
    _numbers: dict[frozenset[Intent], frozenset[int]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @classmethod
    def of(cls, files: Sequence[DetectionFile]) -> RuleBook:
        """Built once at load. Every pattern was compiled when the pack checked it, and
        that very compile is used here (bot/content_pack/patterns.py)."""
        with collector_paused():  # the index is tens of thousands of small objects
            exceptions = [read(item.pattern).compiled for file in files for item in file.exceptions]
            rules = [
                CompiledRule(
                    rule.id, Intent(rule.intent), read(rule.pattern).compiled, rule.mention
                )
                for file in files
                for rule in file.rules
            ]
            file_of_rule = [position for position, file in enumerate(files) for _ in file.rules]
            return cls(
                files=tuple(files),
                exceptions=tuple(exceptions),
                rules=tuple(rules),
                file_of_rule=tuple(file_of_rule),
                # Which patterns can begin with which letters: the index every detection uses.
                exception_index=StartIndex.of(exceptions),
                rule_index=StartIndex.of([rule.pattern for rule in rules]),
                cues=CuesByLanguage(_contexts_by_language(files)),
            )

    def numbers_of(self, intents: frozenset[Intent]) -> frozenset[int]:
        """The numbers of the rules of these intents."""
        found = self._numbers.get(intents)
        if found is None:
            found = self._numbers[intents] = frozenset(
                number for number, rule in enumerate(self.rules) if rule.intent in intents
            )
        return found

    def language_of(self, number: int) -> str:
        """The language rule `number` is written in."""
        return self.files[self.file_of_rule[number]].locale

    def detector(self, file_order: Sequence[int]) -> Detector:
        """The book read with its files in this order (positions in `files`, each once).
        The most urgent rules first, whatever their language: once a full crisis match is
        found, the other crisis rules need not run. Among rules of the same intent, the
        earlier file's first: its rule is the one a match names when rules of two
        languages match the same words (and the reply's language follows it)."""
        if sorted(file_order) != list(range(len(self.files))):
            raise ValueError(f"not an order of the book's {len(self.files)} files: {file_order}")
        rank = {position: place for place, position in enumerate(file_order)}
        order = sorted(
            range(len(self.rules)),
            key=lambda number: (
                PRIORITY.index(self.rules[number].intent),
                rank[self.file_of_rule[number]],
            ),
        )
        return Detector(self, tuple(order))


@dataclass(frozen=True)
class Detector:
    book: RuleBook
    order: tuple[int, ...]  # the book's rule numbers, the most urgent intents first

    @property
    def exceptions(self) -> tuple[re.Pattern[str], ...]:
        return self.book.exceptions

    @property
    def rules(self) -> tuple[CompiledRule, ...]:
        """The rules in the order they are tried."""
        return tuple(self.book.rules[number] for number in self.order)

    def detect(
        self, text: str, today: date | None = None, *, normalised: str | None = None
    ) -> Detection:
        """What `text` says, read on `today` (a year before it is the past; the system's
        date when not given); `normalised` is `normalise(text)` when the caller has it."""
        year = (today or date.today()).year
        normalised = normalise(text) if normalised is None else normalised
        found: dict[Intent, Match] = {}
        for reading in _readings(text, normalised):
            for piece in pieces(reading):
                self._match(piece, found, year)
        matches = tuple(found[intent] for intent in PRIORITY if intent in found)
        return Detection(normalised, matches)

    def _match(self, normalised: str, found: dict[Intent, Match], year: int) -> None:
        # An intent a reading or piece before this one settled in full takes nothing from
        # this one (its rules are passed over below): when every intent is, nothing is read.
        settled_in_full = frozenset(intent for intent, match in found.items() if match.full)
        if len(settled_in_full) == len(PRIORITY):
            return
        words = word_heads(normalised)
        screened = self._without_idioms(normalised, words)
        # The words are read once, for both indexes, unless an idiom was blanked out.
        hits = self._hits(screened, words if screened is normalised else None, settled_in_full)
        rules = self.book.rules
        # The context is read in the languages the message matched in, and only theirs: a
        # word can match a rule of another language than its own ("suicidio" an English
        # rule), and its own language's rules then match too; a language none of whose
        # rules matched lends no cue ("nu" is Dutch for now, and Swedish writes it too).
        cues = self.book.cues.of(frozenset(self.book.language_of(number) for number in hits))
        for number in self.order:
            if number not in hits:
                continue
            rule = rules[number]
            settled = found.get(rule.intent)
            if settled is not None and settled.full:
                continue
            if rule.intent not in SAFETY_INTENTS:
                found.setdefault(rule.intent, Match(rule.intent, rule.id))
                continue
            # Crisis and danger: every place the rule matches counts, since one softened
            # mention ("i'd never hurt myself") must not hide a real one later on.
            for hit in hits[number]:
                danger = rule.intent is Intent.DANGER
                full = not rule.mention and not softened(screened, hit, cues, danger, year)
                if settled is None or (full and not settled.full):
                    settled = found[rule.intent] = Match(rule.intent, rule.id, full)
                if full:
                    break

    def _hits(
        self, screened: str, words: WordHeads | None, settled_in_full: frozenset[Intent]
    ) -> dict[int, list[re.Match[str]]]:
        """Every rule's matches in `screened` (StartIndex.matches), but for the rules of
        intents settled in full, which are passed over, so their matches are not looked
        for: unless a crisis or danger rule matches, whose context is read with the cues
        of every language a rule matched in (theirs included)."""
        index = self.book.rule_index
        if not settled_in_full:
            return index.matches(screened, words)
        words = word_heads(screened) if words is None else words
        hits = index.matches(screened, words, self.book.numbers_of(_OPEN - settled_in_full))
        if any(self.book.rules[number].intent in SAFETY_INTENTS for number in hits):
            hits |= index.matches(screened, words, self.book.numbers_of(settled_in_full))
        return hits

    def _without_idioms(self, normalised: str, words: WordHeads | None = None) -> str:
        """Harmless idioms ("killing it at work") blanked out before the rules run; a real
        crisis phrase elsewhere in the same message still matches its rule. The text
        itself when none is found. `words`: `word_heads(normalised)`, when read already."""
        spans = sorted(
            hit.span()
            for hits in self.book.exception_index.matches(normalised, words).values()
            for hit in hits
        )
        if not spans:
            return normalised
        kept: list[str] = []
        position = 0
        for start, end in spans:
            if start >= position:
                kept.append(normalised[position:start])
            position = max(position, end)
        kept.append(normalised[position:])
        return _SPACES.sub(" ", " ".join(kept))


def _readings(text: str, normalised: str) -> list[str]:
    """What the reader sees counts, not only the characters: the text as written, in the
    order overrides show it, with look-alike letters read as Latin, with letters
    spelled out one by one joined into words, and with chat short forms written out.

    In that order, each once: the first reading a rule matches names the match, so a
    set's order (which changes with each process's hash seed) would name a different rule,
    and so perhaps answer in another language, from one run to the next."""
    shown = as_displayed(text) or text
    readings = [normalised]
    if shown is not text:
        _add(readings, normalise(shown))
    unmasked = unmask_lookalikes(shown)
    if unmasked != shown:
        _add(readings, normalise(unmasked))
    for reading in list(readings):
        _add(readings, join_spelled_out(reading))
    for reading in list(readings):
        _add(readings, expand_chat_spellings(reading))
    return readings


def _add(readings: list[str], reading: str | None) -> None:
    if reading is not None and reading not in readings:
        readings.append(reading)


def pieces(text: str) -> list[str]:
    """`text` in overlapping pieces of at most PIECE characters (one piece when short);
    each piece after the first starts at a space inside the previous one's last OVERLAP
    characters, so no phrase shorter than the overlap is cut in every piece it is in."""
    if len(text) <= PIECE:
        return [text]
    found: list[str] = []
    start = 0
    while True:
        end = min(start + PIECE, len(text))
        found.append(text[start:end])
        if end == len(text):
            return found
        space = text.find(" ", end - OVERLAP, end)
        start = space + 1 if space != -1 else end - OVERLAP


def compile_detector(files: Sequence[DetectionFile]) -> Detector:
    """One detector for every language's rules, so a message is screened in all of them
    whatever the user's locale; among rules of the same intent, the earlier file's first."""
    return RuleBook.of(files).detector(range(len(files)))


def _contexts_by_language(
    files: Sequence[DetectionFile],
) -> dict[str, list[DetectionContext]]:
    """Each language's context cues: a locale's file and the language's file share it."""
    found: dict[str, list[DetectionContext]] = defaultdict(list)
    for file in files:
        if file.context is not None:
            found[file.locale].append(file.context)
    return dict(found)
