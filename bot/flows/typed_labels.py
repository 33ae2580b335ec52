"""Typing a button's label does what tapping it does.

Whenever a step shows buttons, their labels are written into the step's
position (our own words, never the user's), so that "skip", "Skip!" or "yes"
typed at that step presses the button with that label, whatever the flow. A typed yes
or no, in any language the pack reads, presses the button that means it.
The labels are stored with the step they belong to: a later step that carries
the data along never matches an older step's buttons.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.content_pack.ids import AnswersMsg, GeneralMsg
from bot.content_pack.pack import ContentPack
from bot.core.replies import Button, Reply
from bot.flows.context import (
    Choice,
    FlowContext,
    Keyboard,
    LabelledRows,
    button_data,
    choices_markup,
    keyboard,
    labelled,
    markup,
)
from bot.flows.parsing.answers import yes_or_no
from bot.flows.parsing.folding import fold
from bot.storage.flow_positions import FlowData, FlowPosition

SHOWN_KEY = "shown"

# "4 · okay" may be typed as "4" or as "okay".
_LABEL_PARTS = re.compile(r"\s+[·|]\s+")
_APOSTROPHES = re.compile(r"['’`´]")


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
    shown: dict[str, object] = {"step": step, "buttons": pairs}
    if any(len(row) != 1 for row in labels):  # how they sit, to show them again alike
        shown["rows"] = [len(row) for row in labels]
    # The buttons that mean yes or no, so a typed yes or no in any language presses them.
    for choice in (choice for row in rows for choice in row):
        answer = choice.answer
        if answer is not None:
            shown.setdefault(answer, choice.value)
    encoded = json.dumps(shown, separators=(",", ":"), ensure_ascii=False)
    return Shown(labels, encoded)


def typed_choice(position: FlowPosition, text: str, content: ContentPack) -> str | None:
    """The value of the button at this step that `text` names, if exactly one does: its
    label, a part of it, its first words, or a yes or a no where a button means that."""
    shown = _shown_at(position)
    if shown is None:
        return None
    labels, answers = shown
    answer = yes_or_no(content, text)
    if answer is not None:
        # A yes or a no presses the button that means it, and nothing else: "no" is not
        # the first word of "No lo sé" ("not sure"), nor a country's code.
        return answers.get(answer.value) or _one(labels, label_key(text), (_whole,))
    return _one(labels, label_key(text), (_whole, _leading_words))


def refusal(ctx: FlowContext, position: FlowPosition, table: Sequence[Sequence[Choice]]) -> Reply:
    """ "Please choose one of these", with the step's buttons shown again (the same
    buttons: its token has not changed), so a number or a tap works at once."""
    buttons = _buttons_shown(position) or choices_markup(ctx, position, table)
    return Reply(
        ctx.text(AnswersMsg.USE_BUTTONS_BELOW if buttons else GeneralMsg.USE_BUTTONS),
        buttons=buttons,
    )


def _buttons_shown(position: FlowPosition) -> tuple[tuple[Button, ...], ...]:
    raw = position.data.get(SHOWN_KEY)
    shown = _shown_at(position)
    if shown is None or not isinstance(raw, str):
        return ()
    buttons = [Button(label, button_data(position, value)) for label, value in shown[0]]
    sizes = json.loads(raw).get("rows")
    if not isinstance(sizes, list) or sum(n for n in sizes if isinstance(n, int)) != len(buttons):
        return tuple((button,) for button in buttons)
    rows, start = [], 0
    for size in sizes:
        rows.append(tuple(buttons[start : start + size]))
        start += size
    return tuple(rows)


def label_key(text: str) -> str:
    """How a label and what is typed are compared: no case, accents, punctuation, and
    apostrophes closed up ("I'm safe" is "im safe")."""
    return fold(_APOSTROPHES.sub("", text))


def _one(
    labels: list[tuple[str, str]], typed: str, tests: Sequence[Callable[[str, str], bool]]
) -> str | None:
    if not labels or not typed:
        return None
    for matches in tests:
        values = {value for label, value in labels if matches(typed, label)}
        if len(values) == 1:
            return values.pop()
        if values:
            return None  # two buttons fit: better to ask than to guess
    return None


def _whole(typed: str, label: str) -> bool:
    parts = {label_key(part) for part in _LABEL_PARTS.split(label)}
    return typed == label_key(label) or typed in parts


def _leading_words(typed: str, label: str) -> bool:
    """ "ground" for "Ground myself", "show me help" for "Show me help now": the label's
    first word (three letters or more, not a number), or its first two words or more."""
    words, said = label_key(label).split(), typed.split()
    if not words or len(said) > len(words) or words[: len(said)] != said:
        return False
    return len(said) >= 2 or (len(typed) >= 3 and not typed.isdigit())


def _shown_at(position: FlowPosition) -> tuple[list[tuple[str, str]], dict[str, str]] | None:
    raw = position.data.get(SHOWN_KEY)
    if not isinstance(raw, str):
        return None
    try:
        shown = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(shown, dict) or shown.get("step") != position.step:
        return None
    buttons = shown.get("buttons")
    if not isinstance(buttons, list):
        return None
    labels = [
        (pair[0], pair[1])
        for pair in buttons
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
    ]
    answers = {
        answer: value for answer in ("yes", "no") if isinstance(value := shown.get(answer), str)
    }
    return labels, answers
