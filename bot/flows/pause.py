"""The pause before acting: space between an urge and what the user does with it.

    offer ──[yes]──▶ menu ◀─────────────────────────────────────────────┐
      └──[not now]──▶ (left)                                            │
    menu shows Breathe, Wait, Write and More; More shows the rest:      │
      ├──[The urge is to look them up]──▶ checking ──[wait|breathe|didn't look|back]
      ├──[back]──▶ menu (the first three again)
      ├──[I live with them, or went back]──▶ need (kind words, no forecast)
    menu ──[Breathe]──▶ bpick ──[rhythm]──▶ after ──[again|back]─────────┤
      ├──[Ground]─────▶ gpick ──[exercise]──▶ gstep ──[next]…──▶ after ──┤
      ├──[My reasons]─▶ remember (list + a question) ──[another|back]────┤
      │                   └─ no reasons yet ──▶ reason (text) ──▶ remember
      ├──[Write it]───▶ write (text) ──▶ keep ──[keep|let go]────────────┤
      ├──[Wait]───────▶ wait ──[10|20|30 min]──▶ (left; follow-up due)   │
      ├──[I reached out]──▶ need ──[ground|breathe|rest]─────────────────┘
      └──[I'm okay]───▶ (left; counted as passed)

    follow-up (scheduled) ──▶ followup ──[passed]──▶ (left)   [still strong]──▶ menu
                                         [reached out]──▶ need   [more time]──▶ wait
    need ──[rest]──▶ (left)   checking ──[didn't look]──▶ (left; counted as passed)
    reason, write ──(too long)──▶ the same step [keep the first part | write it shorter]

Nothing here shames: reaching out gets a kind, practical answer and a question.

The steps and their shared button rows are `bot.flows.pause_steps`; the breathing and
grounding exercises `bot.flows.pause_exercises` (the breathing's words
`bot.flows.pause_breathing`).
"""

from __future__ import annotations

import base64
import random
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta

from bot.content_pack.ids import Msg, PauseMsg
from bot.content_pack.rotation import pick_fresh
from bot.core.replies import Reply
from bot.delivery.outgoing import Outgoing
from bot.flows.base import Flow, Step, leading, routed
from bot.flows.context import END, NOT_A_CHOICE, Choice, FlowContext, Next, Outcome, Services
from bot.flows.limits import TextLimit
from bot.flows.names import FlowName
from bot.flows.overlong import first_part, long_text_buttons, offer_choice, write_shorter
from bot.flows.pause_exercises import PauseExercises
from bot.flows.pause_steps import AFTER, BACK_ROW, PauseStep
from bot.flows.reasons import save_reason
from bot.flows.typed_labels import showing
from bot.flows.validation import too_long
from bot.scheduling.followup_due import followup_outgoing
from bot.scheduling.planner import in_quiet_hours, user_zone
from bot.storage import content_seen, flow_positions, urges
from bot.storage.content_seen import NO_REPEAT_WINDOW, SeenKind
from bot.storage.db import Transaction
from bot.storage.flow_positions import FlowPosition, Placement, new_token
from bot.storage.user_texts import TextKind, add_text, list_texts
from bot.storage.users import User

WAIT_MINUTES = ("10", "20", "30")
_WAIT = (
    (
        Choice("10", PauseMsg.WAIT_10),
        Choice("20", PauseMsg.WAIT_20),
        Choice("30", PauseMsg.WAIT_30),
    ),
)
_FOLLOWUP = (
    (Choice("passed", PauseMsg.FOLLOWUP_PASSED), Choice("strong", PauseMsg.FOLLOWUP_STRONG)),
    (Choice("reached", PauseMsg.FOLLOWUP_REACHED), Choice("more", PauseMsg.FOLLOWUP_MORE_TIME)),
)


