"""Urge-timer follow-ups as a kind of due work: the user asked for these, so they go
out even late.

Someone in the middle of another conversation gets theirs a few minutes later;
someone unreachable does not get it at all (it is closed, not retried).
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.core.events import Address
from bot.core.replies import Reply
from bot.delivery.outgoing import Effect, Outgoing
from bot.scheduling.checkin_due import CheckInFlow, is_busy
from bot.scheduling.due import CLAIM_CHUNK, Claimed, DueKind
from bot.storage import claims, urges
from bot.storage.claims import Whereabouts
from bot.storage.db import Transaction
from bot.storage.still_there import StillThere, Target
from bot.storage.users import User

KIND = "followup"
# A follow-up claimed but not confirmed sent within the lease is claimed again:
# the process may have died between claiming and sending.
FOLLOWUP_LEASE = timedelta(minutes=2)
FOLLOWUP_WHEN_BUSY = timedelta(minutes=3)

FollowupsDue = Callable[[Transaction, Sequence[tuple[int, User]]], Awaitable[list[Outgoing]]]


@dataclass(frozen=True, slots=True)
class FollowupStep:
    """Where a sent follow-up's own question sits: a position there is not "busy"."""

    flow: str
    step: str


def followup_outgoing(
    address: Address, reply: Reply, followup_id: int, user_row_id: int | None = None
) -> Outgoing:
    """A follow-up's message: not sent once delivered or forgotten, marked delivered once
    the platform accepted it."""
    pending = StillThere(Target.FOLLOWUP, followup_id)
    return Outgoing(
        address,
        reply,
        guard=pending,
        on_delivered=Effect.FOLLOWUP_DELIVERED,
        user_row_id=user_row_id,
    )


async def followup_delivered(
    tx: Transaction, now: datetime, followup: StillThere, to: Address
) -> Sequence[Outgoing]:
    await urges.mark_followup_delivered(tx, followup.id, now)
    return ()


class FollowupClaims:
    def __init__(self, checkin: CheckInFlow, own_step: FollowupStep) -> None:
        self._checkin = checkin
        self._own_step = own_step
        # Names this process's claims: only another (dead) process's claim is ever
        # taken over, so a send that is merely slow here is never repeated.
        self._claimer = secrets.token_hex(8)

    async def claim(self, tx: Transaction, now: datetime) -> Claimed[tuple[int, User]]:
        due = await claims.due_followups(tx, now, self._claimer, now - FOLLOWUP_LEASE, CLAIM_CHUNK)
        claimed: list[tuple[int, User]] = []
        later: list[tuple[int, datetime]] = []
        closed: list[int] = []
        for followup in due:
            place = followup.whereabouts
            if followup.user.unreachable_since is not None:
                closed.append(followup.followup_id)
            elif is_busy(place, now, self._checkin, any_flow=True) and not self._awaiting(place):
                later.append((followup.followup_id, now + FOLLOWUP_WHEN_BUSY))
            else:
                claimed.append((followup.followup_id, followup.user))
        await claims.claim_followups(
            tx, [followup_id for followup_id, _ in claimed], self._claimer, now
        )
        await claims.postpone_followups(tx, later)
        await claims.close_followups(tx, closed, now)
        # Claimed, postponed past now or closed: none is taken again by the next chunk.
        return Claimed(claimed, more=len(due) >= CLAIM_CHUNK)

    def _awaiting(self, place: Whereabouts) -> bool:
        """The position is this very follow-up's question, sent before a crash: not busy."""
        return place.flow == self._own_step.flow and place.step == self._own_step.step


def followup_kind(
    checkin: CheckInFlow, own_step: FollowupStep, followups_due: FollowupsDue
) -> DueKind[tuple[int, User]]:
    """Due follow-ups, asked by `followups_due` (the pause flow's handler)."""
    return DueKind(
        KIND, FollowupClaims(checkin, own_step).claim, followups_due, claims.next_followup_due
    )
