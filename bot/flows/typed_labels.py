"""Typing a button's label does what tapping it does.

Whenever a step shows buttons, their labels are written into the step's
position (our own words, never the user's), so that "skip", "Skip!" or "yes"
typed at that step presses the button with that label, whatever the flow.
The labels are stored with the step they belong to: a later step that carries
the data along never matches an older step's buttons.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.replies import Button
from bot.flows.context import (
    Choice,
    FlowContext,
    Keyboard,
    LabelledRows,
    keyboard,
    labelled,
    markup,
)
from bot.flows.parsing.folding import fold
from bot.storage.flow_positions import FlowData, FlowPosition

SHOWN_KEY = "shown"

# Short answers ("yes", "yes please", "nope") that mean the button starting with
# "Yes", or the one starting with "No" or "Not".
_YES = frozenset({"yes", "y", "yeah", "yep", "yup"})
_NO = frozenset({"no", "n", "nope", "nah"})
_SHORT_ANSWER_WORDS = 3
# "4 · okay" may be typed as "4" or as "okay".
_LABEL_PARTS = re.compile(r"\s+[·|]\s+")


@dataclass(frozen=True, slots=True)
class Shown:
    """Buttons about to be shown at a step, labels looked up and written down once
    (a due check-in shows the same buttons to thousands of users at a time)."""

    rows: LabelledRows
    encoded: str  # the labels as they go into the position's data

    def data(self, extra: FlowData | None = None) -> FlowData:
        """The step's data with these labels added (replacing any an older step left)."""
        return {**(extra or {}), SHOWN_KEY: self.encoded}

    def markup(self, position: FlowPosition) -> tuple[tuple[Button, ...], ...]:
        return markup(self.rows, position)

    def keyboard(self, flow: str, step: str) -> Keyboard:
        """These buttons for everyone at `step`: only the token is left to fill in."""
        return keyboard(self.rows, flow, step)


def showing(ctx: FlowContext, step: str, rows: Sequence[Sequence[Choice]]) -> Shown:
    labels = labelled(ctx, rows)
    pairs = [[label, value] for row in labels for label, value in row]
    encoded = json.dumps({"step": step, "buttons": pairs}, separators=(",", ":"))
    return Shown(labels, encoded)


def typed_choice(position: FlowPosition, text: str) -> str | None:
    """The value of the button at this step whose label `text` names, if exactly one does."""
    labels = _labels_at(position)
    typed = fold(text)
    if not labels or not typed:
        return None
    for matches in (_whole, _first_word):
        values = {value for label, value in labels if matches(typed, label)}
        if len(values) == 1:
            return values.pop()
        if values:
            return None  # two buttons fit: better to ask than to guess
    return None


def _whole(typed: str, label: str) -> bool:
    parts = {fold(part) for part in _LABEL_PARTS.split(label)}
    return typed == fold(label) or typed in parts


def _first_word(typed: str, label: str) -> bool:
    """ "yes" for "Yes, delete everything", "ground" for "Ground myself"."""
    words, said = fold(label).split(), typed.split()
    if not words:
        return False
    if said[0] in _YES and len(said) <= _SHORT_ANSWER_WORDS:
        return words[0] == "yes"
    if said[0] in _NO and len(said) <= _SHORT_ANSWER_WORDS:
        return words[0] in {"no", "not"}
    return len(typed) >= 3 and not typed.isdigit() and typed == words[0]


def _labels_at(position: FlowPosition) -> list[tuple[str, str]]:
    raw = position.data.get(SHOWN_KEY)
    if not isinstance(raw, str):
        return []
    try:
        shown = json.loads(raw)
    except ValueError:
        return []
    if not isinstance(shown, dict) or shown.get("step") != position.step:
        return []
    buttons = shown.get("buttons")
    if not isinstance(buttons, list):
        return []
    return [
        (pair[0], pair[1])
        for pair in buttons
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
    ]
