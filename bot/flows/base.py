"""Flows as explicit state machines: a table of named steps and what each accepts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import ClassVar

from bot.core.replies import Reply
from bot.flows.context import FlowContext
from bot.storage.flow_positions import FlowPosition

StepHandler = Callable[[FlowContext, FlowPosition, str], Awaitable[list[Reply]]]


@dataclass(frozen=True, slots=True)
class Step:
    """One state. `on_choice` gets a button's value, `on_text` typed text.

    With `text_as_choice`, typed text is tried as a button value first, so a
    user who types "3" instead of tapping "3" is understood.
    """

    on_choice: StepHandler | None = None
    on_text: StepHandler | None = None
    text_as_choice: bool = False


class Flow:
    """A conversation with named steps. Subclasses fill `name` and `steps`.

    `name` is short because it travels in button data (64 bytes on Telegram).
    """

    name: ClassVar[str]
    steps: dict[str, Step]

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        raise NotImplementedError
