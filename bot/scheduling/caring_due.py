"""Caring checks as a kind of due work: the one message a user asked for after a crisis
reply, on the user's "tomorrow" at their check-in time (10:00 without one), kept between
12 and 30 hours after the offer, inside waking hours and outside quiet hours.

It was asked for, so a pause of check-ins does not hold it back, and neither do check-ins
stopped before the user said yes (the yes came later). Check-ins stopped after the yes
are the user's later word: it is dropped. So is a check for someone unreachable, and one
more than a day late after downtime: it was meant for "tomorrow", not for any day.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from bot.core.events import Address
from bot.core.replies import Reply
from bot.delivery.outgoing import Effect, Outgoing
from bot.scheduling.due import CLAIM_CHUNK, Claimed, DueKind, Tally
from bot.scheduling.planner import (
    FALLBACK_TIMEZONE,
    in_quiet_hours,
    out_of_quiet_hours,
    plan_rule,
    user_zone,
)
from bot.scheduling.rules import LocalRule
from bot.storage import caring_checks, users
from bot.storage.db import Transaction
from bot.storage.queries import from_epoch, to_epoch
from bot.storage.still_there import StillThere, Target
from bot.storage.users import User

KIND = "caring"
WITHOUT_CHECKIN_TIME = time(10, 0)
TOO_LATE = timedelta(days=1)
# Before this local hour, "tomorrow" is the day that is just beginning: someone offered
# a look-in at 02:00 has not slept yet, and means later today.
NIGHT_ENDS = time(5, 0)
# The message comes no sooner and no later than this after the offer: soon enough to
# still be about that night, late enough to be a new day.
SOONEST = timedelta(hours=12)
LATEST = timedelta(hours=30)
# Waking hours, for when the check-in time falls outside the window above and another
# time must be found (the user's own check-in time counts as waking, whenever it is).
WAKING = (time(8, 0), time(22, 0))
_STEP = timedelta(minutes=15)


@dataclass(frozen=True, slots=True)
class ClaimedCheck:
    user: User
    claimed_at: datetime  # names the claim: a later yes or no replaces it


CaringDue = Callable[[Transaction, Sequence[ClaimedCheck]], Awaitable[list[Outgoing]]]


def plan_caring_check(user: User, checkin_time: str | None, now: datetime) -> datetime:
    """When the look-in goes out: the user's "tomorrow" (today, before 05:00 local) at
    `checkin_time` (or 10:00); if that is not 12 to 30 hours away, the time in that
    window nearest to it that is waking (08:00-22:00 local) and outside quiet hours. A
    time a clock change skips moves forward, as check-ins do."""
    wall = WITHOUT_CHECKIN_TIME if checkin_time is None else time.fromisoformat(checkin_time)
    rule = LocalRule(user.timezone or FALLBACK_TIMEZONE, wall)
    local = now.astimezone(user_zone(user))
    day = local.date() if local.time() < NIGHT_ENDS else local.date() + timedelta(days=1)
    day_starts = datetime.combine(day, time(0), tzinfo=local.tzinfo).astimezone(now.tzinfo)
    preferred, _ = plan_rule(rule, day_starts, last_local_date=day - timedelta(days=1))
    if _allowed(user, preferred, now):  # their own check-in time counts as waking
        return preferred
    candidates = []
    instant = now + SOONEST
    while instant <= now + LATEST:
        if _allowed(user, instant, now) and _waking(user, instant):
            candidates.append(instant)
        instant += _STEP
    if not candidates:  # quiet hours cover every waking hour of the window: after them
        return out_of_quiet_hours(user, min(max(preferred, now + SOONEST), now + LATEST))
    # The nearest to their own time; of two as near, the one on the day meant.
    return min(
        candidates,
        key=lambda candidate: (
            abs(candidate - preferred),
            candidate.astimezone(user_zone(user)).date() != day,
        ),
    )


def _allowed(user: User, instant: datetime, now: datetime) -> bool:
    return now + SOONEST <= instant <= now + LATEST and not in_quiet_hours(user, instant)


def _waking(user: User, instant: datetime) -> bool:
    wall = instant.astimezone(user_zone(user)).time()
    return WAKING[0] <= wall <= WAKING[1]


def local_date(user: User, instant: datetime) -> date:
    return instant.astimezone(user_zone(user)).date()


def caring_outgoing(address: Address, reply: Reply, check: ClaimedCheck) -> Outgoing:
    """Not sent once the user said no, asked again, or was forgotten. The claim ends once
    the platform took it, or refused the person (who is then unreachable, as for any
    message: it is never tried again)."""
    claim = StillThere(Target.CARING, check.user.id, to_epoch(check.claimed_at))
    return Outgoing(
        address,
        reply,
        guard=claim,
        on_delivered=Effect.CARING_ENDED,
        on_refused=Effect.CARING_REFUSED,
    )


async def caring_ended(
    tx: Transaction, now: datetime, claim: StillThere, to: Address
) -> Sequence[Outgoing]:
    """The claim (`claim.stamp`) is over: delivered, or refused by the platform."""
    assert claim.stamp is not None, "a caring check's guard names its claim"
    await caring_checks.end_claim(tx, claim.id, from_epoch(claim.stamp))
    return ()


async def caring_refused(
    tx: Transaction, now: datetime, claim: StillThere, to: Address
) -> Sequence[Outgoing]:
    await caring_ended(tx, now, claim, to)
    await users.mark_unreachable(tx, to, now)
    return ()


async def claim_caring_checks(tx: Transaction, now: datetime) -> Claimed[ClaimedCheck]:
    due = await caring_checks.due_checks(tx, now, CLAIM_CHUNK)
    send: list[ClaimedCheck] = []
    later: list[tuple[int, datetime]] = []
    closed: list[int] = []
    missed = unreachable = 0
    for check in due:
        user = check.user
        if user.unreachable_since is not None:
            unreachable += 1
            closed.append(user.id)
        elif user.checkins_stopped and not check.asked_while_stopped:
            closed.append(user.id)
        elif now - check.due_at > TOO_LATE:
            missed += 1
            closed.append(user.id)
        elif in_quiet_hours(user, now):  # back from downtime, or quiet hours changed since
            later.append((user.id, out_of_quiet_hours(user, now)))
        else:
            send.append(ClaimedCheck(user, now))
    await caring_checks.claim_checks(tx, [check.user.id for check in send], now)
    await caring_checks.postpone_checks(tx, later)
    await caring_checks.close_checks(tx, closed)
    tally = Tally(
        claimed=len(send) + len(closed), missed=missed, unreachable=unreachable, deferred=len(later)
    )
    return Claimed(send, tally, more=len(due) >= CLAIM_CHUNK)


def caring_kind(caring_due: CaringDue) -> DueKind[ClaimedCheck]:
    """Due caring checks, written by `caring_due` (the caring feature's handler)."""
    return DueKind(KIND, claim_caring_checks, caring_due, caring_checks.next_check_due)
