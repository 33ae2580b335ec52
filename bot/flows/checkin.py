"""A check-in: mood, then the pull to reach out, then an optional encrypted note.

    begin / due ──▶ mood ──[1..5]──▶ urge ──[none|some|strong]──▶ note ──(text)──▶ saved
                     │                                              └──[Skip]──▶ saved
                     ├──[In 1 hour | In 3 hours]──▶ snoozed   [Tomorrow]──▶ none today
                     └──[an urge right now]──▶ the pause flow
    urge ──[I live with them, or went back]──▶ urge again, and the reply is one for them
    note ──(too long)──▶ note [Keep the first part]──▶ saved   [Write it shorter]──▶ note
    saved, with a strong pull ──▶ the pause flow's offer

A scheduled check-in opens with a neutral line: it may show on a lock screen.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from enum import StrEnum

from bot.content_pack.ids import CheckinMsg, GeneralMsg
from bot.content_pack.rotation import pick_fresh
from bot.content_pack.schema import CheckInReply, Opening, ReplyCategory
from bot.core.events import CheckInDue
from bot.core.replies import Reply
from bot.delivery.outgoing import Outgoing
from bot.flows.base import Flow, Step, leading
from bot.flows.context import (
    NOT_A_CHOICE,
    Choice,
    FlowContext,
    Keyboard,
    Next,
    Outcome,
    Services,
)
from bot.flows.limits import TextLimit
from bot.flows.names import FlowName
from bot.flows.overlong import first_part, long_text_buttons, offer_choice, write_shorter
from bot.flows.pause import Pause
from bot.flows.typed_labels import Shown, showing
from bot.flows.validation import too_long
from bot.scheduling.checkin_due import while_known
from bot.scheduling.planner import (
    out_of_quiet_hours,
    reschedule_user,
    start_of_next_local_day,
    user_zone,
)
from bot.storage import checkin_slots, checkins, content_seen, flow_positions, users
from bot.storage.content_seen import NO_REPEAT_WINDOW, SeenKind
from bot.storage.db import Transaction
from bot.storage.flow_positions import FlowData, FlowPosition, Placement, new_tokens

NOTE_LIMIT = TextLimit.NOTE.characters

_MOODS = ((Choice("1", CheckinMsg.MOOD_1), Choice("2", CheckinMsg.MOOD_2),
           Choice("3", CheckinMsg.MOOD_3)),
          (Choice("4", CheckinMsg.MOOD_4), Choice("5", CheckinMsg.MOOD_5)))  # fmt: skip
_URGE_NOW = ((Choice("urge", CheckinMsg.CHECKIN_URGE_NOW),),)
# Asked on the second screen, not the first: a scheduled check-in shows its first screen
# to anyone who glances at the phone, and this label says more than an app would.
_STILL_THERE = ((Choice("with", CheckinMsg.CHECKIN_STILL_THERE),),)
_SNOOZES = ((Choice("later-1h", CheckinMsg.SNOOZE_1H), Choice("later-3h", CheckinMsg.SNOOZE_3H),
             Choice("later-tomorrow", CheckinMsg.SNOOZE_TOMORROW)),)  # fmt: skip
_URGES = ((Choice("none", CheckinMsg.URGE_NONE), Choice("some", CheckinMsg.URGE_SOME),
           Choice("strong", CheckinMsg.URGE_STRONG)),)  # fmt: skip
_SKIP = ((Choice("skip", CheckinMsg.SKIP_NOTE),),)

SNOOZE_DELAYS = {"later-1h": timedelta(hours=1), "later-3h": timedelta(hours=3)}


def opening_period(local: datetime) -> str | None:
    """The part of the user's own day; None at night (midnight to five), when only an
    opening that fits any hour is used: nothing says "tonight" or "good morning" at 04:00."""
    if 5 <= local.hour < 12:
        return "morning"
    if 12 <= local.hour < 17:
        return "afternoon"
    if local.hour >= 17:
        return "evening"
    return None


def pick_opening(
    openings: Sequence[Opening],
    local: datetime,
    discreet: bool,
    seen_at: Mapping[str, datetime],
    rng: random.Random,
) -> Opening:
    """A first line for the user's local time of day, not one shown lately.

    Discreet mode (the default) takes neutral openings only: they read like an app on
    a lock screen. With it off, warm ones may be chosen too.
    """
    return OpeningChooser(openings).pick(local, discreet, seen_at, rng)


class OpeningChooser:
    """`pick_opening` for many users at once: which openings fit a time of day and a
    register is worked out once per (period, discreet), not once per user (a tick may
    open ten thousand check-ins)."""

    def __init__(self, openings: Sequence[Opening]) -> None:
        self._openings = openings
        self._fitting: dict[tuple[str | None, bool], Sequence[Opening]] = {}

    def pick(
        self,
        local: datetime,
        discreet: bool,
        seen_at: Mapping[str, datetime],
        rng: random.Random,
    ) -> Opening:
        period = opening_period(local)
        fitting = self._fitting.get((period, discreet))
        if fitting is None:
            fitting = self._fitting[(period, discreet)] = self._candidates(period, discreet)
        return pick_fresh(fitting, seen_at, rng)

    def _candidates(self, period: str | None, discreet: bool) -> Sequence[Opening]:
        registers = ("neutral",) if discreet else ("neutral", "warm")
        times = ("any",) if period is None else (period, "any")
        openings = self._openings
        fitting = [o for o in openings if o.register in registers and o.time_of_day in times]
        timeless = [o for o in openings if o.register == "neutral" and o.time_of_day == "any"]
        return fitting or timeless or list(openings)


def reply_category(mood: int, urge: str, still_there: bool = False) -> ReplyCategory:
    if still_there:
        return "still_there"
    if urge == "strong":
        return "strong_urge"
    if mood <= 2:
        return "hard_day"
    return "middle_day" if mood == 3 else "good_day"


def pick_reply(
    replies: Sequence[CheckInReply],
    category: ReplyCategory,
    local: datetime,
    seen_at: Mapping[str, datetime],
    rng: random.Random,
) -> CheckInReply:
    """A reply for how the day went, fitting the user's local time, not one shown lately.
    A category the pack does not fill yet borrows from a middle day, which fits any day."""
    period = opening_period(local)
    times = ("any",) if period is None else (period, "any")
    timely = [r for r in replies if r.time_of_day in times]
    fitting = [r for r in timely if r.category == category]
    fitting = fitting or [r for r in timely if r.category == "middle_day"] or timely
    return pick_fresh(fitting or list(replies), seen_at, rng)


class CheckInStep(StrEnum):
    MOOD = "mood"
    URGE = "urge"
    NOTE = "note"


class CheckIn(Flow):
    name = FlowName.CHECKIN

    def __init__(self, rng: random.Random, pause: Pause) -> None:
        self._rng = rng
        self._pause = pause
        self.steps = self.table({
            CheckInStep.MOOD: Step(
                asks=CheckinMsg.ASK_MOOD,
                buttons=(*leading(_MOODS, self._mood), *leading(_URGE_NOW, self._urge_now)),
                also=leading(_SNOOZES, self._snooze),  # shown by a scheduled check-in only
                text_as_choice=True,
            ),
            CheckInStep.URGE: Step(
                asks=CheckinMsg.ASK_URGE,
                buttons=(*leading(_URGES, self._urge), *leading(_STILL_THERE, self._still_there)),
                text_as_choice=True,
            ),
            CheckInStep.NOTE: Step(
                asks=CheckinMsg.ASK_NOTE,
                buttons=leading(_SKIP, self._skip_note),
                also=long_text_buttons(self._keep_first, self._write_shorter),
                on_typed=self._note,
            ),
        })  # fmt: skip

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        opening = ctx.text(CheckinMsg.CHECKIN_OPENING)
        asked = f"{opening}\n\n{ctx.text(CheckinMsg.ASK_MOOD)}"
        return await self.go(ctx, Next(CheckInStep.MOOD, question=asked))

    async def reprompt(self, ctx: FlowContext, position: FlowPosition) -> Reply | None:
        """A scheduled check-in's question is not kept when it is sent: built again here."""
        if position.step != CheckInStep.MOOD:
            return None
        opening = ctx.text(CheckinMsg.CHECKIN_OPENING)
        shown = showing(ctx, CheckInStep.MOOD, (*_MOODS, *_URGE_NOW))
        return Reply(
            text=f"{opening}\n\n{ctx.text(CheckinMsg.ASK_MOOD)}", buttons=shown.markup(position)
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
        by_locale: dict[str, tuple[str, FlowData, Keyboard]] = {}
        closed: dict[str, str] = {}
        rows = (*_MOODS, *_URGE_NOW, *_SNOOZES)
        now = services.clock.now()
        seen = await content_seen.seen_by_users(
            tx, [event.user_row_id for event in due], SeenKind.OPENING, now - NO_REPEAT_WINDOW
        )
        opened: list[tuple[int, SeenKind, str]] = []
        choosers: dict[str, OpeningChooser] = {}
        tokens = new_tokens(len(due))
        step, seen_kind = CheckInStep.MOOD.value, SeenKind.OPENING  # read once, not per user
        for event in due:
            if event.locale not in by_locale:
                ctx = FlowContext(services, event.address, event.locale)
                shown = showing(ctx, CheckInStep.MOOD, rows)
                by_locale[event.locale] = (
                    ctx.text(CheckinMsg.ASK_MOOD),
                    shown.data(),  # one dict for all of them: written out once (move_many)
                    shown.keyboard(self.name, CheckInStep.MOOD),
                )
                closed[event.locale] = ctx.text(GeneralMsg.QUESTION_CLOSED_BY_CHECKIN)
                choosers[event.locale] = OpeningChooser(services.content.openings(event.locale))
            question, data, buttons = by_locale[event.locale]
            opening = choosers[event.locale].pick(
                event.local_time, event.discreet, seen[event.user_row_id], self._rng
            )
            opened.append((event.user_row_id, seen_kind, opening.id))
            position = FlowPosition(self.name, step, tokens.pop(), data)
            placements.append(Placement(event.user_row_id, position))
            text = f"{opening.text}\n\n{question}"
            if event.closes_question:  # said after the neutral opening a lock screen shows
                text = f"{opening.text}\n\n{closed[event.locale]}\n\n{question}"
            reply = Reply(text=text, buttons=buttons.with_token(position.token))
            outgoing.append(Outgoing(event.address, reply, guard=while_known(event.user_row_id)))
        await flow_positions.move_many(tx, placements, services.clock.now())
        await content_seen.mark_seen(tx, opened, now)
        return outgoing

    async def _mood(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        rows = _URGES if position.data.get("with") else None  # asked once is enough
        data: FlowData = {"mood": int(value), **_still_there(position)}
        return Next(CheckInStep.URGE, data, rows=rows)

    async def _urge_now(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._pause.begin(ctx)

    async def _snooze(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
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
            return [ctx.reply(CheckinMsg.SNOOZED_TOMORROW)]
        local = due_at.astimezone(user_zone(user))
        return [ctx.reply(CheckinMsg.SNOOZED, time=f"{local:%H:%M}")]

    async def _still_there(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """They live with them, or went back: the same check-in, no forecast."""
        data: FlowData = {"mood": position.data.get("mood"), "with": True}
        asked = f"{ctx.text(CheckinMsg.STILL_THERE_INTRO)}\n\n{ctx.text(CheckinMsg.ASK_URGE)}"
        return Next(CheckInStep.URGE, data, question=asked, rows=_URGES)

    async def _urge(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        data = {"mood": position.data.get("mood"), "urge": value, **_still_there(position)}
        return Next(CheckInStep.NOTE, data)

    async def _skip_note(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._save(ctx, position, note=None)

    async def _write_shorter(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return write_shorter(ctx, position, TextLimit.NOTE)

    async def _keep_first(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        note = await first_part(ctx, position, TextLimit.NOTE)
        if note is None:  # nothing held (an old button)
            return NOT_A_CHOICE
        return await self._save(ctx, position, note=note)

    async def _note(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        note = text.strip()
        if too_long(TextLimit.NOTE, note):
            return [await offer_choice(self, ctx, position, TextLimit.NOTE, note)]
        if not note:
            return NOT_A_CHOICE
        return await self._save(ctx, position, note=note)

    async def _save(
        self, ctx: FlowContext, position: FlowPosition, note: str | None
    ) -> list[Reply]:
        user = await ctx.ensure_user()
        mood, urge = position.data.get("mood"), position.data.get("urge")
        if not isinstance(mood, int) or not isinstance(urge, str):
            raise ValueError("check-in position lost its answers")
        sealed = None if note is None else ctx.cipher.encrypt(note, user.id)
        seen = await content_seen.seen_since(
            ctx.db, user.id, SeenKind.REPLY, ctx.now() - NO_REPEAT_WINDOW
        )
        category = reply_category(mood, urge, still_there=position.data.get("with") is True)
        local = ctx.now().astimezone(user_zone(user))
        reply = pick_reply(
            ctx.services.content.checkin_replies(ctx.locale), category, local, seen, self._rng
        )
        now = ctx.now()

        async def save(tx: Transaction) -> None:
            await checkins.add_checkin(tx, user.id, now, mood, urge, sealed)
            await flow_positions.leave_flow(tx, user.id)
            await checkin_slots.cancel_snooze(tx, user.id)  # answered: no need to ask again
            await users.set_last_reply(tx, user.id, reply.id)
            await content_seen.mark_seen(tx, [(user.id, SeenKind.REPLY, reply.id)], now)

        await ctx.db.in_one_hop(save)  # one trip to the database thread for all five
        saved = ctx.text(
            CheckinMsg.CHECKIN_SAVED if note is None else CheckinMsg.CHECKIN_SAVED_WITH_NOTE
        )
        replies = [Reply(f"{saved}\n\n{reply.text}")]
        if urge == "strong":  # a strong pull: offer a pause, start nothing without a yes
            replies += await self._pause.offer(ctx)
        return replies


def scheduled_question(ctx: FlowContext) -> tuple[str, Shown]:
    """A scheduled check-in's question and buttons (snoozes too), for another kind of
    scheduled check-in (a hard date's) that opens this same check-in with words of its own."""
    return ctx.text(CheckinMsg.ASK_MOOD), showing(
        ctx, CheckInStep.MOOD, (*_MOODS, *_URGE_NOW, *_SNOOZES)
    )


def _still_there(position: FlowPosition) -> dict[str, bool]:
    """Carried from step to step: they live with the person, or went back."""
    return {"with": True} if position.data.get("with") else {}
