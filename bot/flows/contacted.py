"""/contacted: they got in touch. A short pause before replying, three questions, then a summary.

kind ──[practical|emotional|not sure]──▶ timing ──[can wait|soon]──▶ protect ──[…]──▶ summary (left)
  └──[they promise, plead or threaten]──▶ their emergency is for emergency services (left)
offer ("they texted me", typed) ──[yes]──▶ kind   [not now]──▶ (left)
"""

from __future__ import annotations

from enum import StrEnum

from bot.content_pack.countries import country_for_timezone
from bot.content_pack.ids import Msg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step, leading, routed
from bot.flows.context import END, NOT_A_CHOICE, Choice, FlowContext, Next, Outcome
from bot.flows.names import FlowName
from bot.storage.flow_positions import FlowPosition

_KIND = ((Choice("practical", Msg.CT_PRACTICAL), Choice("emotional", Msg.CT_EMOTIONAL),
          Choice("unsure", Msg.CT_UNSURE)),
         (Choice("pressure", Msg.CT_PRESSURE),),)  # fmt: skip
_OFFER = ((Choice("yes", Msg.PAUSE_OFFER_YES), Choice("no", Msg.PAUSE_OFFER_NO)),)
_TIMING = ((Choice("wait", Msg.CT_CAN_WAIT), Choice("soon", Msg.CT_SOON)),)
_PROTECT = ((Choice("peace", Msg.CT_PEACE), Choice("boundaries", Msg.CT_BOUNDARIES)),
            (Choice("time", Msg.CT_TIME), Choice("safety", Msg.CT_SAFETY)),)  # fmt: skip

_ADVICE = {
    "practical": Msg.CT_ADVICE_PRACTICAL,
    "emotional": Msg.CT_ADVICE_EMOTIONAL,
    "unsure": Msg.CT_ADVICE_UNSURE,
    "wait": Msg.CT_ADVICE_WAIT,
    "soon": Msg.CT_ADVICE_SOON,
    "peace": Msg.CT_ADVICE_PEACE,
    "boundaries": Msg.CT_ADVICE_BOUNDARIES,
    "time": Msg.CT_ADVICE_TIME,
    "safety": Msg.CT_ADVICE_SAFETY,
}


class ContactedStep(StrEnum):
    OFFER = "offer"
    KIND = "kind"
    TIMING = "timing"
    PROTECT = "protect"


class Contacted(Flow):
    name = FlowName.CONTACTED

    def __init__(self) -> None:
        self.steps = self.table({
            ContactedStep.OFFER: Step(
                asks=Msg.CT_OFFER,
                buttons=routed(_OFFER, {"yes": self.take_offer, "no": self.decline_offer}),
            ),
            ContactedStep.KIND: Step(
                asks=Msg.CT_Q_KIND,
                buttons=routed(_KIND, {
                    "practical": self._kind,
                    "emotional": self._kind,
                    "unsure": self._kind,
                    "pressure": self._pressure,
                }),
            ),
            ContactedStep.TIMING: Step(
                asks=Msg.CT_Q_TIMING, buttons=leading(_TIMING, self._timing)
            ),
            ContactedStep.PROTECT: Step(
                asks=Msg.CT_Q_PROTECT, buttons=leading(_PROTECT, self._protect)
            ),
        })  # fmt: skip

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        text = f"{ctx.text(Msg.CT_INTRO)}\n\n{ctx.text(Msg.CT_Q_KIND)}"
        return await self.go(ctx, Next(ContactedStep.KIND, question=text))

    async def offer(self, ctx: FlowContext) -> list[Reply]:
        """Free text said they got in touch: ask before starting anything."""
        return await self.go(ctx, Next(ContactedStep.OFFER))

    async def _kind(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(ContactedStep.TIMING, {"kind": value})

    async def _pressure(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        """They say they changed, plead, send gifts, or threaten to hurt themselves unless
        the reader returns: their emergency is for emergency services, not for the reader."""
        user = await ctx.ensure_user()
        country = user.country or country_for_timezone(user.timezone)
        content = ctx.services.content
        numbers = content.emergency_numbers(country)
        emergency = (
            ctx.text(Msg.CT_EMERGENCY_GENERIC)
            if numbers is None
            else ctx.text(
                Msg.CT_EMERGENCY_NUMBER,  # an ambulance: the danger is to their own life
                number=numbers.ambulance_number,
                country=content.country_label(ctx.locale, numbers.code),
            )
        )
        return Next(END, before=[ctx.reply(Msg.CT_PRESSURE_REPLY, emergency=emergency)])

    async def _timing(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(ContactedStep.PROTECT, {**position.data, "timing": value})

    async def _protect(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        kind, timing = position.data.get("kind"), position.data.get("timing")
        if not isinstance(kind, str) or not isinstance(timing, str):
            return NOT_A_CHOICE  # the earlier answers are lost
        advice = [ctx.text(_ADVICE[answer]) for answer in (kind, timing, value)]
        return Next(END, before=[Reply("\n\n".join([ctx.text(Msg.CT_SUMMARY), *advice]))])
