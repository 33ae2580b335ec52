"""Caring checks as a kind of due work: the one message a user asked for after a crisis
reply, the next day at their check-in time (10:00 without one), outside quiet hours.

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
from bot.delivery.outbox import Outgoing
from bot.scheduling.due import CLAIM_CHUNK, Claimed, DueKind, Tally
from bot.scheduling.planner import (
    FALLBACK_TIMEZONE,
    in_quiet_hours,
    out_of_quiet_hours,
    plan_rule,
    start_of_next_local_day,
    user_zone,
)
from bot.scheduling.rules import LocalRule
from bot.storage import caring_checks, users
from bot.storage.db import Database, Transaction
from bot.storage.users import User

KIND = "caring"
WITHOUT_CHECKIN_TIME = time(10, 0)
TOO_LATE = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class ClaimedCheck:
    user: User
    claimed_at: datetime  # names the claim: a later yes or no replaces it


CaringDue = Callable[[Transaction, Sequence[ClaimedCheck]], Awaitable[list[Outgoing]]]


def plan_caring_check(user: User, checkin_time: str | None, now: datetime) -> datetime:
    """The user's local tomorrow at `checkin_time` (or 10:00), or the end of their quiet
    hours if that falls inside them. A time a clock change skips moves forward, as
    check-ins do."""
    wall = WITHOUT_CHECKIN_TIME if checkin_time is None else time.fromisoformat(checkin_time)
    rule = LocalRule(user.timezone or FALLBACK_TIMEZONE, wall)
    today = local_date(user, now)
    instant, _ = plan_rule(rule, start_of_next_local_day(user, now), last_local_date=today)
    return out_of_quiet_hours(user, instant)


def local_date(user: User, instant: datetime) -> date:
    return instant.astimezone(user_zone(user)).date()


def caring_outgoing(address: Address, reply: Reply, check: ClaimedCheck) -> Outgoing:
    """Not sent once the user said no, asked again, or was forgotten. The claim ends once
    the platform took it, or refused the person (who is then unreachable, as for any
    message: it is never tried again)."""
    user_id, claimed_at = check.user.id, check.claimed_at

    async def still_wanted(db: Database) -> bool:
        return await caring_checks.still_claimed(db, user_id, claimed_at)

    async def delivered(tx: Transaction, now: datetime) -> None:
        await caring_checks.end_claim(tx, user_id, claimed_at)

    async def refused(tx: Transaction, now: datetime) -> Sequence[Outgoing]:
        await caring_checks.end_claim(tx, user_id, claimed_at)
        await users.mark_unreachable(tx, address, now)
        return []

    return Outgoing(address, reply, guard=still_wanted, on_delivered=delivered, on_refused=refused)


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
