"""/contacted: they got in touch. A short pause before replying, three questions, then a summary.

kind ──[practical|emotional|not sure]──▶ timing ──[can wait|soon]──▶ protect ──[…]──▶ summary (left)
  └──[they promise, plead or threaten]──▶ pressure ──[to hurt themselves]──▶ theirs is for
                                             │          emergency services ──▶ what now
                                             ├──[me]──▶ the danger reply ────────▶ what now
                                             └──[promise or plead]──▶ it can wait ─▶ what now
what now ──[take a pause]──▶ /pause   [people to reach]──▶ /sos (left)   [nothing]──▶ (left)
offer ("they texted me", typed) ──[yes]──▶ kind   [not now]──▶ (left)

Threats to themselves and threats to the reader are answered apart: the first is an
emergency for emergency services, not the reader's to carry; the second is the reader's
own danger, answered with the danger reply (the police first, then abuse lines, and
privacy and safety tips). Every reply there ends with a question that has buttons.
"""

from __future__ import annotations

from enum import StrEnum

from bot.content_pack.countries import country_for_timezone
from bot.content_pack.ids import ContactedMsg, PauseMsg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step, leading, routed
from bot.flows.context import END, NOT_A_CHOICE, Choice, FlowContext, Next, Outcome
from bot.flows.names import FlowName
from bot.safety.screen import SafetyScreen
from bot.storage.flow_positions import FlowPosition


async def _country(ctx: FlowContext) -> str | None:
    user = await ctx.ensure_user()
    return user.country or country_for_timezone(user.timezone)


_KIND = ((Choice("practical", ContactedMsg.CT_PRACTICAL),
          Choice("emotional", ContactedMsg.CT_EMOTIONAL), Choice("unsure", ContactedMsg.CT_UNSURE)),
         (Choice("pressure", ContactedMsg.CT_PRESSURE),),)  # fmt: skip
_OFFER = ((Choice("yes", PauseMsg.PAUSE_OFFER_YES), Choice("no", PauseMsg.PAUSE_OFFER_NO)),)
_TIMING = ((Choice("wait", ContactedMsg.CT_CAN_WAIT), Choice("soon", ContactedMsg.CT_SOON)),)
_PROTECT = ((Choice("peace", ContactedMsg.CT_PEACE),
             Choice("boundaries", ContactedMsg.CT_BOUNDARIES)),
            (Choice("time", ContactedMsg.CT_TIME),
             Choice("safety", ContactedMsg.CT_SAFETY)),)  # fmt: skip
_PRESSURE = ((Choice("self", ContactedMsg.CT_THREAT_SELF),),
             (Choice("me", ContactedMsg.CT_THREAT_ME),),
             (Choice("promise", ContactedMsg.CT_PROMISE),))  # fmt: skip
_WHAT_NOW = ((Choice("pause", ContactedMsg.CT_NEXT_PAUSE), Choice("sos", ContactedMsg.CT_NEXT_SOS)),
             (Choice("done", ContactedMsg.CT_NEXT_DONE),))  # fmt: skip

_ADVICE = {
    "practical": ContactedMsg.CT_ADVICE_PRACTICAL,
    "emotional": ContactedMsg.CT_ADVICE_EMOTIONAL,
    "unsure": ContactedMsg.CT_ADVICE_UNSURE,
    "wait": ContactedMsg.CT_ADVICE_WAIT,
    "soon": ContactedMsg.CT_ADVICE_SOON,
    "peace": ContactedMsg.CT_ADVICE_PEACE,
    "boundaries": ContactedMsg.CT_ADVICE_BOUNDARIES,
    "time": ContactedMsg.CT_ADVICE_TIME,
    "safety": ContactedMsg.CT_ADVICE_SAFETY,
}


class ContactedStep(StrEnum):
    OFFER = "offer"
    KIND = "kind"
    TIMING = "timing"
    PROTECT = "protect"
    PRESSURE = "pressure"
    WHAT_NOW = "whatnow"


