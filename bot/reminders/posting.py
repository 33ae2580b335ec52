"""Group reminders as a kind of due work: claim the due ones and build their posts.

Claiming moves each reminder to its next local date in the tick's own
transaction, before anything is sent, so a crash can lose a post but never
repeat it, exactly as for check-ins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta

from bot.content_pack.ids import ReminderMsg
from bot.core.events import Address
from bot.core.replies import Reply
from bot.delivery.outgoing import Effect, EffectHandler, Outgoing
from bot.flows.context import Services
from bot.reminders.schedule import describe_when, next_post, reminder_post
from bot.scheduling.due import CLAIM_CHUNK, Claimed, DueKind
from bot.storage import group_reminders
from bot.storage.db import Transaction
from bot.storage.group_reminders import GroupReminder, ReminderAdvance
from bot.storage.still_there import StillThere, Target

KIND = "reminder"


class ReminderClaims:
    def __init__(self, services: Services, grace: timedelta) -> None:
        self._services = services
        self._grace = grace

    async def claim(self, tx: Transaction, now: datetime) -> Claimed[GroupReminder]:
        due = await group_reminders.due_reminders(tx, self._services.cipher, now, CLAIM_CHUNK)
        advances: list[ReminderAdvance] = []
        posting: list[GroupReminder] = []
        for reminder in due:
            claimed = reminder.next_local_date or date.min
            # The bot was down: skip to the next date, as check-ins do.
            due_at = reminder.next_due_at
            late = due_at is not None and now - due_at > self._grace
            following, following_date = next_post(_claimed(reminder, claimed), now)
            posts = reminder.posts + (0 if late else 1)
            advances.append(ReminderAdvance(reminder.id, following, following_date, claimed, posts))
            if not late:
                posting.append(reminder)
        await group_reminders.advance_reminders(tx, advances)
        return Claimed(posting, more=len(due) >= CLAIM_CHUNK)

    async def handle(self, tx: Transaction, due: Sequence[GroupReminder]) -> list[Outgoing]:
        return [reminder_outgoing(self._services, reminder) for reminder in due]


def reminder_kind(services: Services, grace: timedelta) -> DueKind[GroupReminder]:
    """Due group reminders, posted to their groups."""
    claims = ReminderClaims(services, grace)
    return DueKind(KIND, claims.claim, claims.handle, group_reminders.next_reminder_due)


def _claimed(reminder: GroupReminder, local_date: date) -> GroupReminder:
    return replace(reminder, last_local_date=local_date)


def while_active(reminder_id: int) -> StillThere:
    """A post not sent if an admin paused or deleted its reminder while it waited."""

    return StillThere(Target.REMINDER, reminder_id)


def reminder_outgoing(services: Services, reminder: GroupReminder) -> Outgoing:
    """The reminder's post. Refused by the platform (no right to post, bot removed), the
    reminder is paused, not deleted, and its admin hears about it privately, once
    (`reminder_refused`). An admin's own words are stored sealed while it waits."""
    group = Address(reminder.platform, reminder.chat_id, "", is_group=True)
    return Outgoing(
        group,
        reminder_post(services.content, reminder),
        guard=while_active(reminder.id),
        on_refused=Effect.REMINDER_REFUSED,
        own_words=reminder.spec.own_text is not None,
    )


def reminder_refused(services: Services) -> EffectHandler:
    """The group refused the post: pause the reminder, and the first time, tell its admin."""

    async def refused(
        tx: Transaction, now: datetime, reminder: StillThere, to: Address
    ) -> Sequence[Outgoing]:
        if not await group_reminders.pause_for_lost_permission(tx, reminder.id, now):
            return ()
        paused = await group_reminders.get_reminder(tx, services.cipher, reminder.id)
        note = None if paused is None else _tell_creator(services, paused)
        return () if note is None else (note,)

    return refused


def _tell_creator(services: Services, reminder: GroupReminder) -> Outgoing | None:
    """What the admin who made the reminder hears, privately, if the group refuses it."""
    creator = reminder.creator_user_id
    if creator is None:
        return None
    when = describe_when(services.content, reminder.locale, reminder.spec)
    text = services.content.text(
        reminder.locale, ReminderMsg.REMINDER_LOST_PERMISSION, number=reminder.number, when=when
    )
    # A private chat: on Telegram its id is the user's; on Discord the adapter opens the DM.
    return Outgoing(Address(reminder.platform, creator, creator), Reply(text))


async def chat_lost(services: Services, platform: str, chat_id: str) -> list[Outgoing]:
    """The bot was removed from a group (or may no longer post there): pause its active
    reminders now, and return the private notes to their admins (each told once)."""
    now = services.clock.now()
    notes: list[Outgoing] = []
    async with services.db.transaction() as tx:
        for reminder in await group_reminders.list_for_chat(tx, services.cipher, platform, chat_id):
            if reminder.paused is None and await group_reminders.pause_for_lost_permission(
                tx, reminder.id, now
            ):
                note = _tell_creator(services, reminder)
                if note is not None:
                    notes.append(note)
    return notes
