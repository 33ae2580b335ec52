"""Is what a queued message is for still there? Checked in SQL, as the message leaves.

A scheduled message waits in the outbox before it is sent; meanwhile its user may
have used /forget, its follow-up been answered, its group reminder been paused.
Each message names what must still be there (a `StillThere`: a kind of target, its
id and, for a claim, its time), stored with its outbox row. The statement that lets
a round of messages go (`bot/storage/outbox_rows.py`) drops those whose target is
gone, for the whole round at once, so each is still checked at the last moment.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Target(StrEnum):
    USER = "user"  # not forgotten
    FOLLOWUP = "followup"  # not delivered yet (a forgotten user's follow-ups are deleted)
    REMINDER = "reminder"  # a group reminder neither paused nor deleted
    HARD_DATE = "hard_date"  # a hard date not deleted
    CARING = "caring"  # a caring check still claimed at `stamp` (not cancelled, replaced)
    PLAN_REVIEW = "plan_review"  # the four-weekly plan note still asked for


@dataclass(frozen=True, slots=True)
class StillThere:
    """What must still be there for a message to go: `id` is the target's row (for
    CARING and PLAN_REVIEW, the user's), `stamp` the claim's time in epoch seconds."""

    target: Target
    id: int
    stamp: int | None = None


# Each target's test, on the outbox row `o`: true while the target is still there.
_HOLDS = {
    Target.USER: "EXISTS (SELECT 1 FROM users AS t WHERE t.id = o.guard_id)",
    Target.FOLLOWUP: (
        "EXISTS (SELECT 1 FROM followups AS t WHERE t.id = o.guard_id AND t.delivered_at IS NULL)"
    ),
    Target.REMINDER: (
        "EXISTS (SELECT 1 FROM group_reminders AS t WHERE t.id = o.guard_id AND t.paused IS NULL)"
    ),
    Target.HARD_DATE: "EXISTS (SELECT 1 FROM hard_dates AS t WHERE t.id = o.guard_id)",
    Target.CARING: (
        "EXISTS (SELECT 1 FROM caring_checks AS t WHERE t.user_id = o.guard_id"
        " AND t.claimed_at = o.guard_stamp)"
    ),
    Target.PLAN_REVIEW: "EXISTS (SELECT 1 FROM plan_reviews AS t WHERE t.user_id = o.guard_id)",
}

# True for an outbox row `o` whose message is still wanted.
STILL_WANTED = "(o.guard_target IS NULL OR CASE o.guard_target {} ELSE FALSE END)".format(
    " ".join(f"WHEN '{target.value}' THEN {test}" for target, test in _HOLDS.items())
)
