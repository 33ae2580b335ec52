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
from bot.flows.context import Choice, FlowContext, LabelledRows, labelled, markup
from bot.flows.parsing.folding import fold
from bot.storage.flow_positions import FlowData, FlowPosition

SHOWN_KEY = "shown"

# Short answers that mean the button starting with "Yes" or with "No"/"Not".
_YES = frozenset({"yes", "y", "yeah", "yep", "yup"})
_NO = frozenset({"no", "n", "nope", "nah", "no thanks", "not now"})
# "4 · okay" may be typed as "4" or as "okay".
_LABEL_PARTS = re.compile(r"\s+[·|]\s+")


@dataclass(frozen=True, slots=True)
class Shown:
    """Buttons about to be shown at `step`, labels looked up once."""

    step: str
    rows: LabelledRows

    def data(self, extra: FlowData | None = None) -> FlowData:
        """The step's data with these labels added (replacing any an older step left)."""
        pairs = [[label, value] for row in self.rows for label, value in row]
        shown = json.dumps({"step": self.step, "buttons": pairs}, separators=(",", ":"))
        return {**(extra or {}), SHOWN_KEY: shown}

    def markup(self, position: FlowPosition) -> tuple[tuple[Button, ...], ...]:
        return markup(self.rows, position)


def showing(ctx: FlowContext, step: str, rows: Sequence[Sequence[Choice]]) -> Shown:
    return Shown(step, labelled(ctx, rows))


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
    words = fold(label).split()
    if not words:
        return False
    if typed in _YES:
        return words[0] == "yes"
    if typed in _NO:
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
