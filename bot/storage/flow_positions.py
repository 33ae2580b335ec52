"""Where each user stands in a flow. One row per user at most."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime

from bot.storage.db import Row, Transaction
from bot.storage.queries import Queryable, from_epoch, to_epoch

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
    # When the user was put at this step: an answer that comes much later is not one.
    since: datetime | None = None


async def get_position(db: Queryable, user_id: int) -> FlowPosition | None:
    row = await db.fetch_one(
        "SELECT flow, step, token, data, updated_at FROM flow_positions WHERE user_id = ?",
        (user_id,),
    )
    return None if row is None else _position(row)


def _position(row: Row) -> FlowPosition:
    data = json.loads(row["data"])
    return FlowPosition(row["flow"], row["step"], row["token"], data, from_epoch(row["updated_at"]))


async def get_position_and_prompt(
    db: Queryable, user_id: int
) -> tuple[FlowPosition | None, StoredPrompt | None]:
    """`get_position` and `get_prompt` in one read (the router asks both after each event)."""
    row = await db.fetch_one(
        "SELECT flow, step, token, data, updated_at, prompt, prompt_buttons"
        " FROM flow_positions WHERE user_id = ?",
        (user_id,),
    )
    if row is None:
        return None, None
    return _position(row), None if row["prompt"] is None else _prompt(row)


def new_token() -> str:
    return secrets.token_hex(TOKEN_BYTES)


def new_tokens(count: int) -> list[str]:
    """`count` tokens like `new_token`'s, from one read of the system's randomness
    (a due minute opens thousands of check-ins; a read each is a system call each)."""
    drawn = secrets.token_hex(TOKEN_BYTES * count)
    width = TOKEN_BYTES * 2
    return [drawn[start : start + width] for start in range(0, len(drawn), width)]


@dataclass(frozen=True, slots=True)
class Placement:
    user_id: int
    position: FlowPosition


async def move_many(tx: Transaction, placements: list[Placement], now: datetime) -> None:
    """Place many users at once, skipping any whose row is gone (forgotten meanwhile).

    Users placed at the same step usually share one data dict (a due check-in's): it
    is written out as JSON once, not once per user.
    """
    written: dict[int, str] = {}

    def encoded(data: FlowData) -> str:
        text = written.get(id(data))
        if text is None:
            text = written[id(data)] = json.dumps(data, separators=(",", ":"))
        return text

    moved_at = to_epoch(now)
    await tx.executemany(
        "INSERT INTO flow_positions (user_id, flow, step, token, data, updated_at)"
        " SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM users WHERE id = ?)"
        " ON CONFLICT (user_id) DO UPDATE SET flow = excluded.flow, step = excluded.step,"
        " token = excluded.token, data = excluded.data, updated_at = excluded.updated_at,"
        " prompt = NULL, prompt_buttons = NULL",
        [
            (
                placed.user_id,
                placed.position.flow,
                placed.position.step,
                placed.position.token,
                encoded(placed.position.data),
                moved_at,
                placed.user_id,
            )
            for placed in placements
        ],
    )


_UPSERT = (
    "INSERT INTO flow_positions (user_id, flow, step, token, data, updated_at)"
    " VALUES (?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (user_id) DO UPDATE SET flow = excluded.flow, step = excluded.step,"
    " token = excluded.token, data = excluded.data, updated_at = excluded.updated_at,"
    " prompt = NULL, prompt_buttons = NULL"
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
    position = FlowPosition(flow, step, new_token(), dict(data or {}), now)
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


ButtonRows = tuple[tuple[tuple[str, str], ...], ...]  # (label, data) per button


@dataclass(frozen=True, slots=True)
class StoredPrompt:
    """The question shown at the current step: its text sealed, its buttons as they were."""

    token: str
    sealed_text: bytes
    buttons: ButtonRows


async def record_prompt(
    tx: Transaction, user_id: int, token: str, sealed_text: bytes, buttons: ButtonRows
) -> None:
    """Keep the question of step `token`; nothing happens if the user has moved on since."""
    await tx.execute(
        "UPDATE flow_positions SET prompt = ?, prompt_buttons = ? WHERE user_id = ? AND token = ?",
        (sealed_text, json.dumps(buttons, separators=(",", ":")), user_id, token),
    )


async def get_prompt(db: Queryable, user_id: int) -> StoredPrompt | None:
    row = await db.fetch_one(
        "SELECT token, prompt, prompt_buttons FROM flow_positions"
        " WHERE user_id = ? AND prompt IS NOT NULL",
        (user_id,),
    )
    return None if row is None else _prompt(row)


def _prompt(row: Row) -> StoredPrompt:
    rows = json.loads(row["prompt_buttons"] or "[]")
    buttons = tuple(tuple((str(label), str(data)) for label, data in line) for line in rows)
    return StoredPrompt(row["token"], bytes(row["prompt"]), buttons)
