"""Due check-ins as a kind of due work: claim the due slots and snoozes, decide who is
asked now, and hand those to the check-in flow's handler.

Claiming, advancing and writing the check-in to the outbox table happen together,
before anything is sent, so a crash between claim and send never repeats it (the slot
already points at its next local date) and no longer loses it either: the outbox row
is sent by another worker, or by the next run. Claims come in chunks of
CLAIM_CHUNK slots (then snoozes), each in its own transaction, so a minute with
50,000 due never holds the event loop for long; a user's due slots and snooze are
always claimed in the same chunk, so they still make one check-in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.core.events import CheckInDue
from bot.delivery.outgoing import Outgoing
from bot.scheduling.due import CLAIM_CHUNK, Claimed, DueKind, Tally
from bot.scheduling.planner import in_quiet_hours, out_of_quiet_hours, plan_slot, user_zone
from bot.storage import claims
from bot.storage.claims import DueSlot, DueSnooze, SlotAdvance, Whereabouts
from bot.storage.db import Transaction
from bot.storage.still_there import StillThere, Target
from bot.storage.users import User

KIND = "checkin"
# Slots (or snoozes) claimed per transaction: some tens of ms of work on a busy machine,
# after which replies waiting for the event loop or the database get their turn.
# Someone in the middle of another conversation (settings, onboarding) is not
# interrupted by a routine check-in; it comes back a little later instead.
ACTIVE_FLOW_WINDOW = timedelta(minutes=10)
DEFER_WHEN_BUSY = timedelta(minutes=15)

StartDue = Callable[[Transaction, Sequence[CheckInDue]], Awaitable[list[Outgoing]]]


@dataclass(frozen=True, slots=True)
class CheckInFlow:
    """How the claim recognises the check-in's own question in a user's position."""

    name: str  # the flow's name
    first_step: str  # its first question: unanswered, a new check-in may replace it


def while_known(user_id: int) -> StillThere:
    """A message for this user, dropped if they are forgotten while it waits."""
    return StillThere(Target.USER, user_id)


def is_busy(place: Whereabouts, now: datetime, flow: CheckInFlow, any_flow: bool = False) -> bool:
    """In the middle of a conversation, judged by its last step being recent.

    A routine check-in replaces an unanswered earlier one unless `any_flow`;
    nothing replaces a conversation the user is actively having.
    """
    if place.flow is None or place.updated_at is None:
        return False
    recent = now - place.updated_at < ACTIVE_FLOW_WINDOW
    return recent and (any_flow or place.flow != flow.name or _answered_part(place, flow))


def _answered_part(place: Whereabouts, flow: CheckInFlow) -> bool:
    """A check-in past its first question is being answered: do not reset it."""
    return bool(place.step and place.step != flow.first_step)


@dataclass
class _Claim:
    user: User
    due_at: datetime
    busy: bool
    closes_question: bool = False  # the check-in replaces another open question


class CheckInClaims:
    def __init__(self, flow: CheckInFlow, grace: timedelta, step_expiry: timedelta) -> None:
        self._flow = flow
        self._grace = grace
        self._step_expiry = step_expiry

    async def claim(self, tx: Transaction, now: datetime) -> Claimed[CheckInDue]:
        """One chunk: due slots first; once they are all claimed, due snoozes."""
        found, missed, more = await self._claim_slots(tx, now)
        if not more:
            snoozed, more = await self._claim_snoozes(tx, now)
            found += snoozed
        due, tally = await self._decide(tx, found, now)
        return Claimed(
            due, Tally(len(found) + missed, missed, tally.unreachable, tally.deferred), more
        )

    async def _claim_slots(self, tx: Transaction, now: datetime) -> tuple[list[_Claim], int, bool]:
        slots = await claims.due_checkins(tx, now, CLAIM_CHUNK)
        found: list[_Claim] = []
        missed = 0
        for slot in slots:
            if now - slot.due_at > self._grace:
                missed += 1
                continue
            found.append(self._claimed(slot, now))
        await claims.advance_slots(tx, [_advance(slot, now) for slot in slots])
        # A snooze due as well is part of this check-in, not a second one.
        await claims.drop_due_snoozes(tx, sorted({claim.user.id for claim in found}), now)
        return found, missed, len(slots) >= CLAIM_CHUNK

    async def _claim_snoozes(self, tx: Transaction, now: datetime) -> tuple[list[_Claim], bool]:
        # A snooze of someone who since paused or stopped check-ins is dropped, not sent.
        found = []
        snoozes = await claims.take_due_snoozes(tx, now, CLAIM_CHUNK)
        for snooze in snoozes:
            user = snooze.user
            paused = user.paused_until is not None and user.paused_until > now
            if now - snooze.due_at <= self._grace and not paused and not user.checkins_stopped:
                found.append(self._claimed(snooze, now))
        return found, len(snoozes) >= CLAIM_CHUNK

    def _claimed(self, due: DueSlot | DueSnooze, now: datetime) -> _Claim:
        place = due.whereabouts
        return _Claim(
            due.user, due.due_at, is_busy(place, now, self._flow), self._open_question(place, now)
        )

    def _open_question(self, place: Whereabouts, now: datetime) -> bool:
        """Another question is open, and not yet expired (an unanswered earlier check-in
        does not count): the check-in that replaces it says so, so a message meant for
        the old question is not taken for an answer to the new one."""
        if place.flow is None or place.updated_at is None:
            return False
        if place.flow == self._flow.name and not _answered_part(place, self._flow):
            return False
        return now - place.updated_at < self._step_expiry

    async def _decide(
        self, tx: Transaction, found: Sequence[_Claim], now: datetime
    ) -> tuple[list[CheckInDue], Tally]:
        due: list[CheckInDue] = []
        later: list[tuple[int, datetime]] = []
        unreachable = 0
        seen: set[int] = set()
        for claim in found:
            user = claim.user
            if user.id in seen:  # two slots due at once after downtime: one check-in
                continue
            seen.add(user.id)
            if user.unreachable_since is not None:
                unreachable += 1
            elif claim.busy or in_quiet_hours(user, now):
                later.append((user.id, out_of_quiet_hours(user, now + DEFER_WHEN_BUSY)))
            else:
                due.append(
                    CheckInDue(
                        address=user.address,
                        due_at=claim.due_at,
                        user_row_id=user.id,
                        locale=user.locale,
                        local_time=now.astimezone(user_zone(user)),
                        discreet=user.discreet,
                        closes_question=claim.closes_question,
                    )
                )
        await claims.defer_checkins(tx, later)
        return due, Tally(unreachable=unreachable, deferred=len(later))


def _advance(slot: DueSlot, now: datetime) -> SlotAdvance:
    """The slot's next firing, on a local date after the one just claimed."""
    planned = plan_slot(slot.user, slot.local_time, now, slot.local_date)
    next_due, next_date = planned if planned is not None else (None, None)
    return SlotAdvance(slot.slot_id, next_due, next_date, slot.local_date)


def checkin_kind(
    flow: CheckInFlow, start_due: StartDue, grace: timedelta, step_expiry: timedelta
) -> DueKind[CheckInDue]:
    """Due check-ins, opened by `start_due` (the check-in flow's handler)."""
    return DueKind(
        KIND,
        CheckInClaims(flow, grace, step_expiry).claim,
        start_due,
        claims.next_checkin_due,
    )
