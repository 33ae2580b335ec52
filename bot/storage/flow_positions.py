"""Where each user stands in a flow. One row per user at most."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime

from bot.storage.db import Transaction
from bot.storage.queries import Queryable, to_epoch

# Scratch values a flow carries between steps (a chosen mood, a menu choice).
# Never the user's free text: that is encrypted and lives in its own tables.
FlowData = dict[str, str | int | None]

TOKEN_BYTES = 4  # 8 hex characters: enough to tell steps apart, small enough for button data


@dataclass(frozen=True, slots=True)
class FlowPosition:
    flow: str
    step: str
    token: str
    data: FlowData = field(default_factory=dict)


async def get_position(db: Queryable, user_id: int) -> FlowPosition | None:
    row = await db.fetch_one(
        "SELECT flow, step, token, data FROM flow_positions WHERE user_id = ?", (user_id,)
    )
    if row is None:
        return None
    return FlowPosition(row["flow"], row["step"], row["token"], json.loads(row["data"]))


def new_token() -> str:
    return secrets.token_hex(TOKEN_BYTES)


@dataclass(frozen=True, slots=True)
class Placement:
    user_id: int
    position: FlowPosition


async def move_many(tx: Transaction, placements: list[Placement], now: datetime) -> None:
    """Place many users at once, skipping any whose row is gone (forgotten meanwhile)."""
    await tx.executemany(
        "INSERT INTO flow_positions (user_id, flow, step, token, data, updated_at)"
        " SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM users WHERE id = ?)"
        " ON CONFLICT (user_id) DO UPDATE SET flow = excluded.flow, step = excluded.step,"
        " token = excluded.token, data = excluded.data, updated_at = excluded.updated_at",
        [
            (
                placed.user_id,
                placed.position.flow,
                placed.position.step,
                placed.position.token,
                json.dumps(placed.position.data, separators=(",", ":")),
                to_epoch(now),
                placed.user_id,
            )
            for placed in placements
        ],
    )


_UPSERT = (
    "INSERT INTO flow_positions (user_id, flow, step, token, data, updated_at)"
    " VALUES (?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (user_id) DO UPDATE SET flow = excluded.flow, step = excluded.step,"
    " token = excluded.token, data = excluded.data, updated_at = excluded.updated_at"
)


async def move_to(
    tx: Transaction,
    user_id: int,
    flow: str,
    step: str,
    now: datetime,
    data: FlowData | None = None,
) -> FlowPosition:
    """Put the user at `step`, with a fresh token so older buttons go stale."""
    position = FlowPosition(flow, step, new_token(), dict(data or {}))
    await tx.execute(
        _UPSERT,
        (
            user_id,
            flow,
            step,
            position.token,
            json.dumps(position.data, separators=(",", ":")),
            to_epoch(now),
        ),
    )
    return position


async def leave_flow(tx: Transaction, user_id: int) -> bool:
    """Forget the user's position; True if they were in a flow."""
    return await tx.execute("DELETE FROM flow_positions WHERE user_id = ?", (user_id,)) > 0


async def token_holder(db: Queryable, token: str) -> int | None:
    """Whose current step this token belongs to, if anyone's."""
    row = await db.fetch_one("SELECT user_id FROM flow_positions WHERE token = ?", (token,))
    return None if row is None else int(row["user_id"])
