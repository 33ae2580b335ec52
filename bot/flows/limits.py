"""How long each kind of text a user writes may be: one limit per kind, named once."""

from __future__ import annotations

from enum import Enum, unique


# unique: two kinds with the same number would silently be one member (an alias), and every
# check that goes through the kinds would skip the second.
@unique
class TextLimit(Enum):
    """Characters kept for each kind of text (after trimming spaces at either end)."""

    NOTE = 1000  # a check-in note
    REASON = 500  # one entry in the reasons list
    DRAFT = 4000  # a message written in a pause and not sent
    PLAN_PART = 1500  # one part of a safety plan (a list of names and numbers may be long)
    DATE_LABEL = 80  # the words naming a hard date (/dates)

    @property
    def characters(self) -> int:
        return self.value


# How many hard dates (/dates) one user may keep: enough for a hard year, few enough
# that the list stays one readable message.
MOST_HARD_DATES = 20
