"""/reasons: what the user wrote down for themselves, and the drafts they kept, encrypted.

list ──[Add]──▶ add (text) ──▶ list         (30 kept already: said so, stay at list)
  │               └─(too long)──▶ add [keep the first part ──▶ list | write it shorter]
  ├──[Remove]──▶ remove ──[number]──▶ list   (shown only when there is one to remove)
  ├──[Read my kept drafts]──▶ drafts ──[Delete a draft]──▶ dremove ──[number]──▶ drafts
  │                             └──[Back to my list]──▶ list
  └──[Done]──▶ (left)

A kept draft is only worth keeping if it can be read again: here, not as JSON in /mydata.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.content_pack.ids import Msg, PauseMsg, ReasonsMsg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import END, NOT_A_CHOICE, Choice, FlowContext, Next, Outcome
from bot.flows.limits import TextLimit
from bot.flows.names import FlowName
from bot.flows.overlong import first_part, long_text_buttons, offer_choice, write_shorter
from bot.flows.validation import too_long
from bot.storage.flow_positions import FlowPosition
from bot.storage.user_texts import TextKind, add_text, list_texts, remove_text

REASON_LIMIT = TextLimit.REASON.characters
MAX_REASONS = 30


class ReasonsStep(StrEnum):
    LIST = "list"
    ADD = "add"
    REMOVE = "remove"
    DRAFTS = "drafts"
    DREMOVE = "dremove"


@dataclass(frozen=True, slots=True)
class _TextsView:
    """How one kind of the user's own texts is listed: reasons, or kept drafts."""

    kind: TextKind
    step: ReasonsStep
    heading: Msg
    empty: Msg
    separator: str  # reasons are short lines; drafts are whole messages, a blank line apart


_REASONS_VIEW = _TextsView(
    TextKind.REASON, ReasonsStep.LIST, ReasonsMsg.REASONS_LIST, ReasonsMsg.REASONS_EMPTY, "\n"
)
_DRAFTS_VIEW = _TextsView(
    TextKind.DRAFT, ReasonsStep.DRAFTS, ReasonsMsg.DRAFTS_LIST, ReasonsMsg.DRAFTS_EMPTY, "\n\n"
)


