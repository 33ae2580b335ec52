"""/contacted: they got in touch. A short pause before replying, three questions, then a summary.

kind ──[practical|emotional|not sure]──▶ timing ──[can wait|soon]──▶ protect ──[…]──▶ summary
  └──[they promise, plead or threaten]──▶ their emergency is for emergency services (left)
"""

from __future__ import annotations

from bot.content_pack.ids import Msg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import Choice, FlowContext
from bot.flows.names import FlowName
from bot.safety.countries import country_for_timezone
from bot.storage import flow_positions
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


def _values(rows: tuple[tuple[Choice, ...], ...]) -> frozenset[str]:
    return frozenset(choice.value for row in rows for choice in row)


class Contacted(Flow):
    name = FlowName.CONTACTED

    def __init__(self) -> None:
        self.steps = {
            "offer": Step(on_choice=self.answer_offer),
            "kind": Step(on_choice=self._kind),
            "timing": Step(on_choice=self._timing),
            "protect": Step(on_choice=self._protect),
        }

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        text = f"{ctx.text(Msg.CT_INTRO)}\n\n{ctx.text(Msg.CT_Q_KIND)}"
        return [Reply(text, buttons=await self.show(ctx, "kind", _KIND))]

    async def offer(self, ctx: FlowContext) -> list[Reply]:
        """Free text said they got in touch: ask before starting anything."""
        return [await self.ask(ctx, "offer", Msg.CT_OFFER, _OFFER)]

    async def _kind(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value == "pressure":
            return await self._pressure(ctx)
        if value not in _values(_KIND):
            return [ctx.reply(Msg.USE_BUTTONS)]
        return [await self.ask(ctx, "timing", Msg.CT_Q_TIMING, _TIMING, {"kind": value})]

    async def _pressure(self, ctx: FlowContext) -> list[Reply]:
        """They say they changed, plead, send gifts, or threaten to hurt themselves unless
        the reader returns: their emergency is for emergency services, not for the reader."""
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await flow_positions.leave_flow(tx, user.id)
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
        return [ctx.reply(Msg.CT_PRESSURE_REPLY, emergency=emergency)]

    async def _timing(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value not in _values(_TIMING):
            return [ctx.reply(Msg.USE_BUTTONS)]
        data = {**position.data, "timing": value}
        return [await self.ask(ctx, "protect", Msg.CT_Q_PROTECT, _PROTECT, data)]

    async def _protect(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        kind, timing = position.data.get("kind"), position.data.get("timing")
        if (
            value not in _values(_PROTECT)
            or not isinstance(kind, str)
            or not isinstance(timing, str)
        ):
            return [ctx.reply(Msg.USE_BUTTONS)]
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await flow_positions.leave_flow(tx, user.id)
        advice = [ctx.text(_ADVICE[answer]) for answer in (kind, timing, value)]
        return [Reply("\n\n".join([ctx.text(Msg.CT_SUMMARY), *advice]))]
