"""A text over its limit is never thrown away: keep the first part, or write it shorter.

The text step itself asks, with two buttons, and keeps the long text sealed
(encrypted, like any text a user writes) in its position until the user
chooses. Whatever they choose, or if they type a new text instead, the next
move of the position drops it.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import replace

from bot.content_pack.ids import CheckinMsg, DatesMsg, GeneralMsg, Msg, PauseMsg, PlanMsg
from bot.core.replies import Reply
from bot.flows.base import Flow, Rows
from bot.flows.context import Choice, FlowContext, Next, StepHandler
from bot.flows.limits import TextLimit
from bot.flows.typed_labels import SHOWN_KEY
from bot.storage.flow_positions import FlowData, FlowPosition

KEEP_FIRST, WRITE_SHORTER = "first", "shorter"
_LONG_KEY = "long"  # also in key_rotation.SEALED_FLOW_FIELDS: a key rotation reseals it
_CHOICES = (
    (
        Choice(KEEP_FIRST, GeneralMsg.LONG_KEEP_FIRST),
        Choice(WRITE_SHORTER, GeneralMsg.LONG_WRITE_SHORTER),
    ),
)
_TOO_LONG: dict[TextLimit, Msg] = {
    TextLimit.NOTE: CheckinMsg.NOTE_TOO_LONG,
    TextLimit.REASON: PauseMsg.REASON_TOO_LONG,
    TextLimit.DRAFT: PauseMsg.DRAFT_TOO_LONG,
    TextLimit.PLAN_PART: PlanMsg.PLAN_TOO_LONG,
    TextLimit.DATE_LABEL: DatesMsg.DATES_LABEL_TOO_LONG,
}
# A cut within this many characters of the limit ends at a space rather than mid-word.
_WORD_SLACK = 40


async def offer_choice(
    flow: Flow,
    ctx: FlowContext,
    position: FlowPosition,
    limit: TextLimit,
    text: str,
) -> Reply:
    """Stay at this step, holding the long text sealed, and ask what to do with it."""
    asked = ctx.text(_TOO_LONG[limit], limit=limit.characters)
    return await hold_text(flow, ctx, position, text, asked, _CHOICES)


async def hold_text(
    flow: Flow,
    ctx: FlowContext,
    position: FlowPosition,
    text: str,
    question: str,
    rows: Sequence[Sequence[Choice]],
) -> Reply:
    """Stay at this step with `text` held sealed in its position, asking `question` with
    these buttons (a text over its limit; a plan answer that got the crisis reply)."""
    user = await ctx.ensure_user()
    sealed = base64.b64encode(ctx.cipher.encrypt(text.strip(), user.id)).decode("ascii")
    data: FlowData = {**_without_long(position.data), _LONG_KEY: sealed}
    buttons = await flow.show(ctx, position.step, rows, data)
    return Reply(question, buttons=buttons)


async def held_text(ctx: FlowContext, position: FlowPosition) -> str | None:
    """The text held at this position, whole, or None if nothing is held (an old button)."""
    sealed = position.data.get(_LONG_KEY)
    if not isinstance(sealed, str):
        return None
    user = await ctx.ensure_user()
    return ctx.cipher.decrypt(base64.b64decode(sealed), user.id)


async def first_part(ctx: FlowContext, position: FlowPosition, limit: TextLimit) -> str | None:
    """The held text cut to fit, or None if nothing is held (an old button)."""
    text = await held_text(ctx, position)
    return None if text is None else cut(text, limit.characters)


def write_shorter(ctx: FlowContext, position: FlowPosition, limit: TextLimit) -> Next:
    """Back to the same step, the long text dropped, ready for a shorter one."""
    kept = {key: value for key, value in _without_long(position.data).items() if key != SHOWN_KEY}
    asked = ctx.text(GeneralMsg.LONG_REWRITE, limit=limit.characters)
    return Next(position.step, kept, question=asked, rows=())


def long_text_buttons(keep_first: StepHandler, shorter: StepHandler) -> Rows:
    """The two buttons `offer_choice` shows, for the table of a step that takes text."""
    keep, rewrite = _CHOICES[0]
    return ((replace(keep, goes_to=keep_first), replace(rewrite, goes_to=shorter)),)


def cut(text: str, characters: int) -> str:
    """The first `characters` of `text`, ending at a space when one is near the end."""
    if len(text) <= characters:
        return text
    head = text[:characters]
    space = head.rfind(" ", characters - _WORD_SLACK)
    return (head[:space] if space > 0 and not text[characters].isspace() else head).rstrip()


def _without_long(data: FlowData) -> FlowData:
    return {key: value for key, value in data.items() if key != _LONG_KEY}
