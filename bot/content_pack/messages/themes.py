"""A plain label for every affirmation theme (buttons in /affirm); the value is theme.<theme>."""

from __future__ import annotations

from enum import StrEnum


class ThemeMsg(StrEnum):
    # A plain label for every affirmation theme (buttons in /affirm).
    THEME_CLOSURE = "theme.closure"
    THEME_GUILT = "theme.guilt"
    THEME_DISCOMFORT = "theme.discomfort"
    THEME_BOND_FORMING = "theme.bond_forming"
    THEME_TWO_TRUTHS = "theme.two_truths"
    THEME_GRIEF = "theme.grief"
    THEME_WHOLE_PICTURE = "theme.whole_picture"
    THEME_PAUSE = "theme.pause"
    THEME_COST = "theme.cost"
    THEME_PATTERNS = "theme.patterns"
    THEME_BODY = "theme.body"
    THEME_BOUNDARIES = "theme.boundaries"
    THEME_REBUILD = "theme.rebuild"
    THEME_SUPPORT = "theme.support"
    THEME_LAYERS = "theme.layers"
    THEME_STILL_THERE = "theme.still_there"
    THEME_HARD_DATES = "theme.hard_dates"
    THEME_ANGER = "theme.anger"
    THEME_NUMBNESS = "theme.numbness"
    THEME_LONELINESS = "theme.loneliness"
    THEME_SELF_DOUBT = "theme.self_doubt"
    THEME_SHARED_CONTACT = "theme.shared_contact"
    THEME_PROMISES = "theme.promises"
    THEME_CHECKING = "theme.checking"
    THEME_FLASHBACKS = "theme.flashbacks"
    THEME_SLEEP = "theme.sleep"
    THEME_DISBELIEVED = "theme.disbelieved"
    THEME_DATING = "theme.dating"
    THEME_PRACTICAL = "theme.practical"
