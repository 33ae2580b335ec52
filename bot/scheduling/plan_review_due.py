"""The offer to look over one's safety plan, every four weeks, as a kind of due work.

Only for users who asked for it. It comes at the user's check-in time (or a calm morning
hour if they set none), on one of their days, never in their quiet hours or a pause, and
never in the middle of another conversation: any of those moves it on, it is not sent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, time, timedelta

from bot.delivery.outgoing import Outgoing
from bot.scheduling.checkin_due import DEFER_WHEN_BUSY, CheckInFlow, is_busy
from bot.scheduling.due import CLAIM_CHUNK, Claimed, DueKind, Tally
from bot.scheduling.planner import (
    FALLBACK_TIMEZONE,
    in_quiet_hours,
    out_of_quiet_hours,
    plan_rule,
    user_zone,
)
from bot.scheduling.rules import LocalRule
from bot.storage import safety_plans
from bot.storage.db import Transaction
from bot.storage.users import User

KIND = "plan_review"
REVIEW_EVERY = timedelta(days=28)
# For someone who never set a check-in time: late morning, unlikely to wake anyone.
DEFAULT_REVIEW_TIME = "10:00"

ReviewsDue = Callable[[Transaction, Sequence[User]], Awaitable[list[Outgoing]]]


def review_after(user: User, checkin_time: str | None, sent: datetime) -> datetime:
    """Four weeks of local dates on from `sent`, at the check-in time of that day (or the
    first of the user's days after it): the same day of the week, whatever hour it went."""
    local = (sent + REVIEW_EVERY).astimezone(user_zone(user))
    midnight = datetime.combine(local.date(), time(0), tzinfo=local.tzinfo)
    return next_review_at(user, checkin_time, midnight.astimezone(sent.tzinfo))


def next_review_at(user: User, checkin_time: str | None, not_before: datetime) -> datetime:
    """The first of the user's check-in times at or after `not_before` (after any pause),
    on one of their days, moved past their quiet hours if it falls inside them."""
    start = not_before
    if user.paused_until is not None and user.paused_until > start:
        start = user.paused_until
    at = time.fromisoformat(checkin_time or DEFAULT_REVIEW_TIME)
    rule = LocalRule(user.timezone or FALLBACK_TIMEZONE, at, user.weekdays)
    instant, _ = plan_rule(rule, start, None)
    return out_of_quiet_hours(user, instant)


class ReviewClaims:
    def __init__(self, checkin: CheckInFlow, grace: timedelta) -> None:
        self._checkin = checkin
        self._grace = grace

    async def claim(self, tx: Transaction, now: datetime) -> Claimed[User]:
        due = await safety_plans.due_reviews(tx, now, CLAIM_CHUNK)
        send: list[User] = []
        moves: list[tuple[int, datetime]] = []
        missed = deferred = unreachable = 0
        for review in due:
            user, at = review.user, review.checkin_time
            paused = user.paused_until is not None and user.paused_until > now
            if user.unreachable_since is not None:
                unreachable += 1  # tried again next time round, not every tick
                moves.append((user.id, review_after(user, at, now)))
            elif now - review.due_at > self._grace:
                missed += 1  # missed while we were down: at their time next day instead
                moves.append((user.id, next_review_at(user, at, now)))
            elif paused or in_quiet_hours(user, now):
                deferred += 1
                moves.append((user.id, next_review_at(user, at, now)))
            elif is_busy(review.whereabouts, now, self._checkin, any_flow=True):
                deferred += 1
                moves.append((user.id, now + DEFER_WHEN_BUSY))
            else:
                send.append(user)
                moves.append((user.id, review_after(user, at, now)))
        await safety_plans.move_reviews(tx, moves)
        # Like check-ins, every offer taken off the schedule counts as claimed, sent or not.
        tally = Tally(len(due), missed, unreachable, deferred)
        return Claimed(send, tally, more=len(due) >= CLAIM_CHUNK)


def plan_review_kind(
    checkin: CheckInFlow,
    reviews_due: ReviewsDue,
    grace: timedelta,
) -> DueKind[User]:
    """Due review offers, written by `reviews_due` (the plan flow's handler)."""
    return DueKind(
        KIND, ReviewClaims(checkin, grace).claim, reviews_due, safety_plans.next_review_due
    )
