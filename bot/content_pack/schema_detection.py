"""The shape of detection.yaml: the rules that recognise crisis, danger, contact and urge
in what a user writes, the idioms blanked out before they run, and a language's context
cues (bot/safety/rules.py and context.py read them)."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator

from bot.content_pack.patterns import compiled, read
from bot.content_pack.schema_base import ItemId, LocaleCode, StrictModel


def _compiles(pattern: str) -> str:
    try:
        compiled(pattern)  # from the book of compiled patterns at a start, where it is
    except re.error as error:
        raise ValueError(f"pattern does not compile: {error}") from None
    return pattern


def _compiles_and_is_read(pattern: str) -> str:
    """A rule's or an idiom's pattern, once it compiles: compiled and its beginnings read
    from one parse, for the whole process (the screen's index takes them from there)."""
    try:
        read(pattern)
    except re.error as error:
        raise ValueError(f"pattern does not compile: {error}") from None
    return pattern


class DetectionException(StrictModel):
    """A harmless idiom blanked out before the rules run ("killing it at work")."""

    id: ItemId
    pattern: str

    _valid = field_validator("pattern")(_compiles_and_is_read)


class DetectionRule(StrictModel):
    id: ItemId
    intent: Literal["crisis", "danger", "contacted", "urge"]
    pattern: str
    note: Annotated[str, StringConstraints(min_length=3, max_length=200)]
    # A mention rule reads crisis or danger words in any person or tense ("my brother
    # killed himself", "I wanted to die back then"): at most a check, never the full reply.
    mention: bool = False

    _valid = field_validator("pattern")(_compiles_and_is_read)


class DetectionContext(StrictModel):
    """A language's signs that crisis words are softened by their context: what turns a full
    reply into a short check (bot/safety/context.py reads them; a language's cues apply to a
    message that matched one of its rules). Each is a pattern. The words just before a match
    are read for `negation` and `title`; the rest of its sentence for `distant_past`,
    `accident` and `present` (which keeps the reply full); what follows it for `contrast`
    (which undoes a negation), `other_reflexive` (someone acting on themselves),
    `first_object` ("without me") and `topic` ("suicide prevention"). `first_person` and
    `other_person` are words naming who a match is about; `other_object`, `possessive` and
    `recipient` are read inside the match only; `clause_break` words ("and", "but") end the
    stretch of words read for who a match is about."""

    negation: str | None = None
    contrast: str | None = None
    other_reflexive: str | None = None
    distant_past: str | None = None
    accident: str | None = None
    title: str | None = None
    present: str | None = None
    first_person: str | None = None
    other_person: str | None = None
    other_object: str | None = None
    first_object: str | None = None
    possessive: str | None = None
    recipient: str | None = None
    topic: str | None = None
    clause_break: str | None = None
    # A year written just after `since` or just before `since_after` starts something
    # still going on ("since 2019 he hits me"); any other year before this one is
    # the past, in every language (bot/safety/context.py reads the year itself).
    since: str | None = None
    since_after: str | None = None

    @field_validator("*")
    @classmethod
    def _valid(cls, pattern: str | None) -> str | None:
        return None if pattern is None else _compiles(pattern)


class DetectionFile(StrictModel):
    locale: LocaleCode
    exceptions: list[DetectionException] = Field(default_factory=list)
    rules: list[DetectionRule] = Field(min_length=1)
    context: DetectionContext | None = None
