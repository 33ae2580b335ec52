"""Hard dates as a kind of due work: the extra check-in the evening before and the morning of.

Each due date is moved on to its next moment in the claiming transaction, before
anything is sent, so a message can be lost in a crash but never sent twice. The usual
rules hold: nothing while paused, stopped or unreachable, nothing inside quiet hours,
no interrupting a conversation the user is having (it comes a little later instead),
and a moment missed by more than the grace window (the bot was down) is skipped. The
moment is planned again from the user's settings as they are now, so a changed
check-in time, time zone or quiet hours is followed without rewriting every date.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.delivery.outgoing import Outgoing
from bot.scheduling.checkin_due import DEFER_WHEN_BUSY, CheckInFlow, is_busy
from bot.scheduling.due import CLAIM_CHUNK, Claimed, DueKind, Tally
from bot.scheduling.hard_date_plan import DateRule, moment_date, moment_instant, next_upcoming
from bot.scheduling.planner import in_quiet_hours, out_of_quiet_hours, user_zone
from bot.storage import hard_dates
from bot.storage.claims import Whereabouts
from bot.storage.db import Transaction
from bot.storage.hard_dates import DateKind, DueDate, Moment, Upcoming
from bot.storage.users import User

KIND = "hard_date"
# Moments of one date walked through after a long downtime, at most: years of them.
_MOST_STEPS = 64
# A check-in opened this recently (in this very tick) is the user's routine one at the
# same time: the date's words then come without a second question.
_JUST_OPENED = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class DateCheckIn:
    """One extra check-in to send: for `moment` of a date of `kind`."""

    date_id: int
    user: User
    kind: DateKind
    sealed_label: bytes
    moment: Moment
    asks: bool  # False: a routine check-in was just opened, this one adds only its words
    closes_question: bool = False  # another question was open: the check-in closes it


DateCheckInsDue = Callable[[Transaction, Sequence[DateCheckIn]], Awaitable[list[Outgoing]]]


class HardDateClaims:
    def __init__(self, checkin: CheckInFlow, grace: timedelta, step_expiry: timedelta) -> None:
        self._checkin = checkin
        self._grace = grace
        self._step_expiry = step_expiry

    async def claim(self, tx: Transaction, now: datetime) -> Claimed[DateCheckIn]:
        due = await hard_dates.due_dates(tx, now, CLAIM_CHUNK)
        plans: list[tuple[int, Upcoming | None]] = []
        sending: list[DateCheckIn] = []
        missed = deferred = 0
        for found in due:
            send, following = self._decide(found, found.checkin_times, now)
            plans.append((found.id, following))
            if send is not None:
                sending.append(send)
            elif following is not None and following.moment == found.upcoming.moment:
                deferred += 1  # the same moment, a little later
            elif found.upcoming.moment is not Moment.END:
                missed += 1
        await hard_dates.move_on(tx, plans)
        tally = Tally(missed=missed, deferred=deferred)
        return Claimed(sending, tally, more=len(due) >= CLAIM_CHUNK)

    def _decide(
        self, found: DueDate, times: Sequence[str], now: datetime
    ) -> tuple[DateCheckIn | None, Upcoming | None]:
        """What to send now (if anything), and the date's next moment."""
        user, upcoming = found.user, found.upcoming
        rule = DateRule(found.month, found.day, found.year)
        if upcoming.moment is not Moment.END:
            planned = moment_instant(user, times, upcoming.moment, upcoming.on)
            if planned is not None and planned > now:  # settings moved it later
                return None, Upcoming(planned, upcoming.moment, upcoming.on)
        # Walk past every moment already gone (a downtime may have passed several).
        current: Upcoming | None = upcoming
        latest: Upcoming | None = None
        for _ in range(_MOST_STEPS):
            if current is None or current.due_at > now:
                break
            if current.moment is not Moment.END and now - current.due_at <= self._grace:
                latest = current
            current = next_upcoming(user, times, rule, current.due_at)
        if latest is None or not self._wanted(user, now):
            return None, current
        later = self._later(user, found, now)
        if later is not None:
            if moment_date(latest) != later.astimezone(user_zone(user)).date():
                return None, current  # it would arrive on another day: left out
            return None, Upcoming(later, latest.moment, latest.on)
        asks, closes_question = self._how_asked(found.whereabouts, now)
        send = DateCheckIn(
            found.id,
            user,
            found.kind,
            found.sealed_label,
            latest.moment,
            asks=asks,
            closes_question=closes_question,
        )
        return send, current

    def _how_asked(self, place: Whereabouts, now: datetime) -> tuple[bool, bool]:
        """Whether the check-in asks its own question (not when a check-in opened this very
        minute: the routine one at the same time), and whether it says it closes another
        question still open, so a message meant for that one is not read as an answer."""
        at_first_question = place.flow == self._checkin.name and place.step == (
            self._checkin.first_step
        )
        if place.flow is None or place.updated_at is None:
            return True, False
        if at_first_question and now - place.updated_at < _JUST_OPENED:
            return False, False
        still_open = now - place.updated_at < self._step_expiry
        return True, still_open and not at_first_question

    def _wanted(self, user: User, now: datetime) -> bool:
        """Not while paused or stopped (the user said no check-ins), nor unreachable."""
        paused = user.paused_until is not None and user.paused_until > now
        return not (paused or user.checkins_stopped or user.unreachable_since is not None)

    def _later(self, user: User, found: DueDate, now: datetime) -> datetime | None:
        """When to try again if now is not the time (busy, or quiet hours); None: now."""
        if is_busy(found.whereabouts, now, self._checkin):
            return out_of_quiet_hours(user, now + DEFER_WHEN_BUSY)
        if in_quiet_hours(user, now):
            return out_of_quiet_hours(user, now)
        return None


def hard_date_kind(
    checkin: CheckInFlow, checkins_due: DateCheckInsDue, grace: timedelta, step_expiry: timedelta
) -> DueKind[DateCheckIn]:
    """Due hard dates, their extra check-ins built by `checkins_due` (the /dates flow's)."""
    claims = HardDateClaims(checkin, grace, step_expiry)
    return DueKind(KIND, claims.claim, checkins_due, hard_dates.next_date_due)