class Contacted(Flow):
    name = FlowName.CONTACTED

    def __init__(self, pause: Flow, screen: SafetyScreen) -> None:
        self._pause = pause  # "Take a pause" begins it
        self._screen = screen  # the danger reply, and /sos's helplines
        self.steps = self.table({
            ContactedStep.OFFER: Step(
                asks=ContactedMsg.CT_OFFER,
                buttons=routed(_OFFER, {"yes": self.take_offer, "no": self.decline_offer}),
            ),
            ContactedStep.KIND: Step(
                asks=ContactedMsg.CT_Q_KIND,
                buttons=routed(_KIND, {
                    "practical": self._kind,
                    "emotional": self._kind,
                    "unsure": self._kind,
                    "pressure": ContactedStep.PRESSURE,
                }),
            ),
            ContactedStep.PRESSURE: Step(
                asks=ContactedMsg.CT_PRESSURE_WHICH,
                buttons=routed(_PRESSURE, {
                    "self": self._threat_to_self,
                    "me": self._threat_to_me,
                    "promise": self._promise,
                }),
            ),
            ContactedStep.WHAT_NOW: Step(
                asks=ContactedMsg.CT_WHAT_NOW,
                buttons=routed(_WHAT_NOW, {
                    "pause": self._take_pause,
                    "sos": self._people_to_reach,
                    "done": self._nothing_now,
                }),
            ),
            ContactedStep.TIMING: Step(
                asks=ContactedMsg.CT_Q_TIMING, buttons=leading(_TIMING, self._timing)
            ),
            ContactedStep.PROTECT: Step(
                asks=ContactedMsg.CT_Q_PROTECT, buttons=leading(_PROTECT, self._protect)
            ),
        })  # fmt: skip

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        text = f"{ctx.text(ContactedMsg.CT_INTRO)}\n\n{ctx.text(ContactedMsg.CT_Q_KIND)}"
        return await self.go(ctx, Next(ContactedStep.KIND, question=text))

    async def offer(self, ctx: FlowContext) -> list[Reply]:
        """Free text said they got in touch: ask before starting anything."""
        return await self.go(ctx, Next(ContactedStep.OFFER))

    async def _kind(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(ContactedStep.TIMING, {"kind": value})

    async def _threat_to_self(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> Outcome:
        """They threaten to hurt themselves unless the reader returns: their emergency is
        for emergency services, not for the reader."""
        country = await _country(ctx)
        content = ctx.services.content
        numbers = content.emergency_numbers(country)
        emergency = (
            ctx.text(ContactedMsg.CT_EMERGENCY_GENERIC)
            if numbers is None
            else ctx.text(
                ContactedMsg.CT_EMERGENCY_NUMBER,  # an ambulance: the danger is to their own life
                number=numbers.ambulance_number,
                country=content.country_label(ctx.locale, numbers.code),
            )
        )
        said = ctx.reply(ContactedMsg.CT_PRESSURE_REPLY, emergency=emergency)
        return Next(ContactedStep.WHAT_NOW, before=[said])

    async def _threat_to_me(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """A threat to the reader: the danger reply, the police first, with privacy and
        safety tips behind its button; no "you misread me" (they chose this)."""
        user = await ctx.ensure_user()
        danger = self._screen.full_reply(
            ctx.locale, await _country(ctx), danger_first=True, has_plan=user.has_plan,
            misread=False,
        )  # fmt: skip
        return Next(
            ContactedStep.WHAT_NOW, before=[ctx.reply(ContactedMsg.CT_THREAT_ME_REPLY), danger]
        )

    async def _promise(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(ContactedStep.WHAT_NOW, before=[ctx.reply(ContactedMsg.CT_PROMISE_REPLY)])

    async def _nothing_now(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(END, before=[ctx.reply(ContactedMsg.CT_DONE_REPLY)])

    async def _take_pause(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._pause.begin(ctx)

    async def _people_to_reach(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> Outcome:
        user = await ctx.ensure_user()
        helplines = self._screen.sos_replies(
            ctx.locale, await _country(ctx), ctx.address.is_group, user.timezone, user.has_plan
        )
        return Next(END, before=helplines)

    async def _timing(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(ContactedStep.PROTECT, {**position.data, "timing": value})

    async def _protect(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        kind, timing = position.data.get("kind"), position.data.get("timing")
        if not isinstance(kind, str) or not isinstance(timing, str):
            return NOT_A_CHOICE  # the earlier answers are lost
        advice = [ctx.text(_ADVICE[answer]) for answer in (kind, timing, value)]
        return Next(END, before=[Reply("\n\n".join([ctx.text(ContactedMsg.CT_SUMMARY), *advice]))])
