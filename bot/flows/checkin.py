"""A check-in: mood, then the pull to reach out, then an optional encrypted note.

begin ──▶ mood ──[1..5]──▶ urge ──[none|some|strong]──▶ note ──(text)──▶ saved
                                                          └──[Skip]──▶ saved
"""

from __future__ import annotations

from bot.content_pack.ids import Msg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import Choice, FlowContext, choices_markup
from bot.storage import checkins, flow_positions
from bot.storage.flow_positions import FlowPosition

NOTE_LIMIT = 1000

_MOODS = ((Choice("1", Msg.MOOD_1), Choice("2", Msg.MOOD_2), Choice("3", Msg.MOOD_3)),
          (Choice("4", Msg.MOOD_4), Choice("5", Msg.MOOD_5)))  # fmt: skip
_URGES = ((Choice("none", Msg.URGE_NONE), Choice("some", Msg.URGE_SOME),
           Choice("strong", Msg.URGE_STRONG)),)  # fmt: skip
_SKIP = ((Choice("skip", Msg.SKIP_NOTE),),)

MOOD_VALUES = frozenset(choice.value for row in _MOODS for choice in row)
URGE_VALUES = frozenset(choice.value for row in _URGES for choice in row)


class CheckIn(Flow):
    name = "ci"

    def __init__(self) -> None:
        self.steps = {
            "mood": Step(on_choice=self._mood, text_as_choice=True),
            "urge": Step(on_choice=self._urge, text_as_choice=True),
            "note": Step(on_choice=self._skip_note, on_text=self._note),
        }

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        return [await self.ask_mood(ctx, ctx.text(Msg.CHECKIN_OPENING))]

    async def ask_mood(self, ctx: FlowContext, opening: str) -> Reply:
        """A check-in's first message. `opening` is its first line: neutral on a lock screen."""
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            position = await flow_positions.move_to(tx, user.id, self.name, "mood", ctx.now())
        return Reply(
            text=f"{opening}\n\n{ctx.text(Msg.ASK_MOOD)}",
            buttons=choices_markup(ctx, position, _MOODS),
        )

    async def _mood(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value not in MOOD_VALUES:
            return [ctx.reply(Msg.USE_BUTTONS)]
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            moved = await flow_positions.move_to(
                tx, user.id, self.name, "urge", ctx.now(), {"mood": int(value)}
            )
        return [Reply(ctx.text(Msg.ASK_URGE), buttons=choices_markup(ctx, moved, _URGES))]

    async def _urge(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value not in URGE_VALUES:
            return [ctx.reply(Msg.USE_BUTTONS)]
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            moved = await flow_positions.move_to(
                tx, user.id, self.name, "note", ctx.now(), {**position.data, "urge": value}
            )
        return [Reply(ctx.text(Msg.ASK_NOTE), buttons=choices_markup(ctx, moved, _SKIP))]

    async def _skip_note(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value != "skip":
            return [ctx.reply(Msg.USE_BUTTONS)]
        await self._save(ctx, position, note=None)
        return [ctx.reply(Msg.CHECKIN_SAVED)]

    async def _note(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        note = text.strip()
        if len(note) > NOTE_LIMIT:
            return [ctx.reply(Msg.NOTE_TOO_LONG, limit=NOTE_LIMIT)]
        if not note:
            return [ctx.reply(Msg.USE_BUTTONS)]
        await self._save(ctx, position, note=note)
        return [ctx.reply(Msg.CHECKIN_SAVED_WITH_NOTE)]

    async def _save(self, ctx: FlowContext, position: FlowPosition, note: str | None) -> None:
        user = await ctx.ensure_user()
        mood, urge = position.data.get("mood"), position.data.get("urge")
        if not isinstance(mood, int) or not isinstance(urge, str):
            raise ValueError("check-in position lost its answers")
        sealed = None if note is None else ctx.cipher.encrypt(note, user.id)
        async with ctx.db.transaction() as tx:
            await checkins.add_checkin(tx, user.id, ctx.now(), mood, urge, sealed)
            await flow_positions.leave_flow(tx, user.id)
