"""The /plan read as text: every part under its title, the empty ones said so, and "My
plan" under a crisis reply, read within a bound so a stalled disk gets a kind line.

What the plan is made of is `bot.flows.plan_parts`; the flow that writes it is
`bot.flows.plan`, and the plan shown with its buttons `bot.flows.plan_shown`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from bot.content_pack.ids import PlanMsg
from bot.core.replies import Reply
from bot.flows.context import FlowContext
from bot.flows.plan_parts import REASONS_SECTION, SECTIONS
from bot.logs import get_logger, log_event
from bot.storage import safety_plans
from bot.storage.queries import Queryable
from bot.storage.user_texts import TextKind, list_texts
from bot.storage.users import User

# The logger the plan's events have always gone to.
log = get_logger("plan")

# "My plan" under a crisis reply reads the plan; a stalled disk gets a kind line instead.
PLAN_READ_SECONDS = 2.0


async def plan_text(ctx: FlowContext, user_id: int) -> str:
    """The whole plan, readable: every part under its title, the empty ones said so."""
    stored = await safety_plans.read_plan(ctx.db, ctx.cipher, user_id)
    return await _readable(ctx, ctx.db, user_id, stored)


async def _readable(
    ctx: FlowContext, db: Queryable, user_id: int, stored: Sequence[safety_plans.PlanPart]
) -> str:
    parts = {part.part: part.text for part in stored}
    reasons = await list_texts(db, ctx.cipher, TextKind.REASON, user_id)
    empty = ctx.text(PlanMsg.PLAN_PART_EMPTY)
    blocks = [ctx.text(PlanMsg.PLAN_HEADING)]
    for n, section in enumerate(SECTIONS, start=1):
        if section is REASONS_SECTION:
            held = [f"• {reason.text}" for reason in reasons]
        else:
            held = [parts[part] for part in section.parts if part in parts]
        body = "\n".join(held) if held else empty
        blocks.append(f"{n}. {ctx.text(section.title)}\n{body}")
    return "\n\n".join(blocks)


async def plan_on_request(ctx: FlowContext, user: User | None) -> list[Reply]:
    """ "My plan" under a crisis reply or /sos: the plan to read, nothing to answer, so the
    question the user was in stays open. A read that stalls or fails gets a kind line."""
    if user is None:
        return [ctx.reply(PlanMsg.PLAN_UNAVAILABLE)]

    async def read() -> str | None:
        # Bounded below (PLAN_READ_SECONDS): read where that bound holds.
        stored = await safety_plans.read_plan(ctx.db.bounded, ctx.cipher, user.id)
        return await _readable(ctx, ctx.db.bounded, user.id, stored) if stored else None

    try:
        text = await asyncio.wait_for(read(), PLAN_READ_SECONDS)
    except Exception as error:  # a stall (TimeoutError) too: the crisis reply is out already
        log_event(log, "plan.read_failed", logging.WARNING, exc_info=error)
        return [ctx.reply(PlanMsg.PLAN_UNAVAILABLE)]
    if text is None:
        return [ctx.reply(PlanMsg.PLAN_NONE)]
    # protect: the plan quotes the user's own words.
    return [Reply(f"{text}\n\n{ctx.text(PlanMsg.PLAN_CHANGE_HINT)}", protect=True)]
