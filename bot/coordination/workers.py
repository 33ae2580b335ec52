"""What this worker shares with the others: chosen by the database the settings name.

SQLite: one worker, so roles are its own, a user's updates take turns in this process,
and the platforms' limits are kept by its own limiters. PostgreSQL: roles through
advisory locks, turns through a per-user advisory lock, one send budget in the
database. The turns use a pool of their own: a turn holds its connection for a whole
update, and must never wait for one the update needs itself. The budget has another, so
that a crisis reply never waits for a connection thirty-two updates hold.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from bot.config import Settings
from bot.coordination.leadership import Leadership, OnlyWorker
from bot.coordination.send_budget import LocalBudget, SendBudget, SharedBudget
from bot.coordination.user_turns import DatabaseTurns, InProcessTurns, UserTurns
from bot.observability.metrics import Metrics

# Updates of different users handled at once, each holding a connection for its turn;
# more wait for a free one (a user's own next update waits in this process anyway).
TURN_CONNECTIONS = 32
# Asks of the send budget: one bulk ask at a time, two replies', the dating of returned
# sends, and at least one left for an urgent ask (see SharedBudget).
BUDGET_CONNECTIONS = 5
SETTLE_AT_STOP_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class Coordination:
    leadership: Leadership
    turns: UserTurns
    budget: SendBudget
    shared: bool  # several workers may share the database


@asynccontextmanager
async def coordination(settings: Settings, metrics: Metrics) -> AsyncIterator[Coordination]:
    url = settings.database_url
    if url is None:
        yield Coordination(OnlyWorker(), InProcessTurns(), LocalBudget(), shared=False)
        return
    # Imported here: a SQLite install never loads the PostgreSQL driver.
    import asyncpg  # noqa: PLC0415

    from bot.coordination.advisory_leadership import AdvisoryLeadership  # noqa: PLC0415

    pool = await asyncpg.create_pool(url, min_size=1, max_size=TURN_CONNECTIONS)
    try:
        budget_pool = await asyncpg.create_pool(url, min_size=1, max_size=BUDGET_CONNECTIONS)
        budget = SharedBudget(budget_pool)
        try:
            yield Coordination(
                AdvisoryLeadership(url, metrics), DatabaseTurns(pool), budget, shared=True
            )
        finally:
            with contextlib.suppress(Exception):  # undated rows age out by themselves
                await asyncio.wait_for(budget.settled(), SETTLE_AT_STOP_SECONDS)
            await budget_pool.close()
    finally:
        await pool.close()
