"""/affirm: picking affirmations by group of themes."""

from __future__ import annotations

from enum import StrEnum


class AffirmMsg(StrEnum):
    # /affirm by theme: theme groups, then themes, with plain labels.
    AFFIRM_PICK_GROUP = "affirm.pick_group"
    AFFIRM_PICK_THEME = "affirm.pick_theme"
    AFFIRM_ANY = "affirm.any"
    AFFIRM_ANOTHER = "affirm.another"
    AFFIRM_BY_THEME = "affirm.by_theme"
    AFFIRM_GROUP_FEELINGS = "affirm.group_feelings"
    AFFIRM_GROUP_BOND = "affirm.group_bond"
    AFFIRM_GROUP_DAYS = "affirm.group_days"
    AFFIRM_GROUP_STEPS = "affirm.group_steps"
