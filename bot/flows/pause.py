"""The pause before acting: space between an urge and what the user does with it.

    offer ──[yes]──▶ menu ◀─────────────────────────────────────────────┐
      └──[not now]──▶ (left)                                            │
    menu shows Breathe, Wait, Write and More; More shows the rest:      │
      ├──[The urge is to look them up]──▶ checking ──[wait|breathe|didn't look|back]
      ├──[I live with them, or went back]──▶ need (kind words, no forecast)
    menu ──[Breathe]──▶ bpick ──[rhythm]──▶ after ──[again|back]─────────┤
      ├──[Ground]─────▶ gpick ──[exercise]──▶ gstep ──[next]…──▶ after ──┤
      ├──[My reasons]─▶ remember (list + a question) ──[another|back]────┤
      │                   └─ no reasons yet ──▶ reason (text) ──▶ remember
      ├──[Write it]───▶ write (text) ──▶ keep ──[keep|let go]────────────┤
      ├──[Wait]───────▶ wait ──[10|20|30 min]──▶ (left; follow-up due)   │
      ├──[I reached out]──▶ need ──[ground|breathe|rest]─────────────────┘
      └──[I'm okay]───▶ (left; counted as passed)

    follow-up (scheduled) ──▶ followup ──[passed|still strong|reached out|more time]

Nothing here shames: reaching out gets a kind, practical answer and a question.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Sequence
from datetime import timedelta

from bot.content_pack.ids import Msg
from bot.content_pack.rotation import pick_fresh
from bot.content_pack.schema import Exercise
from bot.core.replies import Frame, Reply
from bot.delivery.outbox import Outgoing
from bot.flows.base import Flow, Step
from bot.flows.context import Choice, FlowContext, Services
from bot.flows.limits import TextLimit
from bot.flows.names import FlowName
from bot.flows.overlong import KEEP_FIRST, WRITE_SHORTER, first_part, offer_choice, write_shorter
from bot.flows.reasons import save_reason
from bot.flows.typed_labels import showing
from bot.flows.validation import too_long
from bot.scheduling.planner import in_quiet_hours, user_zone
from bot.storage import content_seen, flow_positions, urges
from bot.storage.content_seen import NO_REPEAT_WINDOW, SeenKind
from bot.storage.db import Transaction
from bot.storage.flow_positions import FlowPosition, Placement, new_token
from bot.storage.user_texts import TextKind, add_text, list_texts
from bot.storage.users import User

WAIT_MINUTES = ("10", "20", "30")
BREATH_WORDS = {"in": Msg.BREATH_IN, "hold": Msg.BREATH_HOLD, "out": Msg.BREATH_OUT}
# In running text each phase has its own words ("breathe in for 4 seconds"), so a
# capitalised frame label never lands mid-sentence.
BREATH_STEPS = {"in": Msg.BREATH_STEP_IN, "hold": Msg.BREATH_STEP_HOLD, "out": Msg.BREATH_STEP_OUT}

_OFFER = ((Choice("yes", Msg.PAUSE_OFFER_YES), Choice("no", Msg.PAUSE_OFFER_NO)),)
# Under stress, fewer choices: the three that help most first, the rest behind "More".
_MENU = (
    (Choice("breathe", Msg.PAUSE_BREATHE),),
    (Choice("wait", Msg.PAUSE_WAIT),),
    (Choice("write", Msg.PAUSE_WRITE),),
    (Choice("more", Msg.PAUSE_MORE),),
)
_MORE = (
    (Choice("ground", Msg.PAUSE_GROUND), Choice("remember", Msg.PAUSE_REMEMBER)),
    (Choice("checking", Msg.PAUSE_CHECKING),),
    (Choice("still", Msg.PAUSE_STILL_THERE),),
    (Choice("reached", Msg.PAUSE_REACHED_OUT), Choice("done", Msg.PAUSE_DONE)),
    (Choice("back", Msg.PAUSE_BACK),),
)
# The urge to look them up (a profile, a story, unblocking), not to write to them.
_CHECKING = (
    (Choice("wait", Msg.PAUSE_WAIT),),
    (Choice("breathe", Msg.PAUSE_BREATHE),),
    (Choice("done", Msg.CHECKING_PASSED), Choice("back", Msg.PAUSE_BACK)),
)
_AFTER = ((Choice("again", Msg.PAUSE_ANOTHER), Choice("back", Msg.PAUSE_BACK)),)
_NEXT = ((Choice("next", Msg.PAUSE_NEXT), Choice("back", Msg.PAUSE_BACK)),)
_SKIP = ((Choice("skip", Msg.PAUSE_SKIP),),)
_KEEP = ((Choice("keep", Msg.WRITE_KEEP), Choice("letgo", Msg.WRITE_LET_GO)),)
_WAIT = ((Choice("10", Msg.WAIT_10), Choice("20", Msg.WAIT_20), Choice("30", Msg.WAIT_30)),)
_FOLLOWUP = (
    (Choice("passed", Msg.FOLLOWUP_PASSED), Choice("strong", Msg.FOLLOWUP_STRONG)),
    (Choice("reached", Msg.FOLLOWUP_REACHED), Choice("more", Msg.FOLLOWUP_MORE_TIME)),
)
_NEED = (
    (Choice("ground", Msg.PAUSE_GROUND), Choice("breathe", Msg.PAUSE_BREATHE)),
    (Choice("rest", Msg.PAUSE_NEED_REST),),
)


def breathing_frames(ctx: FlowContext, exercise: Exercise) -> tuple[Frame, ...]:
    """One frame per phase per round: "Breathe in · 4" and so on, each shown for its seconds."""
    frames = []
    for round_number in range(1, exercise.rounds + 1):
        for phase in exercise.pace:
            text = ctx.text(
                Msg.BREATH_FRAME,
                phase=ctx.text(BREATH_WORDS[phase.phase]),
                seconds=phase.seconds,
                round=round_number,
                rounds=exercise.rounds,
            )
            frames.append(Frame(text, phase.seconds))
    return tuple(frames)


def breathing_text(ctx: FlowContext, exercise: Exercise) -> str:
    """The same exercise as one message, for platforms that cannot edit a message live."""
    one_breath = ", ".join(
        ctx.text(BREATH_STEPS[phase.phase], seconds=phase.seconds) for phase in exercise.pace
    )
    sequence = ctx.text(Msg.BREATH_SEQUENCE, breath=one_breath, rounds=exercise.rounds)
    return f"{exercise.intro}\n\n{sequence}\n\n{exercise.closing}"


class Pause(Flow):
    name = FlowName.PAUSE

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self.steps = {
            "offer": Step(on_choice=self.answer_offer),
            "menu": Step(on_choice=self._menu),
            "bpick": Step(on_choice=self._breathe),
            "gpick": Step(on_choice=self._ground),
            "gstep": Step(on_choice=self._ground_step),
            "after": Step(on_choice=self._after),
            "remember": Step(on_choice=self._remember_choice),
            "reason": Step(on_choice=self._remember_choice, on_text=self._reason),
            "write": Step(on_text=self._write, on_choice=self._write_choice),
            "keep": Step(on_choice=self._keep),
            "wait": Step(on_choice=self._wait, text_as_choice=True),
            "followup": Step(on_choice=self._followup),
            "need": Step(on_choice=self._need),
            "checking": Step(on_choice=self._checking),
        }

    # Entry points -----------------------------------------------------------------------

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        """/pause, the check-in's urge button, or a yes to the offer: a pause starts here."""
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await urges.start_pause(tx, user.id, ctx.now())
        return [await self.ask(ctx, "menu", Msg.PAUSE_MENU, _MENU)]

    async def offer(self, ctx: FlowContext) -> list[Reply]:
        """Free text sounded like an urge: ask first, start nothing without a yes."""
        return [await self.ask(ctx, "offer", Msg.PAUSE_OFFER, _OFFER)]

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
            shown = showing(ctx, "followup", _FOLLOWUP)
            position = FlowPosition(self.name, "followup", new_token(), shown.data())
            placements.append(Placement(user.id, position))
            reply = Reply(
                # It arrives unasked-for in the moment, so it may show on a lock screen.
                ctx.text(Msg.FOLLOWUP if user.discreet else Msg.FOLLOWUP_WARM),
                buttons=shown.markup(position),
                silent=in_quiet_hours(user, now),  # asked for, so sent, but without a sound
            )
            outgoing.append(Outgoing(user.address, reply, followup_id=followup_id))
        await flow_positions.move_many(tx, placements, now)
        return outgoing

    async def reprompt(self, ctx: FlowContext, position: FlowPosition) -> Reply | None:
        """A follow-up's question is sent by the scheduler, not kept: built again here."""
        if position.step != "followup":
            return None
        shown = showing(ctx, "followup", _FOLLOWUP)
        user = await ctx.find_user()
        discreet = user is None or user.discreet
        return Reply(
            ctx.text(Msg.FOLLOWUP if discreet else Msg.FOLLOWUP_WARM),
            buttons=shown.markup(position),
        )

    # Steps ------------------------------------------------------------------------------

    async def _menu(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        match value:
            case "breathe":
                return [await self._pick(ctx, "bpick", "breathing")]
            case "ground":
                return [await self._pick(ctx, "gpick", "grounding")]
            case "remember":
                return await self._remember(ctx)
            case "write":
                await self.move(ctx, "write")
                return [ctx.reply(Msg.WRITE_PROMPT)]
            case "wait":
                return [await self.ask(ctx, "wait", Msg.WAIT_PROMPT, _WAIT)]
            case "reached":
                return await self._reached_out(ctx)
            case "done":
                return await self._passed(ctx, Msg.PAUSE_DONE_REPLY)
            case "more":
                return [await self.ask(ctx, "menu", Msg.PAUSE_MORE_MENU, _MORE)]
            case "back":
                return [await self.ask(ctx, "menu", Msg.PAUSE_MENU, _MENU)]
            case "checking":
                return [await self.ask(ctx, "checking", Msg.PAUSE_CHECKING_REPLY, _CHECKING)]
            case "still":
                return await self._still_there(ctx)
        return [ctx.reply(Msg.USE_BUTTONS)]

    async def _checking(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value in {"wait", "breathe", "done", "back"}:
            return await self._menu(ctx, position, value)
        return [ctx.reply(Msg.USE_BUTTONS)]

    async def _still_there(self, ctx: FlowContext) -> list[Reply]:
        """Lives with them, or went back: kindness and a next step, never a forecast."""
        user = await ctx.ensure_user()
        replies = [
            r for r in ctx.services.content.checkin_replies(ctx.locale)
            if r.category == "still_there" and r.time_of_day == "any"  # a pause has no hour
        ]  # fmt: skip
        text = ctx.text(Msg.PAUSE_STILL_THERE_REPLY)
        if replies:
            seen = await content_seen.seen_since(
                ctx.db, user.id, SeenKind.REPLY, ctx.now() - NO_REPEAT_WINDOW
            )
            chosen = pick_fresh(replies, seen, self._rng)
            async with ctx.db.transaction() as tx:
                await content_seen.mark_seen(tx, [(user.id, SeenKind.REPLY, chosen.id)], ctx.now())
            text = f"{chosen.text}\n\n{text}"
        return [Reply(text, buttons=await self.show(ctx, "need", _NEED))]

    async def _pick(self, ctx: FlowContext, step: str, kind: str) -> Reply:
        choices = [
            Choice(str(index), exercise.title)
            for index, exercise in enumerate(ctx.services.content.exercises(ctx.locale))
            if exercise.kind == kind
        ]
        rows = [choices[i : i + 2] for i in range(0, len(choices), 2)]
        return await self.ask(ctx, step, Msg.PAUSE_PICK, (*rows, *_BACK_ROW))

    def _exercise(self, ctx: FlowContext, value: str, kind: str) -> Exercise | None:
        exercises = ctx.services.content.exercises(ctx.locale)
        index = int(value) if value.isascii() and value.isdigit() else -1
        if 0 <= index < len(exercises) and exercises[index].kind == kind:
            return exercises[index]
        return None

    async def _breathe(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value == "back":
            return [await self.ask(ctx, "menu", Msg.PAUSE_MENU, _MENU)]
        exercise = self._exercise(ctx, value, "breathing")
        if exercise is None:
            return [ctx.reply(Msg.USE_BUTTONS)]
        buttons = await self.show(ctx, "after", _AFTER, {"again": "bpick"})
        return [
            Reply(
                text=breathing_text(ctx, exercise),
                frames=breathing_frames(ctx, exercise),
                buttons=buttons,
            )
        ]

    async def _ground(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value == "back":
            return [await self.ask(ctx, "menu", Msg.PAUSE_MENU, _MENU)]
        exercise = self._exercise(ctx, value, "grounding")
        if exercise is None:
            return [ctx.reply(Msg.USE_BUTTONS)]
        buttons = await self.show(ctx, "gstep", _NEXT, {"exercise": int(value), "step": 0})
        first = self._step_text(ctx, exercise, 0)
        return [Reply(f"{exercise.intro}\n\n{first}", buttons=buttons)]

    def _step_text(self, ctx: FlowContext, exercise: Exercise, step: int) -> str:
        return ctx.text(
            Msg.EXERCISE_STEP, number=step + 1, total=len(exercise.steps), text=exercise.steps[step]
        )

    async def _ground_step(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        if value == "back":
            return [await self.ask(ctx, "menu", Msg.PAUSE_MENU, _MENU)]
        index, step = position.data.get("exercise"), position.data.get("step")
        exercises = ctx.services.content.exercises(ctx.locale)
        if value != "next" or not isinstance(index, int) or not isinstance(step, int):
            return [ctx.reply(Msg.USE_BUTTONS)]
        exercise = exercises[index]
        if step + 1 < len(exercise.steps):
            buttons = await self.show(ctx, "gstep", _NEXT, {"exercise": index, "step": step + 1})
            return [
                Reply(
                    self._step_text(ctx, exercise, step + 1),
                    buttons=buttons,
                )
            ]
        buttons = await self.show(ctx, "after", _AFTER, {"again": "gpick"})
        text = f"{exercise.closing}\n\n{ctx.text(Msg.PAUSE_AFTER_EXERCISE)}"
        return [Reply(text, buttons=buttons)]

    async def _after(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value == "again" and position.data.get("again") == "gpick":
            return [await self._pick(ctx, "gpick", "grounding")]
        if value == "again":
            return [await self._pick(ctx, "bpick", "breathing")]
        if value == "back":
            return [await self.ask(ctx, "menu", Msg.PAUSE_MENU, _MENU)]
        return [ctx.reply(Msg.USE_BUTTONS)]

    async def _remember(self, ctx: FlowContext) -> list[Reply]:
        user = await ctx.ensure_user()
        reasons = await list_texts(ctx.db, ctx.cipher, TextKind.REASON, user.id)
        if not reasons:
            return [await self.ask(ctx, "reason", Msg.REMEMBER_EMPTY, _SKIP)]
        listed = "\n".join(f"• {reason.text}" for reason in reasons)
        # protect: this quotes the user's own words back to them.
        mine = Reply(f"{ctx.text(Msg.REMEMBER_INTRO)}\n\n{listed}", protect=True)
        return [mine, await self._reflection(ctx)]

    async def _reflection(self, ctx: FlowContext) -> Reply:
        user = await ctx.ensure_user()
        seen = await content_seen.seen_since(
            ctx.db, user.id, SeenKind.REFLECTION, ctx.now() - NO_REPEAT_WINDOW
        )
        question = pick_fresh(ctx.services.content.reflections(ctx.locale), seen, self._rng)
        async with ctx.db.transaction() as tx:
            await content_seen.mark_seen(
                tx, [(user.id, SeenKind.REFLECTION, question.id)], ctx.now()
            )
        buttons = await self.show(ctx, "remember", _AFTER)
        text = f"{ctx.text(Msg.REFLECT_INTRO)}\n\n{question.text}"
        return Reply(text, buttons=buttons)

    async def _remember_choice(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        if value == "again":
            return [await self._reflection(ctx)]
        if value in {"back", "skip"}:
            return [await self.ask(ctx, "menu", Msg.PAUSE_MENU, _MENU)]
        if value == WRITE_SHORTER:
            return await self.go(ctx, write_shorter(ctx, position, TextLimit.REASON))
        if value == KEEP_FIRST and (reason := await first_part(ctx, position, TextLimit.REASON)):
            return await self._reason(ctx, position, reason)
        return [ctx.reply(Msg.USE_BUTTONS)]

    async def _reason(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        if too_long(TextLimit.REASON, text):
            return [await offer_choice(self, ctx, position, TextLimit.REASON, text)]
        refused = await save_reason(ctx, text)
        return [refused] if refused is not None else await self._remember(ctx)

    async def _write(self, ctx: FlowContext, position: FlowPosition, text: str) -> list[Reply]:
        draft = text.strip()
        if not draft:
            return [ctx.reply(Msg.WRITE_PROMPT)]
        if too_long(TextLimit.DRAFT, draft):
            return [await offer_choice(self, ctx, position, TextLimit.DRAFT, draft)]
        user = await ctx.ensure_user()
        # Until the user chooses, the draft waits sealed, never in clear, in the position row.
        sealed = base64.b64encode(ctx.cipher.encrypt(draft, user.id)).decode("ascii")
        return [await self.ask(ctx, "keep", Msg.WRITE_WRITTEN, _KEEP, {"draft": sealed})]

    async def _write_choice(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> list[Reply]:
        if value == WRITE_SHORTER:
            return await self.go(ctx, write_shorter(ctx, position, TextLimit.DRAFT))
        draft = await first_part(ctx, position, TextLimit.DRAFT) if value == KEEP_FIRST else None
        if draft is None:
            return [ctx.reply(Msg.USE_BUTTONS)]
        return await self._write(ctx, position, draft)

    async def _keep(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        sealed = position.data.get("draft")
        if value not in {"keep", "letgo"} or not isinstance(sealed, str):
            return [ctx.reply(Msg.USE_BUTTONS)]
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            if value == "keep":
                draft = ctx.cipher.decrypt(base64.b64decode(sealed), user.id)
                await add_text(tx, ctx.cipher, TextKind.DRAFT, user.id, draft, ctx.now())
            menu = showing(ctx, "menu", _MENU)
            moved = await flow_positions.move_to(
                tx, user.id, self.name, "menu", ctx.now(), menu.data()
            )
        said = ctx.text(Msg.WRITE_KEPT if value == "keep" else Msg.WRITE_LET_GONE)
        text = f"{said}\n\n{ctx.text(Msg.PAUSE_MENU)}"
        return [Reply(text, buttons=menu.markup(moved))]

    async def _wait(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        minutes = value.removeprefix("wait ").removesuffix(" minutes").removesuffix(" min").strip()
        if minutes not in WAIT_MINUTES:
            return [ctx.reply(Msg.USE_BUTTONS)]
        user = await ctx.ensure_user()
        due = ctx.now() + timedelta(minutes=int(minutes))
        async with ctx.db.transaction() as tx:
            await urges.schedule_followup(tx, user.id, due)
            await flow_positions.leave_flow(tx, user.id)
        local = due.astimezone(user_zone(user))
        return [ctx.reply(Msg.WAIT_STARTED, time=f"{local:%H:%M}")]

    async def _followup(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        match value:
            case "passed":
                return await self._passed(ctx, Msg.PASSED_REPLY)
            case "strong":
                buttons = await self.show(ctx, "menu", _MENU)
                text = f"{ctx.text(Msg.STRONG_REPLY)}\n\n{ctx.text(Msg.PAUSE_MENU)}"
                return [Reply(text, buttons=buttons)]
            case "reached":
                return await self._reached_out(ctx)
            case "more":
                return [await self.ask(ctx, "wait", Msg.WAIT_PROMPT, _WAIT)]
        return [ctx.reply(Msg.USE_BUTTONS)]

    async def _reached_out(self, ctx: FlowContext) -> list[Reply]:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await urges.resolve_latest_pause(tx, user.id, "reached_out", ctx.now())
        return [await self.ask(ctx, "need", Msg.REACHED_OUT_REPLY, _NEED)]

    async def _need(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value == "rest":
            await self.leave(ctx)
            return [ctx.reply(Msg.PAUSE_REST_REPLY)]
        if value in {"ground", "breathe"}:
            return await self._menu(ctx, position, value)
        return [ctx.reply(Msg.USE_BUTTONS)]

    async def _passed(self, ctx: FlowContext, message: Msg) -> list[Reply]:
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await urges.resolve_latest_pause(tx, user.id, "passed", ctx.now())
            await flow_positions.leave_flow(tx, user.id)
        return [ctx.reply(message)]


_BACK_ROW = ((Choice("back", Msg.PAUSE_BACK),),)
