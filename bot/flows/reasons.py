"""/reasons: what the user wrote down for themselves, and the drafts they kept, encrypted.

list ──[Add]──▶ add (text) ──▶ list
  ├──[Remove]──▶ remove ──[number]──▶ list
  ├──[Read my kept drafts]──▶ drafts ──[Delete a draft]──▶ dremove ──[number]──▶ drafts
  │                             └──[Back to my list]──▶ list
  └──[Done]──▶ (left)

A kept draft is only worth keeping if it can be read again: here, not as JSON in /mydata.
"""

from __future__ import annotations

from bot.content_pack.ids import Msg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import Choice, FlowContext
from bot.flows.limits import TextLimit
from bot.flows.names import FlowName
from bot.flows.overlong import KEEP_FIRST, WRITE_SHORTER, first_part, offer_choice, write_shorter
from bot.flows.validation import too_long
from bot.storage import flow_positions
from bot.storage.flow_positions import FlowPosition
from bot.storage.user_texts import TextKind, add_text, list_texts, remove_text

REASON_LIMIT = TextLimit.REASON.characters
MAX_REASONS = 30


class Reasons(Flow):
    name = FlowName.REASONS

    def __init__(self) -> None:
        self.steps = {
            "list": Step(on_choice=self._list_choice),
            "add": Step(on_text=self._add, on_choice=self._add_choice),
            "remove": Step(on_choice=self._remove),
            "drafts": Step(on_choice=self._drafts_choice),
            "dremove": Step(on_choice=self._remove_draft),
        }

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        return [await self._show_list(ctx)]

    async def _show_list(self, ctx: FlowContext, before: str | None = None) -> Reply:
        user = await ctx.ensure_user()
        reasons = await list_texts(ctx.db, ctx.cipher, TextKind.REASON, user.id)
        rows: list[list[Choice]] = [[Choice("add", Msg.REASONS_ADD)]]
        if reasons:
            rows[0].append(Choice("remove", Msg.REASONS_REMOVE))
        rows.append([Choice("drafts", Msg.REASONS_DRAFTS)])
        rows.append([Choice("done", Msg.REASONS_DONE)])
        if reasons:
            listed = "\n".join(f"{number}. {r.text}" for number, r in enumerate(reasons, start=1))
            body = f"{ctx.text(Msg.REASONS_LIST)}\n\n{listed}"
        else:
            body = ctx.text(Msg.REASONS_EMPTY)
        text = body if before is None else f"{before}\n\n{body}"
        # protect: the list quotes the user's own words.
        return Reply(text, buttons=await self.show(ctx, "list", rows), protect=bool(reasons))

    async def _list_choice(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        user = await ctx.ensure_user()
        if value == "done":
            async with ctx.db.transaction() as tx:
                await flow_positions.leave_flow(tx, user.id)
            return [ctx.reply(Msg.REASONS_CLOSED)]
        if value == "drafts":
            return [await self._show_drafts(ctx)]
        if value == "add":
            count = len(await list_texts(ctx.db, ctx.cipher, TextKind.REASON, user.id))
            if count >= MAX_REASONS:
                return [ctx.reply(Msg.REASONS_FULL, limit=MAX_REASONS)]
            async with ctx.db.transaction() as tx:
                await flow_positions.move_to(tx, user.id, self.name, "add", ctx.now())
            return [ctx.reply(Msg.REASONS_ASK)]
        if value == "remove":
            reasons = await list_texts(ctx.db, ctx.cipher, TextKind.REASON, user.id)
            numbers = [Choice(str(r.id), str(n)) for n, r in enumerate(reasons, start=1)]
            rows = [numbers[i : i + 5] for i in range(0, len(numbers), 5)]
            return [await self.ask(ctx, "remove", Msg.REASONS_PICK_REMOVE, rows)]
        return [ctx.reply(Msg.USE_BUTTONS)]

    async def _add(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        if too_long(TextLimit.REASON, text):
            return [await offer_choice(self, ctx, position, TextLimit.REASON, text)]
        refused = await save_reason(ctx, text)
        if refused is not None:
            return [refused]
        return [await self._show_list(ctx, before=ctx.text(Msg.REASONS_ADDED))]

    async def _add_choice(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        if value == WRITE_SHORTER:
            return await self.go(ctx, write_shorter(ctx, position, TextLimit.REASON))
        if value == KEEP_FIRST:
            reason = await first_part(ctx, position, TextLimit.REASON)
            if reason is not None:
                return await self._add(ctx, position, reason)
        return await self._list_choice(ctx, position, value)

    async def _remove(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        user = await ctx.ensure_user()
        if not (value.isascii() and value.isdigit()):
            return [ctx.reply(Msg.USE_BUTTONS)]
        async with ctx.db.transaction() as tx:
            removed = await remove_text(tx, TextKind.REASON, user.id, int(value))
        if not removed:
            return [ctx.reply(Msg.USE_BUTTONS)]
        return [await self._show_list(ctx, before=ctx.text(Msg.REASONS_REMOVED))]

    async def _show_drafts(self, ctx: FlowContext, before: str | None = None) -> Reply:
        user = await ctx.ensure_user()
        drafts = await list_texts(ctx.db, ctx.cipher, TextKind.DRAFT, user.id)
        rows: list[list[Choice]] = []
        if drafts:
            rows.append([Choice("remove", Msg.DRAFTS_REMOVE)])
        rows.append([Choice("back", Msg.DRAFTS_BACK)])
        if drafts:
            listed = "\n\n".join(f"{n}. {d.text}" for n, d in enumerate(drafts, start=1))
            body = f"{ctx.text(Msg.DRAFTS_LIST)}\n\n{listed}"
        else:
            body = ctx.text(Msg.DRAFTS_EMPTY)
        text = body if before is None else f"{before}\n\n{body}"
        # protect: the drafts are the user's own words.
        buttons = await self.show(ctx, "drafts", rows)
        return Reply(text, buttons=buttons, protect=bool(drafts))

    async def _drafts_choice(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        if value == "back":
            return [await self._show_list(ctx)]
        if value == "remove":
            user = await ctx.ensure_user()
            drafts = await list_texts(ctx.db, ctx.cipher, TextKind.DRAFT, user.id)
            numbers = [Choice(str(d.id), str(n)) for n, d in enumerate(drafts, start=1)]
            rows = [numbers[i : i + 5] for i in range(0, len(numbers), 5)]
            return [await self.ask(ctx, "dremove", Msg.DRAFTS_PICK_REMOVE, rows)]
        return [ctx.reply(Msg.USE_BUTTONS)]

    async def _remove_draft(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        user = await ctx.ensure_user()
        if not (value.isascii() and value.isdigit()):
            return [ctx.reply(Msg.USE_BUTTONS)]
        async with ctx.db.transaction() as tx:
            removed = await remove_text(tx, TextKind.DRAFT, user.id, int(value))
        if not removed:
            return [ctx.reply(Msg.USE_BUTTONS)]
        return [await self._show_drafts(ctx, before=ctx.text(Msg.DRAFTS_REMOVED))]


async def save_reason(ctx: FlowContext, text: str) -> Reply | None:
    """Store one reason, encrypted; the reply explaining a refusal, or None when saved."""
    reason = text.strip()
    if not reason:
        return ctx.reply(Msg.REASONS_ASK)
    if len(reason) > REASON_LIMIT:  # callers offer to keep the first part before this
        return ctx.reply(Msg.REASON_TOO_LONG, limit=REASON_LIMIT)
    user = await ctx.ensure_user()
    async with ctx.db.transaction() as tx:
        await add_text(tx, ctx.cipher, TextKind.REASON, user.id, reason, ctx.now())
    return None
