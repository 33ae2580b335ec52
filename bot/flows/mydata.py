"""/mydata: everything stored about the user, decrypted, as JSON text."""

from __future__ import annotations

import base64
import json
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime

from bot.content_pack.ids import DataMsg
from bot.core.replies import Reply
from bot.flows.context import FlowContext
from bot.scheduling.rules import format_weekdays
from bot.storage import (
    affirmations_seen,
    caring_checks,
    checkin_slots,
    checkins,
    content_seen,
    flow_positions,
    group_reminders,
    hard_dates,
    outbox_rows,
    safety_plans,
    sent_messages,
    urges,
)
from bot.storage.crypto import WrongKeyError
from bot.storage.flow_positions import FlowPosition, StoredPrompt
from bot.storage.user_texts import TextKind, list_texts


@dataclass(frozen=True, slots=True)
class ProfileExport:
    platform: str
    platform_user_id: str
    chat_id: str
    locale: str
    country: str | None
    timezone: str | None
    checkin_times: list[str]
    days: str
    quiet_hours: str | None
    paused_until: str | None
    checkins_stopped: bool
    unreachable_since: str | None
    discreet: bool
    created_at: str
    onboarded_at: str | None
    history_kept_days: int | None  # None: as long as the operator's retention allows
    # Ids of the check-in opening and reply shown last, so the next differs.
    last_reply_shown: str | None
    # Whether a safety plan has something in it: "My plan" is offered under crisis replies.
    has_safety_plan: bool = False


@dataclass(frozen=True, slots=True)
class CheckInExport:
    answered_at: str
    mood: int
    urge: str
    note: str | None


@dataclass(frozen=True, slots=True)
class TextExport:
    written_at: str
    text: str


@dataclass(frozen=True, slots=True)
class NoContactExport:
    since: str
    longest_days: int
    restarts: int
    practical_contacts: int


@dataclass(frozen=True, slots=True)
class HardDateExport:
    kind: str
    label: str
    date: str  # "--02-14" (ISO 8601 without a year) for a date every year
    every_year: bool
    # The next extra check-in for it, and which: "eve" (the evening before), "day" (the
    # morning of) or "end" (a one-off date is removed the night after it).
    next_at: str | None
    next_moment: str | None


@dataclass(frozen=True, slots=True)
class FlowExport:
    flow: str
    step: str
    # A message written in the pause flow, waiting for "keep it" or "let it go".
    draft_waiting: str | None = None
    # A text over its limit, waiting for "keep the first part" or "write it shorter".
    text_waiting: str | None = None
    # The question last asked at this step and its buttons, kept to ask it again later.
    question_asked: str | None = None
    question_buttons: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class PlanPartExport:
    part: str
    text: str
    written_at: str


@dataclass(frozen=True, slots=True)
class PlanReviewExport:
    next_note_at: str
    last_note_at: str | None


@dataclass(frozen=True, slots=True)
class CaringCheckExport:
    """The caring check: when it was last offered, and the one asked for, if any."""

    last_offered_on: str | None
    due_at: str | None  # None: none pending
    asked_at: str | None
    asked_while_checkins_stopped: bool
    # Taken by the scheduler to send, and not yet confirmed delivered.
    on_its_way_since: str | None


@dataclass(frozen=True, slots=True)
class UserExport:
    profile: ProfileExport
    checkins: list[CheckInExport]
    reasons: list[TextExport]
    kept_drafts: list[TextExport]
    pauses: dict[str, int]
    no_contact: NoContactExport | None
    pending_followup_at: str | None
    pending_snooze_at: str | None
    sent_message_ids_kept: int  # only ids and times, so /wipe can delete them
    affirmations_seen: list[str]
    # Replies, openings and reflections shown lately (ids only), so none repeats for a month.
    content_seen: dict[str, list[str]]
    current_flow: FlowExport | None
    # Reminders this user set up as a group admin: they belong to the group, and only
    # the admin's id is stored with them (removed by /forget).
    group_reminders_created: int
    caring_check: CaringCheckExport | None
    hard_dates: list[HardDateExport]
    # The safety plan written with /plan, part by part, and its four-weekly note if asked for.
    safety_plan: list[PlanPartExport] = field(default_factory=list)
    plan_review: PlanReviewExport | None = None
    # Scheduled messages for this user written down and not yet sent (a check-in due
    # this minute, say): deleted by /forget with everything else.
    messages_waiting: int = 0


