"""/affirm: one affirmation, never repeated until the user has seen them all."""

from __future__ import annotations

import random

from bot.content_pack.rotation import pick_unseen
from bot.core.replies import Reply
from bot.flows.context import FlowContext
from bot.storage import affirmations_seen


async def affirm(ctx: FlowContext, rng: random.Random) -> list[Reply]:
    user = await ctx.ensure_user()
    seen = await affirmations_seen.seen_affirmations(ctx.db, user.id)
    pick = pick_unseen(ctx.services.content.affirmations(ctx.locale), seen, rng)
    async with ctx.db.transaction() as tx:
        if pick.starts_new_round:
            await affirmations_seen.start_new_round(tx, user.id)
        await affirmations_seen.mark_seen(tx, user.id, pick.item.id, ctx.now())
    return [Reply(pick.item.text)]
