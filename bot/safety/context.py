"""Reading a match's context: whether crisis words are about the writer, here and now.

A rule says which words matched; the words around them say whether the full reply is
right or a short check is (a negation just before, the past, someone else, a title, an
accident). Each language's cues are compiled once; a message is read with the cues of
the languages its own words matched in, so one language's word for "now" or "no" is
not read into another's sentence (Dutch "nu" in Swedish "nu mar jag bra").

A year before this one is the past in every language, computed from today's date, not
from a list: only the words that make a year the start of something still going on
("since 2019") are each language's own.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Protocol

from bot.content_pack.patterns import compiled
from bot.content_pack.schema import DetectionContext

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
# A year: four digits (of any script's digits) not inside a longer number, an amount or
# a time ("2,000", "20:15"); a full stop or comma may end it. Letters may follow
# ("2015te", "2015年"); a unit or a currency may not.
_DIGIT = "0-9\u0660-\u0669\u06f0-\u06f9"
_YEAR = re.compile(
    f"(?<![{_DIGIT}A-Za-z.,:/$€£¥₹#+-])([{_DIGIT}]{{4}})(?![{_DIGIT}/%]|[.,:][{_DIGIT}])"
)
_AMOUNT = re.compile(
    r"\s?(?:mg|mgs|mcg|ml|g|kg|ug|µg|milligrams?|pills?|tablets?|units?|iu|euros?|dollars?"
    r"|pounds?|x|\$|€|£)(?!\w)"
)
# The first year read as a year of someone's life; earlier four-digit numbers are amounts.
FIRST_YEAR = 1900
# How far before a year its `since` words are read.
_SINCE_REACH = 24


class Cue(Protocol):
    """A cue as it is read: whether, and where, it matches (a compiled pattern is one)."""

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> object | None: ...

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> object | None: ...

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> object | None: ...


@dataclass(frozen=True, slots=True)
class AnyOf:
    """Several languages' compiled cues read as one, matching where any of them does: what
    one pattern joining them as alternatives finds (each is read only for whether it
    matches), without compiling that pattern while a message waits."""

    parts: tuple[Cue, ...]

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> object | None:
        return next((hit for part in self.parts if (hit := part.search(string, pos, endpos))), None)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> object | None:
        return next((hit for part in self.parts if (hit := part.match(string, pos, endpos))), None)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> object | None:
        return next(
            (hit for part in self.parts if (hit := part.fullmatch(string, pos, endpos))), None
        )


@dataclass(frozen=True, slots=True)
class ContextCues:
    """Signs, in one language or several together, that crisis words are not about the
    writer now.

    Each cue is a compiled pattern (several languages' read as one: AnyOf) or None;
    `possessive` and `recipient`, which words are cut out by, are always one pattern.
    `negation` and `title` are read in the few words just before a match; `distant_past`,
    `accident` and `present` elsewhere in its sentence; `contrast` after it ("i'd never hurt
    myself, but..."). `first_person` and `other_person` name who a match is about;
    `other_object` ("wish him dead") and `possessive` ("my") are read inside the match only,
    `recipient` marks whom an act is for ("letters to mum"), `first_object` right after it
    ("better off without me"), and `other_reflexive` says the act is someone else's on
    themselves ("killed herself"), and `topic` right after it makes the words a subject of
    talk ("suicide prevention"). `since` just before a year, or `since_after` just after it,
    makes the year the start of something still going on rather than the past.
    """

    negation: Cue | None = None
    contrast: Cue | None = None
    other_reflexive: Cue | None = None
    distant_past: Cue | None = None
    accident: Cue | None = None
    title: Cue | None = None
    present: Cue | None = None
    first_person: Cue | None = None
    other_person: Cue | None = None
    other_object: Cue | None = None
    first_object: Cue | None = None
    possessive: re.Pattern[str] | None = None
    recipient: re.Pattern[str] | None = None
    topic: Cue | None = None
    clause_break: Cue | None = None
    since: Cue | None = None
    since_after: Cue | None = None


class CuesByLanguage:
    """Each language's cues, compiled when the screen is built, and those of a set of
    languages read together, joined from them on first use and kept: a message is read
    with the cues of the languages it matched in. So no message after a start waits for
    its cues to compile, but for the two small word lists cut out of a match (possessive,
    recipient) of a set of languages first met together (under a millisecond)."""

    # Sets of languages a process has compiled cues for; past this many the cache starts
    # again, keeping each language's own (one language, or two mixed, is what nearly
    # every message needs).
    LIMIT = 256

    def __init__(self, contexts: Mapping[str, Sequence[DetectionContext]]) -> None:
        self._contexts = {language: tuple(found) for language, found in contexts.items()}
        self._each = {
            frozenset({language}): compile_cues(found) for language, found in self._contexts.items()
        }
        self._compiled: dict[frozenset[str], ContextCues] = {}

    def of(self, languages: frozenset[str]) -> ContextCues:
        found = self._each.get(languages) or self._compiled.get(languages)
        if found is None:
            if len(self._compiled) >= self.LIMIT:
                self._compiled.clear()
            found = self._compiled[languages] = self._joined(sorted(languages))
        return found

    def _joined(self, languages: list[str]) -> ContextCues:
        """The cues of several languages: each read as any of theirs (AnyOf), but for
        those that cut words out of a text, compiled as one where two languages have one:
        alternatives cut differently from each language's cut in turn."""
        each = [self._each[frozenset({name})] for name in languages if name in self._contexts]
        if len(each) == 1:
            return each[0]
        read: dict[str, Cue | None] = {}
        for name in _READ_ONLY:
            parts = tuple(cue for cue in (getattr(one, name) for one in each) if cue is not None)
            read[name] = None if not parts else parts[0] if len(parts) == 1 else AnyOf(parts)
        cutting: dict[str, re.Pattern[str] | None] = {}
        for name in _CUTTING:
            cuts = [cue for cue in (getattr(one, name) for one in each) if cue is not None]
            cutting[name] = cuts[0] if len(cuts) == 1 else None
        several = frozenset(
            name for name in _CUTTING if sum(getattr(one, name) is not None for one in each) > 1
        )
        if several:
            contexts = [context for name in languages for context in self._contexts.get(name, ())]
            compiled = compile_cues(contexts, only=several)
            cutting |= {name: getattr(compiled, name) for name in several}
        return ContextCues(**read, **cutting)  # type: ignore[arg-type]


# A single quote that opens a quoted line (after a space, before a word) and one that
# closes it (after a word or its stop, before a space or the end): an apostrophe inside
# a word ("can't") is neither.
_OPEN_SINGLE = re.compile(r"(?<!\S)'(?=\w)")
_CLOSE_SINGLE = re.compile(r"(?<=[\w.,!?])'(?!\w)")


def softened(text: str, hit: re.Match[str], cues: ContextCues, danger: bool, year: int) -> bool:
    """Whether this match's context says it is likely not the writer, here and now: a
    negation just before it, a title, someone else, the distant past, an accident. Any
    sign of the present in the sentence ("again", "tonight") keeps it full, and so does a
    turn after a negation ("i'd never do it, but..."). `year` is this year: any earlier
    one in the sentence is the past."""
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
    if not danger and _quoted_title(text, start, end, sentence_start, sentence_end, cues):
        return True
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
    if past_year(text, sentence_start, sentence_end, cues, year):
        return True  # "in 2015", "2015te", "2015年": a year before this one
    if cues.other_reflexive is not None and cues.other_reflexive.search(
        " ".join(_WORD.findall(after)[:_REFLEXIVE_REACH])
    ):
        return True  # "threatened to kill himself": their act on themselves, not on the writer
    if danger:
        return False  # danger is about another person by nature; only the cues above soften it
    if cues.accident is not None and cues.accident.search(rest):
        return True
    return _about_someone_else(hit.group(), before, after, cues)


def past_year(text: str, start: int, end: int, cues: ContextCues, year: int) -> bool:
    """Whether text[start:end] names a year before `year` that is not the start of
    something still going on ("since 2019", "2019dan beri") and not an amount (2000mg)."""
    for found in _YEAR.finditer(text, start, end):
        if not FIRST_YEAR <= int(found.group(1)) < year:
            continue
        if _AMOUNT.match(text, found.end()):
            continue
        lead = text[max(start, found.start() - _SINCE_REACH) : found.start()]
        if cues.since is not None and cues.since.search(lead):
            continue
        if cues.since_after is not None and cues.since_after.match(text, found.end(), end):
            continue
        return True
    return False


def _ends_with(cue: Cue | None, before: str) -> bool:
    """Whether the words just before a match end with the cue (compiled to end at `$`)."""
    return cue is not None and cue.search(before) is not None


def _inside_quotes(text: str, start: int, end: int, sentence_start: int, sentence_end: int) -> bool:
    """A quoted title or line: a double quote opens before the match and closes after it."""
    opened = text.count('"', sentence_start, start) % 2 == 1
    return opened and '"' in text[end:sentence_end]


def _quoted_title(
    text: str, start: int, end: int, sentence_start: int, sentence_end: int, cues: ContextCues
) -> bool:
    """A line in single quotes named as a title's just before it ("the song goes 'i want
    to die in your arms'"). Told from an apostrophe by where the quotes stand: an opening
    one starts a word after a space, a closing one ends a word before a space or the end.
    Only a title's: a threat is often reported in quotes ("he said 'you're dead'")."""
    # A search ending at `start` could not look at the word a quote opens, hence start + 1.
    openings = [
        found.start()
        for found in _OPEN_SINGLE.finditer(text, sentence_start, start + 1)
        if found.start() < start
    ]
    if not openings or _CLOSE_SINGLE.search(text, openings[-1] + 1, start):
        return False
    if _CLOSE_SINGLE.search(text, end, sentence_end) is None:
        return False
    opening = openings[-1]
    return _ends_with(cues.title, text[max(sentence_start, opening - _LEAD_IN) : opening + 1])


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


def compile_cues(
    contexts: Iterable[DetectionContext], only: frozenset[str] | None = None
) -> ContextCues:
    """The cues of these contexts read together: a cue matches where any of theirs does.
    With `only`, only the cues of those names are compiled (the rest are None)."""
    contexts = list(contexts)

    def cue(field: str, words: bool = False, ending: bool = False) -> re.Pattern[str] | None:
        if only is not None and field not in only:
            return None
        patterns = [getattr(context, field) for context in contexts]
        joined = "|".join(f"(?:{pattern})" for pattern in patterns if pattern is not None)
        if not joined:
            return None
        # `compiled`: taken from the book of compiled patterns at a start, where it is.
        if ending:  # read just before a match: it must end where the match begins
            return compiled(rf"(?<!\w)(?:{joined})\W*$")
        return compiled(rf"(?<!\w)(?:{joined})(?!\w)" if words else joined)

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
        since=cue("since", ending=True),
        since_after=_following(cue("since_after")),
    )


# The cues that cut words out of a text (re.sub): several languages' must be one pattern,
# since the alternatives of one cut differently from each language's cut in turn.
_CUTTING = frozenset({"possessive", "recipient"})
_READ_ONLY = tuple(field.name for field in fields(ContextCues) if field.name not in _CUTTING)


def _following(cue: re.Pattern[str] | None) -> re.Pattern[str] | None:
    """A cue read right after a year, past an apostrophe or a space ("2019'dan", "2019 se")."""
    return None if cue is None else re.compile(rf"\W*(?:{cue.pattern})")
