"""Is what a queued message is for still there? Asked for many messages in one statement.

A scheduled message waits in the outbox before it is sent; meanwhile its user may
have used /forget, its follow-up been answered, its group reminder been paused.
Each message names what must still exist (a `StillThere`: a kind of target and
its id), and the outbox asks about every message it is about to send at once,
instead of one query per message (10,000 due check-ins spent most of their
hand-over in those queries).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum

from bot.storage.queries import Queryable

# SQLite allows far more parameters, but a statement this size stays quick to prepare.
_MAX_IDS_PER_STATEMENT = 900


class Target(StrEnum):
    USER = "user"  # not forgotten
    FOLLOWUP = "followup"  # not delivered yet (a forgotten user's follow-ups are deleted)
    REMINDER = "reminder"  # a group reminder neither paused nor deleted


# Each target's rows that still count as there, among the ids given.
_STILL_THERE = {
    Target.USER: "SELECT id FROM users WHERE id IN ({ids})",
    Target.FOLLOWUP: "SELECT id FROM followups WHERE delivered_at IS NULL AND id IN ({ids})",
    Target.REMINDER: "SELECT id FROM group_reminders WHERE paused IS NULL AND id IN ({ids})",
}


@dataclass(frozen=True, slots=True)
class StillThere:
    """A message's guard that the outbox can check together with others' (see `present`).

    Called on its own, it checks just this one.
    """

    target: Target
    id: int

    async def __call__(self, db: Queryable) -> bool:
        return self in await present(db, (self,))


async def present(db: Queryable, keys: Collection[StillThere]) -> set[StillThere]:
    """Those of `keys` still there, in one statement (more only past a few hundred ids)."""
    wanted: list[tuple[Target, int]] = sorted({(key.target, key.id) for key in keys})
    found: set[StillThere] = set()
    for start in range(0, len(wanted), _MAX_IDS_PER_STATEMENT):
        part = wanted[start : start + _MAX_IDS_PER_STATEMENT]
        selects: list[str] = []
        params: list[int] = []
        for target in Target:
            ids = [key_id for key_target, key_id in part if key_target is target]
            if ids:
                inner = _STILL_THERE[target].format(ids=",".join("?" * len(ids)))
                selects.append(f"SELECT '{target.value}' AS target, id FROM ({inner}) AS found")
                params += ids
        rows = await db.fetch_all(" UNION ALL ".join(selects), tuple(params))
        found.update(StillThere(Target(row["target"]), row["id"]) for row in rows)
    return found
