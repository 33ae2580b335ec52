"""How long each kind of text a user writes may be: one limit per kind, named once."""

from __future__ import annotations

from enum import Enum


class TextLimit(Enum):
    """Characters kept for each kind of text (after trimming spaces at either end)."""

    NOTE = 1000  # a check-in note
    REASON = 500  # one entry in the reasons list
    DRAFT = 4000  # a message written in a pause and not sent
    PLAN_PART = 1000  # one part of a safety plan

    @property
    def characters(self) -> int:
        return self.value
