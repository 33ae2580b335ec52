"""The tick: claim every due check-in in one transaction, advance it, hand it to the core.

Claiming and advancing happen together, before anything is sent, so a crash
between claim and send loses at most that check-in and can never repeat it:
the slot already points at its next local date.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from bot.core.clock import Clock
from bot.core.events import CheckInDue
from bot.delivery.outbox import Outbox, Outgoing
from bot.flows.checkin import CheckIn, CheckInStep
from bot.flows.context import Services
from bot.flows.names import FlowName
from bot.flows.pause import Pause, PauseStep
from bot.logs import get_logger, log_event
from bot.reminders.posting import claim_due_reminders
from bot.scheduling.planner import in_quiet_hours, out_of_quiet_hours, plan_slot, user_zone
from bot.storage.db import Row, Transaction
from bot.storage.queries import from_epoch, to_epoch
from bot.storage.users import User, user_from_row

log = get_logger("dispatcher")

DEFAULT_GRACE = timedelta(hours=2)
# Someone in the middle of another conversation (settings, onboarding) is not
# interrupted by a routine check-in; it comes back a little later instead.
ACTIVE_FLOW_WINDOW = timedelta(minutes=10)
DEFER_WHEN_BUSY = timedelta(minutes=15)
BATCH_LIMIT = 50_000

_USER_COLUMNS = (
    "u.id, u.platform, u.platform_user_id, u.chat_id, u.locale, u.timezone, u.weekdays,"
    " u.quiet_start, u.quiet_end, u.paused_until, u.checkins_stopped, u.unreachable_since,"
    " u.last_opening_id, u.last_reply_id, u.country, u.discreet, u.created_at, u.onboarded_at,"
    " u.keep_days,"
    " fp.flow AS current_flow, fp.step AS current_step, fp.updated_at AS flow_updated_at"
)

_DUE_SLOTS = f"""
SELECT s.id AS slot_id, s.local_time, s.next_due_at, s.next_local_date, {_USER_COLUMNS}
FROM checkin_slots AS s
JOIN users AS u ON u.id = s.user_id
LEFT JOIN flow_positions AS fp ON fp.user_id = u.id
WHERE s.next_due_at IS NOT NULL AND s.next_due_at <= ?
ORDER BY s.next_due_at
LIMIT ?
"""

# A follow-up claimed but not confirmed sent within the lease is claimed again:
# the process may have died between claiming and sending.
FOLLOWUP_LEASE = timedelta(minutes=2)

_DUE_FOLLOWUPS = f"""
SELECT f.id AS followup_id, {_USER_COLUMNS}
FROM followups AS f
JOIN users AS u ON u.id = f.user_id
LEFT JOIN flow_positions AS fp ON fp.user_id = u.id
WHERE f.delivered_at IS NULL AND f.due_at <= ?
  AND (f.claimed_at IS NULL OR (f.claimed_by <> ? AND f.claimed_at <= ?))