class Reasons(Flow):
    name = FlowName.REASONS

    def __init__(self) -> None:
        self.steps = self.table({
            ReasonsStep.LIST: Step(
                buttons=((Choice("add", ReasonsMsg.REASONS_ADD, goes_to=self._start_adding),
                          Choice("remove", ReasonsMsg.REASONS_REMOVE, goes_to=self._pick_reason)),
                         (Choice("drafts", ReasonsMsg.REASONS_DRAFTS, goes_to=self._drafts),),
                         (Choice("done", ReasonsMsg.REASONS_DONE, goes_to=self._done),)),
            ),
            ReasonsStep.ADD: Step(
                asks=ReasonsMsg.REASONS_ASK,
                also=long_text_buttons(self._add_first_part, self._add_shorter),
                on_typed=self._add,
            ),
            # The numbers to tap stand for saved texts: other_choice reads them.
            ReasonsStep.REMOVE: Step(
                asks=ReasonsMsg.REASONS_PICK_REMOVE, other_choice=self._remove
            ),
            ReasonsStep.DRAFTS: Step(
                buttons=((Choice("remove", ReasonsMsg.DRAFTS_REMOVE, goes_to=self._pick_draft),),
                         (Choice("back", ReasonsMsg.DRAFTS_BACK, goes_to=self._back_to_list),)),
            ),
            ReasonsStep.DREMOVE: Step(
                asks=ReasonsMsg.DRAFTS_PICK_REMOVE, other_choice=self._remove_draft
            ),
        })  # fmt: skip

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        return await self.go(ctx, await self._list(ctx))

    async def _list(self, ctx: FlowContext, before: str | None = None) -> Next:
        return await self._shown(ctx, _REASONS_VIEW, before)

    async def _shown(self, ctx: FlowContext, view: _TextsView, before: str | None) -> Next:
        """A numbered list of the user's own texts of one kind, or a line saying there are
        none yet; "remove" is offered only when there is something to remove."""
        user = await ctx.ensure_user()
        texts = await list_texts(ctx.db, ctx.cipher, view.kind, user.id)
        if texts:
            listed = view.separator.join(f"{n}. {t.text}" for n, t in enumerate(texts, start=1))
            body = f"{ctx.text(view.heading)}\n\n{listed}"
        else:
            body = ctx.text(view.empty)
        text = body if before is None else f"{before}\n\n{body}"
        rows = self.buttons_without(view.step, () if texts else {"remove"})
        # protect: the list quotes the user's own words.
        return Next(view.step, question=text, rows=rows, protect=bool(texts))

    async def _back_to_list(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._list(ctx)

    async def _done(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(END, before=[ctx.reply(ReasonsMsg.REASONS_CLOSED)])

    async def _start_adding(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        count = len(await list_texts(ctx.db, ctx.cipher, TextKind.REASON, user.id))
        if count >= MAX_REASONS:
            return [ctx.reply(ReasonsMsg.REASONS_FULL, limit=MAX_REASONS)]
        return Next(ReasonsStep.ADD)

    async def _pick_reason(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        reasons = await list_texts(ctx.db, ctx.cipher, TextKind.REASON, user.id)
        numbers = [Choice(str(r.id), str(n)) for n, r in enumerate(reasons, start=1)]
        return Next(ReasonsStep.REMOVE, rows=_in_fives(numbers))

    async def _add(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        if too_long(TextLimit.REASON, text):
            return [await offer_choice(self, ctx, position, TextLimit.REASON, text)]
        refused = await save_reason(ctx, text)
        if refused is not None:
            return [refused]
        return await self._list(ctx, before=ctx.text(ReasonsMsg.REASONS_ADDED))

    async def _add_shorter(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return write_shorter(ctx, position, TextLimit.REASON)

    async def _add_first_part(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> Outcome:
        reason = await first_part(ctx, position, TextLimit.REASON)
        if reason is None:  # nothing held (an old button)
            return NOT_A_CHOICE
        return await self._add(ctx, position, reason)

    async def _remove(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        if not (value.isascii() and value.isdigit()):
            return NOT_A_CHOICE
        async with ctx.db.transaction() as tx:
            removed = await remove_text(tx, TextKind.REASON, user.id, int(value))
        if not removed:
            return NOT_A_CHOICE
        return await self._list(ctx, before=ctx.text(ReasonsMsg.REASONS_REMOVED))

    async def _drafts(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._drafts_list(ctx)

    async def _drafts_list(self, ctx: FlowContext, before: str | None = None) -> Next:
        return await self._shown(ctx, _DRAFTS_VIEW, before)

    async def _pick_draft(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        drafts = await list_texts(ctx.db, ctx.cipher, TextKind.DRAFT, user.id)
        numbers = [Choice(str(d.id), str(n)) for n, d in enumerate(drafts, start=1)]
        return Next(ReasonsStep.DREMOVE, rows=_in_fives(numbers))

    async def _remove_draft(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        if not (value.isascii() and value.isdigit()):
            return NOT_A_CHOICE
        async with ctx.db.transaction() as tx:
            removed = await remove_text(tx, TextKind.DRAFT, user.id, int(value))
        if not removed:
            return NOT_A_CHOICE
        return await self._drafts_list(ctx, before=ctx.text(ReasonsMsg.DRAFTS_REMOVED))


def _in_fives(numbers: list[Choice]) -> list[list[Choice]]:
    return [numbers[i : i + 5] for i in range(0, len(numbers), 5)]


async def save_reason(ctx: FlowContext, text: str) -> Reply | None:
    """Store one reason, encrypted; the reply explaining a refusal, or None when saved."""
    reason = text.strip()
    if not reason:
        return ctx.reply(ReasonsMsg.REASONS_ASK)
    if len(reason) > REASON_LIMIT:  # callers offer to keep the first part before this
        return ctx.reply(PauseMsg.REASON_TOO_LONG, limit=REASON_LIMIT)
    user = await ctx.ensure_user()
    async with ctx.db.transaction() as tx:
        await add_text(tx, ctx.cipher, TextKind.REASON, user.id, reason, ctx.now())
    return None