class Pause(Flow):
    name = FlowName.PAUSE

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        exercises = PauseExercises(self)  # breathing and grounding, from the pack
        back = leading(BACK_ROW, PauseStep.MENU)
        # Under stress, fewer choices: the three that help most first, the rest behind "More"
        # (shown at the same step).
        more = (
            (Choice("ground", PauseMsg.PAUSE_GROUND, goes_to=exercises.grounding),
             Choice("remember", PauseMsg.PAUSE_REMEMBER, goes_to=self._remember)),
            (Choice("checking", PauseMsg.PAUSE_CHECKING, goes_to=PauseStep.CHECKING),),
            (Choice("still", PauseMsg.PAUSE_STILL_THERE, goes_to=self._still_there),),
            (Choice("reached", PauseMsg.PAUSE_REACHED_OUT, goes_to=self._reached_out),
             Choice("done", PauseMsg.PAUSE_DONE, goes_to=self._done)),
            (Choice("back", PauseMsg.PAUSE_BACK, goes_to=PauseStep.MENU),),
        )  # fmt: skip
        more_menu = Next(PauseStep.MENU, question=PauseMsg.PAUSE_MORE_MENU, rows=more)
        self.steps = self.table({
            PauseStep.OFFER: Step(
                asks=PauseMsg.PAUSE_OFFER,
                buttons=((Choice("yes", PauseMsg.PAUSE_OFFER_YES, goes_to=self.take_offer),
                          Choice("no", PauseMsg.PAUSE_OFFER_NO, goes_to=self.decline_offer)),),
            ),
            PauseStep.MENU: Step(
                asks=PauseMsg.PAUSE_MENU,
                buttons=(
                    (Choice("breathe", PauseMsg.PAUSE_BREATHE, goes_to=exercises.breathing),),
                    (Choice("wait", PauseMsg.PAUSE_WAIT, goes_to=PauseStep.WAIT),),
                    (Choice("write", PauseMsg.PAUSE_WRITE, goes_to=PauseStep.WRITE),),
                    (Choice("more", PauseMsg.PAUSE_MORE, goes_to=more_menu),),
                ),
                also=more,
            ),
            PauseStep.CHECKING: Step(
                asks=PauseMsg.PAUSE_CHECKING_REPLY,
                buttons=(
                    (Choice("wait", PauseMsg.PAUSE_WAIT, goes_to=PauseStep.WAIT),),
                    (Choice("breathe", PauseMsg.PAUSE_BREATHE, goes_to=exercises.breathing),),
                    (Choice("done", PauseMsg.CHECKING_PASSED, goes_to=self._done),
                     Choice("back", PauseMsg.PAUSE_BACK, goes_to=PauseStep.MENU)),
                ),
            ),
            # An exercise's own buttons come from the pack: other_choice reads them.
            PauseStep.BPICK: Step(buttons=back, other_choice=exercises.breathe),
            PauseStep.GPICK: Step(buttons=back, other_choice=exercises.ground),
            PauseStep.GSTEP: Step(
                buttons=((Choice("next", PauseMsg.PAUSE_NEXT, goes_to=exercises.ground_step),
                          Choice("back", PauseMsg.PAUSE_BACK, goes_to=PauseStep.MENU)),),
            ),
            PauseStep.AFTER: Step(
                buttons=routed(AFTER, {"again": exercises.again, "back": PauseStep.MENU}),
            ),
            PauseStep.REMEMBER: Step(
                buttons=((Choice("again", PauseMsg.PAUSE_ANOTHER, goes_to=self._another_reflection),
                          Choice("back", PauseMsg.PAUSE_BACK, goes_to=PauseStep.MENU)),),
            ),
            PauseStep.REASON: Step(  # no reasons saved yet: one can be written here
                asks=PauseMsg.REMEMBER_EMPTY,
                buttons=((Choice("skip", PauseMsg.PAUSE_SKIP, goes_to=PauseStep.MENU),),),
                also=long_text_buttons(self._reason_first_part, self._reason_shorter),
                on_typed=self._reason,
            ),
            PauseStep.WRITE: Step(
                asks=PauseMsg.WRITE_PROMPT,
                also=long_text_buttons(self._draft_first_part, self._draft_shorter),
                on_typed=self._write,
            ),
            PauseStep.KEEP: Step(
                asks=PauseMsg.WRITE_WRITTEN,
                buttons=((Choice("keep", PauseMsg.WRITE_KEEP, goes_to=self._keep),
                          Choice("letgo", PauseMsg.WRITE_LET_GO, goes_to=self._keep)),),
            ),
            PauseStep.WAIT: Step(
                asks=PauseMsg.WAIT_PROMPT,
                buttons=leading(_WAIT, self._wait),
                other_choice=self._wait,  # typed: "10 min", "wait 20 minutes"
                text_as_choice=True,
            ),
            PauseStep.FOLLOWUP: Step(  # asked by the scheduler (followups_due)
                buttons=routed(_FOLLOWUP, {
                    "passed": self._passed,
                    "strong": self._still_strong,
                    "reached": self._reached_out,
                    "more": PauseStep.WAIT,
                }),
            ),
            PauseStep.NEED: Step(
                asks=PauseMsg.REACHED_OUT_REPLY,
                buttons=((Choice("ground", PauseMsg.PAUSE_GROUND, goes_to=exercises.grounding),
                          Choice("breathe", PauseMsg.PAUSE_BREATHE, goes_to=exercises.breathing)),
                         (Choice("rest", PauseMsg.PAUSE_NEED_REST, goes_to=self._rest),)),
            ),
        })  # fmt: skip

    # Entry points -----------------------------------------------------------------------

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        """/pause, the check-in's urge button, or a yes to the offer: a pause starts here."""
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await urges.start_pause(tx, user.id, ctx.now())
        return await self.go(ctx, Next(PauseStep.MENU))

    async def offer(self, ctx: FlowContext) -> list[Reply]:
        """Free text sounded like an urge: ask first, start nothing without a yes."""
        return await self.go(ctx, Next(PauseStep.OFFER))

    async def followups_due(
        self, tx: Transaction, services: Services, claimed: Sequence[tuple[int, User]]
    ) -> list[Outgoing]:
        """ "How is the wave now?" for each claimed follow-up, in the claiming transaction.

        Built from the claimed rows alone: no user is looked up or created here,
        so a user forgotten a moment ago stays forgotten.
        """
        now = services.clock.now()
        placements, outgoing = [], []
        for followup_id, user in claimed:
            ctx = FlowContext(services, user.address, user.locale)
            shown = showing(ctx, PauseStep.FOLLOWUP, _FOLLOWUP)
            position = FlowPosition(self.name, PauseStep.FOLLOWUP, new_token(), shown.data())
            placements.append(Placement(user.id, position))
            reply = Reply(
                # It arrives unasked-for in the moment, so it may show on a lock screen.
                ctx.text(PauseMsg.FOLLOWUP if user.discreet else PauseMsg.FOLLOWUP_WARM),
                buttons=shown.markup(position),
                silent=in_quiet_hours(user, now),  # asked for, so sent, but without a sound
            )
            outgoing.append(followup_outgoing(user.address, reply, followup_id, user.id))
        await flow_positions.move_many(tx, placements, now)
        return outgoing

    async def reprompt(self, ctx: FlowContext, position: FlowPosition) -> Reply | None:
        """A follow-up's question is sent by the scheduler, not kept: built again here."""
        if position.step != PauseStep.FOLLOWUP:
            return None
        shown = showing(ctx, PauseStep.FOLLOWUP, _FOLLOWUP)
        user = await ctx.find_user()
        discreet = user is None or user.discreet
        return Reply(
            ctx.text(PauseMsg.FOLLOWUP if discreet else PauseMsg.FOLLOWUP_WARM),
            buttons=shown.markup(position),
        )

    # Steps ------------------------------------------------------------------------------

    async def _done(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._resolved_passed(ctx, PauseMsg.PAUSE_DONE_REPLY)

    async def _passed(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._resolved_passed(ctx, PauseMsg.PASSED_REPLY)

    async def _rest(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(END, before=[ctx.reply(PauseMsg.PAUSE_REST_REPLY)])

    async def _still_strong(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        text = f"{ctx.text(PauseMsg.STRONG_REPLY)}\n\n{ctx.text(PauseMsg.PAUSE_MENU)}"
        return Next(PauseStep.MENU, question=text)

    async def _still_there(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """Lives with them, or went back: kindness and a next step, never a forecast."""
        user = await ctx.ensure_user()
        replies = [
            r for r in ctx.services.content.checkin_replies(ctx.locale)
            if r.category == "still_there" and r.time_of_day == "any"  # a pause has no hour
        ]  # fmt: skip
        text = ctx.text(PauseMsg.PAUSE_STILL_THERE_REPLY)
        if replies:
            seen = await content_seen.seen_since(
                ctx.db, user.id, SeenKind.REPLY, ctx.now() - NO_REPEAT_WINDOW
            )
            chosen = pick_fresh(replies, seen, self._rng)
            async with ctx.db.transaction() as tx:
                await content_seen.mark_seen(tx, [(user.id, SeenKind.REPLY, chosen.id)], ctx.now())
            text = f"{chosen.text}\n\n{text}"
        return Next(PauseStep.NEED, question=text)

    async def _remember(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        reasons = await list_texts(ctx.db, ctx.cipher, TextKind.REASON, user.id)
        if not reasons:
            return Next(PauseStep.REASON)
        listed = "\n".join(f"• {reason.text}" for reason in reasons)
        # protect: this quotes the user's own words back to them.
        mine = Reply(f"{ctx.text(PauseMsg.REMEMBER_INTRO)}\n\n{listed}", protect=True)
        return replace(await self._reflection(ctx), before=[mine])

    async def _another_reflection(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> Outcome:
        return await self._reflection(ctx)

    async def _reflection(self, ctx: FlowContext) -> Next:
        user = await ctx.ensure_user()
        seen = await content_seen.seen_since(
            ctx.db, user.id, SeenKind.REFLECTION, ctx.now() - NO_REPEAT_WINDOW
        )
        question = pick_fresh(ctx.services.content.reflections(ctx.locale), seen, self._rng)
        async with ctx.db.transaction() as tx:
            await content_seen.mark_seen(
                tx, [(user.id, SeenKind.REFLECTION, question.id)], ctx.now()
            )
        text = f"{ctx.text(PauseMsg.REFLECT_INTRO)}\n\n{question.text}"
        return Next(PauseStep.REMEMBER, question=text)

    async def _reason_shorter(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> Outcome:
        return write_shorter(ctx, position, TextLimit.REASON)

    async def _reason_first_part(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> Outcome:
        reason = await first_part(ctx, position, TextLimit.REASON)
        if not reason:  # nothing held (an old button)
            return NOT_A_CHOICE
        return await self._reason(ctx, position, reason)

    async def _reason(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        if too_long(TextLimit.REASON, text):
            return [await offer_choice(self, ctx, position, TextLimit.REASON, text)]
        refused = await save_reason(ctx, text)
        return [refused] if refused is not None else await self._remember(ctx, position, text)

    async def _write(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        draft = text.strip()
        if not draft:
            return [ctx.reply(PauseMsg.WRITE_PROMPT)]
        if too_long(TextLimit.DRAFT, draft):
            return [await offer_choice(self, ctx, position, TextLimit.DRAFT, draft)]
        user = await ctx.ensure_user()
        # Until the user chooses, the draft waits sealed, never in clear, in the position row.
        sealed = base64.b64encode(ctx.cipher.encrypt(draft, user.id)).decode("ascii")
        return Next(PauseStep.KEEP, {"draft": sealed})

    async def _draft_shorter(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return write_shorter(ctx, position, TextLimit.DRAFT)

    async def _draft_first_part(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> Outcome:
        draft = await first_part(ctx, position, TextLimit.DRAFT)
        if draft is None:  # nothing held (an old button)
            return NOT_A_CHOICE
        return await self._write(ctx, position, draft)

    async def _keep(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        sealed = position.data.get("draft")
        if not isinstance(sealed, str):
            return NOT_A_CHOICE
        user = await ctx.ensure_user()
        if value == "keep":
            draft = ctx.cipher.decrypt(base64.b64decode(sealed), user.id)
            async with ctx.db.transaction() as tx:
                await add_text(tx, ctx.cipher, TextKind.DRAFT, user.id, draft, ctx.now())
        said = ctx.text(PauseMsg.WRITE_KEPT if value == "keep" else PauseMsg.WRITE_LET_GONE)
        return Next(PauseStep.MENU, question=f"{said}\n\n{ctx.text(PauseMsg.PAUSE_MENU)}")

    async def _wait(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        minutes = value.removeprefix("wait ").removesuffix(" minutes").removesuffix(" min").strip()
        if minutes not in WAIT_MINUTES:
            return NOT_A_CHOICE
        user = await ctx.ensure_user()
        due = ctx.now() + timedelta(minutes=int(minutes))
        async with ctx.db.transaction() as tx:
            await urges.schedule_followup(tx, user.id, due)
            await flow_positions.leave_flow(tx, user.id)
        local = due.astimezone(user_zone(user))
        return [ctx.reply(PauseMsg.WAIT_STARTED, time=f"{local:%H:%M}")]

    async def _reached_out(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await urges.resolve_latest_pause(tx, user.id, "reached_out", ctx.now())
        return Next(PauseStep.NEED)

    async def _resolved_passed(self, ctx: FlowContext, message: Msg) -> list[Reply]:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await urges.resolve_latest_pause(tx, user.id, "passed", ctx.now())
            await flow_positions.leave_flow(tx, user.id)
        return [ctx.reply(message)]