"""
FOLLOWUP_WHEN_BUSY = timedelta(minutes=3)

_DUE_SNOOZES = f"""
SELECT sn.due_at AS next_due_at, {_USER_COLUMNS}
FROM checkin_snoozes AS sn
JOIN users AS u ON u.id = sn.user_id
LEFT JOIN flow_positions AS fp ON fp.user_id = u.id
WHERE sn.due_at <= ?
"""
# A snooze of someone who since paused or stopped check-ins is dropped, not sent.


@dataclass(frozen=True, slots=True)
class TickReport:
    claimed: int = 0
    started: int = 0
    followups: int = 0
    missed: int = 0  # older than the grace window: skipped to the next slot
    unreachable: int = 0
    deferred: int = 0
    reminders: int = 0  # group reminder posts handed to the outbox
    statements: int = 0


@dataclass
class _Claim:
    user: User
    due_at: datetime
    busy: bool
    closes_question: bool = False  # the check-in replaces another open question


class Dispatcher:
    def __init__(
        self,
        services: Services,
        checkin: CheckIn,
        pause: Pause,
        outbox: Outbox,
        grace: timedelta = DEFAULT_GRACE,
    ) -> None:
        self._services = services
        self._checkin = checkin
        self._pause = pause
        self._outbox = outbox
        self._grace = grace
        # Names this process's follow-up claims: only another (dead) process's claim
        # is ever taken over, so a send that is merely slow here is never repeated.
        self._claimer = secrets.token_hex(8)

    @property
    def _clock(self) -> Clock:
        return self._services.clock

    async def tick(self) -> TickReport:
        now = self._clock.now()
        db = self._services.db
        before = db.statements
        # One transaction from claim to conversation positions: a /forget waits for
        # it, so nobody is half-claimed, and nobody forgotten is written back.
        async with db.transaction() as tx:
            claims, missed = await self._claim_slots(tx, now)
            claims += await self._claim_snoozes(tx, now)
            due, report = await self._decide(tx, claims, now)
            outgoing = await self._checkin.start_due(tx, self._services, due) if due else []
            followups = await self._claim_followups(tx, now)
            posts = await claim_due_reminders(tx, self._services, now, self._grace)
        for message in outgoing + followups + posts:
            self._outbox.enqueue(message)
        report = TickReport(
            claimed=len(claims) + missed,
            started=len(outgoing),
            followups=len(followups),
            missed=missed,
            unreachable=report.unreachable,
            deferred=report.deferred,
            reminders=len(posts),
            statements=db.statements - before,
        )
        if report.claimed:
            log_event(
                log,
                "tick.claimed",
                claimed=report.claimed,
                started=report.started,
                missed=report.missed,
                unreachable=report.unreachable,
                deferred=report.deferred,
            )
        if posts:
            log_event(log, "tick.reminders", posted=len(posts))
        return report

    async def next_due_at(self) -> datetime | None:
        row = await self._services.db.fetch_one(
            "SELECT MIN(due) AS due FROM ("
            " SELECT MIN(next_due_at) AS due FROM checkin_slots WHERE next_due_at IS NOT NULL"
            " UNION ALL SELECT MIN(due_at) FROM checkin_snoozes"
            " UNION ALL SELECT MIN(due_at) FROM followups WHERE delivered_at IS NULL"
            " UNION ALL SELECT MIN(next_due_at) FROM group_reminders"
            " WHERE next_due_at IS NOT NULL)"
        )
        return None if row is None or row["due"] is None else from_epoch(row["due"])

    async def _claim_slots(self, tx: Transaction, now: datetime) -> tuple[list[_Claim], int]:
        rows = await tx.fetch_all(_DUE_SLOTS, (to_epoch(now), BATCH_LIMIT))
        updates: list[tuple[int | None, str | None, str | None, int]] = []
        claims: list[_Claim] = []
        missed = 0
        for row in rows:
            user = user_from_row(row)
            claimed_date = date.fromisoformat(row["next_local_date"])
            planned = plan_slot(user, row["local_time"], now, claimed_date)
            next_due, next_date = planned if planned is not None else (None, None)
            updates.append(
                (
                    None if next_due is None else to_epoch(next_due),
                    None if next_date is None else next_date.isoformat(),
                    claimed_date.isoformat(),
                    row["slot_id"],
                )
            )
            due_at = from_epoch(row["next_due_at"])
            if now - due_at > self._grace:
                missed += 1
                continue
            claims.append(_Claim(user, due_at, _busy(row, now), self._open_question(row, now)))
        await tx.executemany(
            "UPDATE checkin_slots SET next_due_at = ?, next_local_date = ?, last_local_date = ?"
            " WHERE id = ?",
            updates,
        )
        return claims, missed

    async def _claim_snoozes(self, tx: Transaction, now: datetime) -> list[_Claim]:
        rows = await tx.fetch_all(_DUE_SNOOZES, (to_epoch(now),))
        if rows:
            await tx.execute("DELETE FROM checkin_snoozes WHERE due_at <= ?", (to_epoch(now),))
        claims = []
        for row in rows:
            due_at, user = from_epoch(row["next_due_at"]), user_from_row(row)
            paused = user.paused_until is not None and user.paused_until > now
            if now - due_at <= self._grace and not paused and not user.checkins_stopped:
                claims.append(_Claim(user, due_at, _busy(row, now), self._open_question(row, now)))
        return claims

    def _open_question(self, row: Row, now: datetime) -> bool:
        """Another question is open, and not yet expired (an unanswered earlier check-in
        does not count): the check-in that replaces it says so, so a message meant for
        the old question is not taken for an answer to the new one."""
        flow, updated = row["current_flow"], row["flow_updated_at"]
        if flow is None or updated is None or (flow == CheckIn.name and not _answered_part(row)):
            return False
        return now - from_epoch(updated) < self._services.step_expiry

    async def _claim_followups(self, tx: Transaction, now: datetime) -> list[Outgoing]:
        """Urge-timer follow-ups: the user asked for these, so they go out even late.

        Someone in the middle of another conversation gets theirs a few minutes
        later; someone unreachable does not get it at all (it is closed, not retried).
        """
        rows = await tx.fetch_all(
            _DUE_FOLLOWUPS, (to_epoch(now), self._claimer, to_epoch(now - FOLLOWUP_LEASE))
        )
        claimed: list[tuple[int, User]] = []
        later: list[tuple[int, int]] = []
        closed: list[tuple[int, int]] = []
        for row in rows:
            user = user_from_row(row)
            if user.unreachable_since is not None:
                closed.append((to_epoch(now), row["followup_id"]))
            elif _busy(row, now, any_flow=True) and not _awaiting_this(row):
                later.append((to_epoch(now + FOLLOWUP_WHEN_BUSY), row["followup_id"]))
            else:
                claimed.append((row["followup_id"], user))
        await tx.executemany(
            "UPDATE followups SET claimed_at = ?, claimed_by = ? WHERE id = ?",
            [(to_epoch(now), self._claimer, followup_id) for followup_id, _ in claimed],
        )
        await tx.executemany("UPDATE followups SET due_at = ? WHERE id = ?", later)
        await tx.executemany("UPDATE followups SET delivered_at = ? WHERE id = ?", closed)
        return await self._pause.followups_due(tx, self._services, claimed)

    async def _decide(
        self, tx: Transaction, claims: Sequence[_Claim], now: datetime
    ) -> tuple[list[CheckInDue], TickReport]:
        due: list[CheckInDue] = []
        later: list[tuple[int, int]] = []
        unreachable = 0
        seen: set[int] = set()
        for claim in claims:
            user = claim.user
            if user.id in seen:  # two slots due at once after downtime: one check-in
                continue
            seen.add(user.id)
            if user.unreachable_since is not None:
                unreachable += 1
            elif claim.busy or in_quiet_hours(user, now):
                later.append((to_epoch(out_of_quiet_hours(user, now + DEFER_WHEN_BUSY)), user.id))
            else:
                due.append(
                    CheckInDue(
                        address=user.address,
                        due_at=claim.due_at,
                        user_row_id=user.id,
                        locale=user.locale,
                        local_time=now.astimezone(user_zone(user)),
                        last_opening_id=user.last_opening_id,
                        discreet=user.discreet,
                        closes_question=claim.closes_question,
                    )
                )
        if later:
            await tx.executemany(
                "INSERT INTO checkin_snoozes (due_at, user_id) VALUES (?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET due_at = excluded.due_at",
                later,
            )
        return due, TickReport(unreachable=unreachable, deferred=len(later))


def _busy(row: Row, now: datetime, any_flow: bool = False) -> bool:
    """In the middle of a conversation, judged by its last step being recent.

    A routine check-in replaces an unanswered earlier one unless
    `any_flow`; nothing replaces a conversation the user is actively having.
    """
    flow, updated = row["current_flow"], row["flow_updated_at"]
    if flow is None or updated is None:
        return False
    recent = now - from_epoch(updated) < ACTIVE_FLOW_WINDOW
    return recent and (any_flow or flow != CheckIn.name or _answered_part(row))


def _awaiting_this(row: Row) -> bool:
    """The position is this very follow-up's question, sent before a crash: not busy."""
    return bool(row["current_flow"] == FlowName.PAUSE and row["current_step"] == PauseStep.FOLLOWUP)


def _answered_part(row: Row) -> bool:
    """A check-in past its first question is being answered: do not reset it."""
    return bool(row["current_step"] and row["current_step"] != CheckInStep.MOOD)