# Which part of the export shows each table holding a user's rows. A test compares
# this with the schema (as /forget reads it), so a table added by a later migration
# fails the suite until the export shows it too.
EXPORTED_TABLES: dict[str, tuple[str, ...]] = {
    "users": ("profile",),
    "checkin_slots": ("profile",),
    "checkins": ("checkins",),
    "reasons": ("reasons",),
    "drafts": ("kept_drafts",),
    "urge_pauses": ("pauses",),
    "no_contact": ("no_contact",),
    "followups": ("pending_followup_at",),
    "checkin_snoozes": ("pending_snooze_at",),
    "sent_messages": ("sent_message_ids_kept",),
    "affirmations_seen": ("affirmations_seen",),
    "content_seen": ("content_seen",),
    "flow_positions": ("current_flow",),
    "group_reminders": ("group_reminders_created",),
    "safety_plan_parts": ("safety_plan",),
    "plan_reviews": ("plan_review",),
    "caring_checks": ("caring_check",),
    "hard_dates": ("hard_dates",),
    "outbox": ("messages_waiting",),
}


def export_fields() -> frozenset[str]:
    """The top-level parts of an export."""
    return frozenset(part.name for part in fields(UserExport))


async def export_user(ctx: FlowContext) -> UserExport | None:
    user = await ctx.find_user()
    if user is None:
        return None
    answers = await checkins.list_checkins(ctx.db, user.id)
    position = await flow_positions.get_position(ctx.db, user.id)
    slots = await checkin_slots.list_slots(ctx.db, user.id)
    counter = await urges.get_no_contact(ctx.db, user.id)
    followup = await urges.pending_followup(ctx.db, user.id)
    pauses = await urges.pause_counts(ctx.db, user.id, since=datetime.fromtimestamp(0, UTC))

    prompt = await flow_positions.get_prompt(ctx.db, user.id)
    plan = await safety_plans.read_plan(ctx.db, ctx.cipher, user.id)
    review = await safety_plans.review_for_export(ctx.db, user.id)

    async def texts(kind: TextKind) -> list[TextExport]:
        found = await list_texts(ctx.db, ctx.cipher, kind, user.id)
        return [TextExport(item.created_at.isoformat(), item.text) for item in found]

    return UserExport(
        profile=ProfileExport(
            platform=user.platform,
            platform_user_id=user.platform_user_id,
            chat_id=user.chat_id,
            locale=user.locale,
            country=user.country,
            timezone=user.timezone,
            checkin_times=[slot.local_time for slot in slots],
            days=format_weekdays(user.weekdays),
            quiet_hours=None if user.quiet_hours is None else str(user.quiet_hours),
            paused_until=None if user.paused_until is None else user.paused_until.isoformat(),
            checkins_stopped=user.checkins_stopped,
            unreachable_since=_iso(user.unreachable_since),
            discreet=user.discreet,
            created_at=user.created_at.isoformat(),
            onboarded_at=user.onboarded_at.isoformat() if user.onboarded_at else None,
            history_kept_days=user.keep_days,
            last_reply_shown=user.last_reply_id,
            has_safety_plan=user.has_plan,
        ),
        checkins=[
            CheckInExport(
                answered_at=answer.answered_at.isoformat(),
                mood=answer.mood,
                urge=answer.urge,
                note=None
                if answer.sealed_note is None
                else ctx.cipher.decrypt(answer.sealed_note, user.id),
            )
            for answer in answers
        ],
        reasons=await texts(TextKind.REASON),
        kept_drafts=await texts(TextKind.DRAFT),
        pauses=asdict(pauses),
        no_contact=None
        if counter is None
        else NoContactExport(
            counter.since.isoformat(),
            counter.longest_days,
            counter.restarts,
            counter.practical_contacts,
        ),
        pending_followup_at=_iso(followup),
        pending_snooze_at=_iso(await checkin_slots.pending_snooze(ctx.db, user.id)),
        sent_message_ids_kept=await sent_messages.count_for(ctx.db, user.id),
        affirmations_seen=await affirmations_seen.seen_affirmations(ctx.db, user.id),
        content_seen=await content_seen.seen_for_export(ctx.db, user.id),
        current_flow=None
        if position is None
        else FlowExport(
            position.flow,
            position.step,
            _waiting(ctx, position, user.id, "draft"),
            _waiting(ctx, position, user.id, "long"),
            _question(ctx, prompt, user.id),
            [] if prompt is None else [label for row in prompt.buttons for label, _ in row],
        ),
        group_reminders_created=await group_reminders.count_created_by(
            ctx.db, user.platform, user.platform_user_id
        ),
        messages_waiting=await outbox_rows.waiting_for(ctx.db, user.id),
        safety_plan=[
            PlanPartExport(part.part, part.text, part.updated_at.isoformat()) for part in plan
        ],
        plan_review=None
        if review is None
        else PlanReviewExport(review.next_due_at.isoformat(), _iso(review.last_sent_at)),
        caring_check=_caring(await caring_checks.get_check(ctx.db, user.id)),
        hard_dates=[
            HardDateExport(
                kind=saved.kind.value,
                label=saved.label,
                date=f"--{saved.month:02d}-{saved.day:02d}"
                if saved.year is None
                else f"{saved.year:04d}-{saved.month:02d}-{saved.day:02d}",
                every_year=saved.yearly,
                next_at=None if saved.upcoming is None else saved.upcoming.due_at.isoformat(),
                next_moment=None if saved.upcoming is None else saved.upcoming.moment.value,
            )
            for saved in await hard_dates.list_dates(ctx.db, ctx.cipher, user.id)
        ],
    )


