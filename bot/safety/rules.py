"""Detection rules: data from the content pack, compiled once, applied to normalised text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from bot.content_pack.collector import collector_paused
from bot.content_pack.schema import DetectionContext, DetectionFile
from bot.safety.normalise import (
    as_displayed,
    expand_chat_spellings,
    join_spelled_out,
    normalise,
    unmask_lookalikes,
)
from bot.safety.starts import StartIndex


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

# Long texts are screened in pieces of this size, each overlapping the one before by far
# more than a crisis phrase is long, so a phrase across a boundary is still found whole. Each piece
# then costs a bounded time, and a caller can yield between pieces.
PIECE = 4096
OVERLAP = 512
_SENTENCE_MARKS = ".!?;"
_SENTENCE_END = re.compile(f"[{_SENTENCE_MARKS}]")
_WORD = re.compile(r"[\w']+")
_SPACES = re.compile(r"\s+")
_CLAUSE_MARK = re.compile(r"[,:;()\u2013\u2014]| - ")
# How far before a match its context is read: a few words, within the same sentence.
_LEAD_IN = 48
# How far either side of a match its sentence is read, however long the sentence.
_REACH = 160
# How many words after a match may name who it is done to ("threatened to kill himself").
_REFLEXIVE_REACH = 3


@dataclass(frozen=True, slots=True)
class ContextCues:
    """Signs, in every language together, that crisis words are not about the writer now.

    Each cue is a compiled pattern or None. `negation` and `title` are read in the few
    words just before a match; `distant_past`, `accident` and `present` elsewhere in its
    sentence; `contrast` after it ("i'd never hurt myself, but..."). `first_person` and
    `other_person` name who a match is about; `other_object` ("wish him dead") and
    `possessive` ("my") are read inside the match only, `recipient` marks whom an act is
    for ("letters to mum"), `first_object` right after it ("better off without me"), and
    `other_reflexive` says the act is someone else's on themselves ("killed herself"),
    and `topic` right after it makes the words a subject of talk ("suicide prevention").
    """

    negation: re.Pattern[str] | None = None
    contrast: re.Pattern[str] | None = None
    other_reflexive: re.Pattern[str] | None = None
    distant_past: re.Pattern[str] | None = None
    accident: re.Pattern[str] | None = None
    title: re.Pattern[str] | None = None
    present: re.Pattern[str] | None = None
    first_person: re.Pattern[str] | None = None
    other_person: re.Pattern[str] | None = None
    other_object: re.Pattern[str] | None = None
    first_object: re.Pattern[str] | None = None
    possessive: re.Pattern[str] | None = None
    recipient: re.Pattern[str] | None = None
    topic: re.Pattern[str] | None = None
    clause_break: re.Pattern[str] | None = None


@dataclass(frozen=True, slots=True)
class CompiledRule:
    id: str
    intent: Intent
    pattern: re.Pattern[str]


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

    @classmethod
    def of(cls, files: Sequence[DetectionFile]) -> RuleBook:
        """Compiled once at load; every pattern already compiles (the pack checked it)."""
        with collector_paused():  # reading the patterns' beginnings builds many parse trees
            exceptions = [re.compile(item.pattern) for file in files for item in file.exceptions]
            rules = [
                CompiledRule(rule.id, Intent(rule.intent), re.compile(rule.pattern))
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
            )

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
        # The context cues of all languages together: a word can match a rule of another
        # language than the one it is written in ("suicidio" matches an English rule), and
        # the signs around it are then in its own.
        contexts = [self.files[position].context for position in file_order]
        cues = _compile_cues([context for context in contexts if context is not None])
        return Detector(self, tuple(order), cues)


@dataclass(frozen=True)
class Detector:
    book: RuleBook
    order: tuple[int, ...]  # the book's rule numbers, the most urgent intents first
    cues: ContextCues

    @property
    def exceptions(self) -> tuple[re.Pattern[str], ...]:
        return self.book.exceptions

    @property
    def rules(self) -> tuple[CompiledRule, ...]:
        """The rules in the order they are tried."""
        return tuple(self.book.rules[number] for number in self.order)

    def detect(self, text: str, normalised: str | None = None) -> Detection:
        """The rules' reading of `text`; `normalised` is `normalise(text)` when the caller
        already has it."""
        normalised = normalise(text) if normalised is None else normalised
        found: dict[Intent, Match] = {}
        for reading in _readings(text, normalised):
            for piece in pieces(reading):
                self._match(piece, found)
        matches = tuple(found[intent] for intent in PRIORITY if intent in found)
        return Detection(normalised, matches)

    def _match(self, normalised: str, found: dict[Intent, Match]) -> None:
        screened = self._without_idioms(normalised)
        hits = self.book.rule_index.matches(screened)
        rules = self.book.rules
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
                full = not _softened(screened, hit, self.cues, rule.intent)
                if settled is None or (full and not settled.full):
                    settled = found[rule.intent] = Match(rule.intent, rule.id, full)
                if full:
                    break

    def _without_idioms(self, normalised: str) -> str:
        """Harmless idioms ("killing it at work") blanked out before the rules run; a real
        crisis phrase elsewhere in the same message still matches its rule."""
        spans = sorted(
            hit.span()
            for hits in self.book.exception_index.matches(normalised).values()
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


def _readings(text: str, normalised: str) -> set[str]:
    """What the reader sees counts, not only the characters: the text as written, in the
    order overrides show it, with look-alike letters read as Latin, with letters
    spelled out one by one joined into words, and with chat short forms written out."""
    shown = as_displayed(text) or text
    readings = {normalised}
    if shown is not text:
        readings.add(normalise(shown))
    unmasked = unmask_lookalikes(shown)
    if unmasked != shown:
        readings.add(normalise(unmasked))
    for reading in list(readings):
        joined = join_spelled_out(reading)
        if joined is not None:
            readings.add(joined)
    for reading in list(readings):
        expanded = expand_chat_spellings(reading)
        if expanded is not None:
            readings.add(expanded)
    return readings


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


def _softened(text: str, hit: re.Match[str], cues: ContextCues, intent: Intent) -> bool:
    """Whether this match's context says it is likely not the writer, here and now: a
    negation just before it, a title, someone else, the distant past, an accident. Any
    sign of the present in the sentence ("again", "tonight") keeps it full, and so does a
    turn after a negation ("i'd never do it, but...")."""
    start, end = hit.span()
    # The sentence around the match, at most _REACH characters either side: a message
    # with no full stops is still read only near the words that matched.
    reach_start, reach_end = max(0, start - _REACH), min(len(text), end + _REACH)
    sentence_start = max(text.rfind(mark, reach_start, start) for mark in _SENTENCE_MARKS) + 1
    sentence_start = max(sentence_start, reach_start)
    found_end = _SENTENCE_END.search(text, end, reach_end)
    sentence_end = found_end.start() if found_end else reach_end
    before = text[max(sentence_start, start - _LEAD_IN) : start]
    after = text[end:sentence_end]
    if _ends_with(cues.negation, before):
        return cues.contrast is None or cues.contrast.search(after) is None
    rest = f"{text[sentence_start:start]} {after}"
    if _inside_quotes(text, start, end, sentence_start, sentence_end):
        return True  # words inside quotes are someone's title or line, whatever they say
    if cues.topic is not None and cues.topic.match(after.lstrip()):
        return True  # "suicide prevention", "self harm awareness": the subject, not the act
    if cues.present is not None and cues.present.search(rest):
        return False
    if _ends_with(cues.title, before):
        return True
    # The past is read in the whole sentence: "clean from self harm for years" has
    # its sign ("clean ... for") around and inside the match.
    if cues.distant_past is not None and cues.distant_past.search(
        text, sentence_start, sentence_end
    ):
        return True
    if cues.other_reflexive is not None and cues.other_reflexive.search(
        " ".join(_WORD.findall(after)[:_REFLEXIVE_REACH])
    ):
        return True  # "threatened to kill himself": their act on themselves, not on the writer
    if intent is Intent.DANGER:
        return False  # danger is about another person by nature; only the cues above soften it
    if cues.accident is not None and cues.accident.search(rest):
        return True
    return _about_someone_else(hit.group(), before, after, cues)


def _ends_with(cue: re.Pattern[str] | None, before: str) -> bool:
    """Whether the words just before a match end with the cue (compiled to end at `$`)."""
    return cue is not None and cue.search(before) is not None


def _inside_quotes(text: str, start: int, end: int, sentence_start: int, sentence_end: int) -> bool:
    """A quoted title or line: a double quote opens before the match and closes after it."""
    opened = text.count('"', sentence_start, start) % 2 == 1
    return opened and '"' in text[end:sentence_end]


def _about_someone_else(matched: str, before: str, after: str, cues: ContextCues) -> bool:
    """Who the words are about: the writer when the match or the rest of its clause name
    them ("they'd be better off without me", "suicide is all i think about"); else a
    person named inside the match ("wish he was dead"), else the nearest one before it in
    its clause ("my friend died by suicide"). Nobody named: the writer."""
    if cues.first_person is None or cues.other_person is None:
        return False
    if cues.possessive is not None:  # "my" names whose thing, not who acts ("wish my ex...")
        matched = _SPACES.sub(" ", cues.possessive.sub(" ", matched))
        before = cues.possessive.sub(" ", before)
    if cues.first_person.search(matched) or _writer_follows(after, cues):
        return False
    if cues.recipient is not None:  # "letters to (my) mum": whom it is for, not who it is about
        matched = cues.recipient.sub(" ", matched)
    if cues.other_person.search(matched):
        return True
    if cues.other_object is not None and cues.other_object.search(matched):
        return True
    return _someone_else_before(before, cues)


def _writer_follows(after: str, cues: ContextCues) -> bool:
    """The words right after a match, or the rest of its clause, name the writer."""
    following = " ".join(_WORD.findall(after)[:_REFLEXIVE_REACH])
    if cues.first_object is not None and cues.first_object.search(following):
        return True
    assert cues.first_person is not None  # checked by the caller
    for word in _clause_words(after):
        # The writer as the one who acts ("i think about"), not as whom it is done to
        # ("for what he did to me") or whose thing it is.
        named = cues.first_person.fullmatch(word)
        if named and not any(
            c is not None and c.fullmatch(word) for c in (cues.first_object, cues.possessive)
        ):
            return True
        if cues.clause_break is not None and cues.clause_break.fullmatch(word):
            return False
    return False


def _someone_else_before(before: str, cues: ContextCues) -> bool:
    """The nearest person named before a match, in the same clause, is someone else
    ("since he left, suicide..." says nothing of whose suicide: the clause ends at the comma)."""
    assert cues.first_person is not None and cues.other_person is not None
    for word in reversed(_clause_words(before, backwards=True)):
        if cues.first_person.fullmatch(word):
            return False
        if cues.other_person.fullmatch(word):
            return True
        if cues.clause_break is not None and cues.clause_break.fullmatch(word):
            return False
    return False


def _clause_words(text: str, backwards: bool = False) -> list[str]:
    """The words of `text` up to a comma, colon or dash, from its start, or (backwards)
    from its end."""
    parts = _CLAUSE_MARK.split(text)
    return _WORD.findall(parts[-1] if backwards else parts[0])


def compile_detector(files: Sequence[DetectionFile]) -> Detector:
    """One detector for every language's rules, so a message is screened in all of them
    whatever the user's locale; among rules of the same intent, the earlier file's first."""
    return RuleBook.of(files).detector(range(len(files)))


def _compile_cues(contexts: list[DetectionContext]) -> ContextCues:
    def cue(field: str, words: bool = False, ending: bool = False) -> re.Pattern[str] | None:
        patterns = [getattr(context, field) for context in contexts]
        joined = "|".join(f"(?:{pattern})" for pattern in patterns if pattern is not None)
        if not joined:
            return None
        if ending:  # read just before a match: it must end where the match begins
            return re.compile(rf"(?<!\w)(?:{joined})\W*$")
        return re.compile(rf"(?<!\w)(?:{joined})(?!\w)" if words else joined)

    return ContextCues(
        negation=cue("negation", ending=True),
        contrast=cue("contrast"),
        other_reflexive=cue("other_reflexive", words=True),
        distant_past=cue("distant_past"),
        accident=cue("accident"),
        title=cue("title", ending=True),
        present=cue("present"),
        first_person=cue("first_person", words=True),
        other_person=cue("other_person", words=True),
        other_object=cue("other_object", words=True),
        first_object=cue("first_object", words=True),
        possessive=cue("possessive", words=True),
        recipient=cue("recipient", words=True),
        topic=cue("topic", words=True),
        clause_break=cue("clause_break", words=True),
    )
