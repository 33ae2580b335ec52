"""The dispatcher's part for group reminders: claim the due ones and build their posts.

Claiming moves each reminder to its next local date in the tick's own
transaction, before anything is sent, so a crash can lose a post but never
repeat it, exactly as for check-ins.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta

from bot.content_pack.ids import Msg
from bot.core.events import Address
from bot.core.replies import Reply
from bot.delivery.outbox import Outgoing
from bot.flows.context import Services
from bot.reminders.schedule import describe_when, next_post, reminder_post
from bot.storage.db import Transaction
from bot.storage.group_reminders import (
    COLUMNS,
    GroupReminder,
    list_for_chat,
    pause_for_lost_permission,
    reminder_from_row,
)
from bot.storage.queries import from_epoch, to_epoch

BATCH_LIMIT = 10_000

_DUE = f"""
SELECT {COLUMNS}
FROM group_reminders
WHERE next_due_at IS NOT NULL AND next_due_at <= ? AND paused IS NULL
ORDER BY next_due_at
LIMIT ?
"""


async def claim_due_reminders(
    tx: Transaction, services: Services, now: datetime, grace: timedelta
) -> list[Outgoing]:
    rows = await tx.fetch_all(_DUE, (to_epoch(now), BATCH_LIMIT))
    updates: list[tuple[int, str, str, int, int]] = []
    posts: list[Outgoing] = []
    for row in rows:
        reminder = reminder_from_row(row, services.cipher)
        claimed = reminder.next_local_date or date.min
        due_at = from_epoch(row["next_due_at"])
        late = now - due_at > grace  # the bot was down: skip to the next date, as check-ins do
        following, following_date = next_post(_claimed(reminder, claimed), now)
        updates.append(
            (
                to_epoch(following),
                following_date.isoformat(),
                claimed.isoformat(),
                reminder.posts + (0 if late else 1),
                reminder.id,
            )
        )
        if not late:
            posts.append(_outgoing(services, reminder))
    await tx.executemany(
        "UPDATE group_reminders SET next_due_at = ?, next_local_date = ?, last_local_date = ?,"
        " posts = ? WHERE id = ?",
        updates,
    )
    return posts


def _claimed(reminder: GroupReminder, local_date: date) -> GroupReminder:
    return replace(reminder, last_local_date=local_date)


def _outgoing(services: Services, reminder: GroupReminder) -> Outgoing:
    group = Address(reminder.platform, reminder.chat_id, "", is_group=True)
    return Outgoing(
        group,
        reminder_post(services.content, reminder),
        reminder_id=reminder.id,
        if_unreachable=_tell_creator(services, reminder),
    )


def _tell_creator(services: Services, reminder: GroupReminder) -> Outgoing | None:
    """What the admin who made the reminder hears, privately, if the group refuses it."""
    creator = reminder.creator_user_id
    if creator is None:
        return None
    when = describe_when(services.content, reminder.locale, reminder.spec)
    text = services.content.text(
        reminder.locale, Msg.REMINDER_LOST_PERMISSION, number=reminder.number, when=when
    )
    # A private chat: on Telegram its id is the user's; on Discord the adapter opens the DM.
    return Outgoing(Address(reminder.platform, creator, creator), Reply(text))


async def chat_lost(services: Services, platform: str, chat_id: str) -> list[Outgoing]:
    """The bot was removed from a group (or may no longer post there): pause its active
    reminders now, and return the private notes to their admins (each told once)."""
    now = services.clock.now()
    notes: list[Outgoing] = []
    async with services.db.transaction() as tx:
        for reminder in await list_for_chat(tx, services.cipher, platform, chat_id):
            if reminder.paused is None and await pause_for_lost_permission(tx, reminder.id, now):
                note = _tell_creator(services, reminder)
                if note is not None:
                    notes.append(note)
    return notes