async def mydata(ctx: FlowContext) -> list[Reply]:
    export = await export_user(ctx)
    if export is None:
        return [ctx.reply(DataMsg.MYDATA_NOTHING)]
    document = json.dumps(asdict(export), indent=2, ensure_ascii=False)
    # protect: the export quotes the user's own notes back to them.
    return [ctx.reply(DataMsg.MYDATA_INTRO), Reply(document, protect=True)]


def _caring(check: caring_checks.CaringCheck | None) -> CaringCheckExport | None:
    if check is None:
        return None
    return CaringCheckExport(
        last_offered_on=None if check.offered_on is None else check.offered_on.isoformat(),
        due_at=_iso(check.next_due_at),
        asked_at=_iso(check.asked_at),
        asked_while_checkins_stopped=check.asked_while_stopped,
        on_its_way_since=_iso(check.claimed_at),
    )


def _iso(instant: datetime | None) -> str | None:
    return None if instant is None else instant.isoformat()


def _waiting(ctx: FlowContext, position: FlowPosition, user_id: int, field: str) -> str | None:
    """A text sealed in the position while it waits for the user's choice."""
    sealed = position.data.get(field)
    if not isinstance(sealed, str):
        return None
    return ctx.cipher.decrypt(base64.b64decode(sealed), user_id)


def _question(ctx: FlowContext, prompt: StoredPrompt | None, user_id: int) -> str | None:
    """The kept question, readable again; None when sealed under a key since replaced."""
    if prompt is None:
        return None
    try:
        return ctx.cipher.decrypt(prompt.sealed_text, user_id)
    except WrongKeyError:
        return None
