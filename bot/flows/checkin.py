"""A check-in: mood, then the pull to reach out, then an optional encrypted note.

    begin / due ──▶ mood ──[1..5]──▶ urge ──[none|some|strong]──▶ note ──(text)──▶ saved
                     │                                              └──[Skip]──▶ saved
                     └──[In 1 hour | In 3 hours]──▶ snoozed   [Tomorrow]──▶ none today

A scheduled check-in opens with a neutral line: it may show on a lock screen.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta

from bot.content_pack.ids import Msg
from bot.content_pack.schema import CheckInReply, Opening
from bot.core.events import CheckInDue
from bot.core.replies import Reply
from bot.delivery.outbox import Outgoing
from bot.flows.base import Flow, Step
from bot.flows.context import (
    Choice,
    FlowContext,
    LabelledRows,
    Services,
    choices_markup,
    labelled,
    markup,
)
from bot.flows.pause import Pause
from bot.scheduling.planner import (
    out_of_quiet_hours,
    reschedule_user,
    start_of_next_local_day,
    user_zone,
)
from bot.storage import checkin_slots, checkins, flow_positions, users
from bot.storage.db import Transaction
from bot.storage.flow_positions import FlowPosition, Placement, new_token

NOTE_LIMIT = 1000

_MOODS = ((Choice("1", Msg.MOOD_1), Choice("2", Msg.MOOD_2), Choice("3", Msg.MOOD_3)),
          (Choice("4", Msg.MOOD_4), Choice("5", Msg.MOOD_5)))  # fmt: skip
_URGE_NOW = ((Choice("urge", Msg.CHECKIN_URGE_NOW),),)
_SNOOZES = ((Choice("later-1h", Msg.SNOOZE_1H), Choice("later-3h", Msg.SNOOZE_3H),
             Choice("later-tomorrow", Msg.SNOOZE_TOMORROW)),)  # fmt: skip
_URGES = ((Choice("none", Msg.URGE_NONE), Choice("some", Msg.URGE_SOME),
           Choice("strong", Msg.URGE_STRONG)),)  # fmt: skip
_SKIP = ((Choice("skip", Msg.SKIP_NOTE),),)

MOOD_VALUES = frozenset(choice.value for row in _MOODS for choice in row)
URGE_VALUES = frozenset(choice.value for row in _URGES for choice in row)
SNOOZE_DELAYS = {"later-1h": timedelta(hours=1), "later-3h": timedelta(hours=3)}


def opening_period(local: datetime) -> str:
    if 5 <= local.hour < 12:
        return "morning"
    if 12 <= local.hour < 17:
        return "afternoon"
    return "evening"


def pick_opening(
    openings: Sequence[Opening], local: datetime, last_id: str | None, rng: random.Random
) -> Opening:
    """A fitting neutral first line for this time of day, never the one used last time."""
    period = opening_period(local)
    fitting = [o for o in openings if o.time_of_day in (period, "any") and o.id != last_id]
    return rng.choice(fitting or [o for o in openings if o.id != last_id] or list(openings))


def reply_category(mood: int, urge: str) -> str:
    if urge == "strong":
        return "strong_urge"
    if mood <= 2:
        return "hard_day"
    return "middle_day" if mood == 3 else "good_day"


def pick_reply(
    replies: Sequence[CheckInReply], mood: int, urge: str, last_id: str | None, rng: random.Random
) -> CheckInReply:
    category = reply_category(mood, urge)
    fitting = [r for r in replies if r.category == category and r.id != last_id]
    return rng.choice(fitting)  # the pack guarantees two per category


class CheckIn(Flow):
    name = "ci"

    def __init__(self, rng: random.Random, pause: Pause) -> None:
        self._rng = rng
        self._pause = pause
        self.steps = {
            "mood": Step(on_choice=self._mood, text_as_choice=True),
            "urge": Step(on_choice=self._urge, text_as_choice=True),
            "note": Step(on_choice=self._skip_note, on_text=self._note),
        }

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            position = await flow_positions.move_to(tx, user.id, self.name, "mood", ctx.now())
        return [self._mood_question(ctx, position, ctx.text(Msg.CHECKIN_OPENING), snooze=False)]

    async def reprompt(self, ctx: FlowContext, position: FlowPosition) -> Reply | None:
        """A scheduled check-in's question is not kept when it is sent: built again here."""
        if position.step != "mood":
            return None
        return self._mood_question(ctx, position, ctx.text(Msg.CHECKIN_OPENING), snooze=False)

    def _mood_question(
        self, ctx: FlowContext, position: FlowPosition, opening: str, snooze: bool
    ) -> Reply:
        rows = (*_MOODS, *_URGE_NOW, *_SNOOZES) if snooze else (*_MOODS, *_URGE_NOW)
        return Reply(
            text=f"{opening}\n\n{ctx.text(Msg.ASK_MOOD)}",
            buttons=choices_markup(ctx, position, rows),
        )

    async def start_due(
        self, tx: Transaction, services: Services, due: Sequence[CheckInDue]
    ) -> list[Outgoing]:
        """Open a check-in for every due user at once, inside the claiming transaction.

        Thousands can fall due in the same minute; a transaction each would
        make the last of them minutes late. Writing the positions in the same
        transaction as the claim means no /forget can slip in between. Per
        locale, the question and the button labels are looked up once; per user
        only the opening and the token differ.
        """
        outgoing: list[Outgoing] = []
        placements: list[Placement] = []
        openings: list[tuple[str, int]] = []
        by_locale: dict[str, tuple[str, LabelledRows]] = {}
        closed: dict[str, str] = {}
        rows = (*_MOODS, *_URGE_NOW, *_SNOOZES)
        for event in due:
            if event.locale not in by_locale:
                ctx = FlowContext(services, event.address, event.locale)
                by_locale[event.locale] = (ctx.text(Msg.ASK_MOOD), labelled(ctx, rows))
                closed[event.locale] = ctx.text(Msg.QUESTION_CLOSED_BY_CHECKIN)
            question, labels = by_locale[event.locale]
            opening = pick_opening(
                services.content.openings(event.locale),
                event.local_time,
                event.last_opening_id,
                self._rng,
            )
            position = FlowPosition(self.name, "mood", new_token())
            placements.append(Placement(event.user_row_id, position))
            openings.append((opening.id, event.user_row_id))
            text = f"{opening.text}\n\n{question}"
            if event.closes_question:  # said after the neutral opening a lock screen shows
                text = f"{opening.text}\n\n{closed[event.locale]}\n\n{question}"
            reply = Reply(text=text, buttons=markup(labels, position))
            outgoing.append(Outgoing(event.address, reply, user_row_id=event.user_row_id))
        await flow_positions.move_many(tx, placements, services.clock.now())
        await tx.executemany("UPDATE users SET last_opening_id = ? WHERE id = ?", openings)
        return outgoing

    async def _mood(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value == "urge":
            return await self._pause.begin(ctx)
        if value in SNOOZE_DELAYS or value == "later-tomorrow":
            return await self._snooze(ctx, value)
        if value not in MOOD_VALUES:
            return [ctx.reply(Msg.USE_BUTTONS)]
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            moved = await flow_positions.move_to(
                tx, user.id, self.name, "urge", ctx.now(), {"mood": int(value)}
            )
        return [Reply(ctx.text(Msg.ASK_URGE), buttons=choices_markup(ctx, moved, _URGES))]

    async def _snooze(self, ctx: FlowContext, value: str) -> list[Reply]:
        user = await ctx.ensure_user()
        now = ctx.now()
        delay = SNOOZE_DELAYS.get(value)
        async with ctx.db.transaction() as tx:
            await flow_positions.leave_flow(tx, user.id)
            if delay is None:  # tomorrow: today's remaining check-ins are skipped too
                await checkin_slots.cancel_snooze(tx, user.id)
                await users.set_paused_until(tx, user.id, start_of_next_local_day(user, now))
                await reschedule_user(tx, user.id, now)
            else:
                due_at = out_of_quiet_hours(user, now + delay)
                await checkin_slots.snooze(tx, user.id, due_at)
        if delay is None:
            return [ctx.reply(Msg.SNOOZED_TOMORROW)]
        local = due_at.astimezone(user_zone(user))
        return [ctx.reply(Msg.SNOOZED, time=f"{local:%H:%M}")]

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
        return await self._save(ctx, position, note=None)

    async def _note(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        note = text.strip()
        if len(note) > NOTE_LIMIT:
            return [ctx.reply(Msg.NOTE_TOO_LONG, limit=NOTE_LIMIT)]
        if not note:
            return [ctx.reply(Msg.USE_BUTTONS)]
        return await self._save(ctx, position, note=note)

    async def _save(
        self, ctx: FlowContext, position: FlowPosition, note: str | None
    ) -> list[Reply]:
        user = await ctx.ensure_user()
        mood, urge = position.data.get("mood"), position.data.get("urge")
        if not isinstance(mood, int) or not isinstance(urge, str):
            raise ValueError("check-in position lost its answers")
        sealed = None if note is None else ctx.cipher.encrypt(note, user.id)
        reply = pick_reply(
            ctx.services.content.checkin_replies(ctx.locale),
            mood,
            urge,
            user.last_reply_id,
            self._rng,
        )
        async with ctx.db.transaction() as tx:
            await checkins.add_checkin(tx, user.id, ctx.now(), mood, urge, sealed)
            await flow_positions.leave_flow(tx, user.id)
            await checkin_slots.cancel_snooze(tx, user.id)  # answered: no need to ask again
            await users.set_last_reply(tx, user.id, reply.id)
        saved = ctx.text(Msg.CHECKIN_SAVED if note is None else Msg.CHECKIN_SAVED_WITH_NOTE)
        replies = [Reply(f"{saved}\n\n{reply.text}")]
        if urge == "strong":  # a strong pull: offer a pause, start nothing without a yes
            replies += await self._pause.offer(ctx)
        return replies
