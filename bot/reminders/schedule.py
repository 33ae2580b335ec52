"""When a group reminder posts next, and what it posts.

Reminders follow the same local-time rules as check-ins (one post per
scheduled local date, DST gaps shifted forward once, overlaps fired once).
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime, time, timedelta

from bot.content_pack.commands import Command
from bot.content_pack.ids import ReminderMsg
from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import Affirmation
from bot.core.replies import Button, Reply
from bot.reminders.words import words_for
from bot.scheduling.planner import plan_rule
from bot.scheduling.rules import LocalRule
from bot.storage.group_reminders import GroupReminder, ReminderSpec

_JUST_AFTER = timedelta(seconds=1)


def reminder_rule(reminder: GroupReminder) -> LocalRule:
    spec = reminder.spec
    return LocalRule(spec.timezone, time.fromisoformat(spec.local_time), spec.weekdays)


def next_post(
    reminder: GroupReminder, now: datetime, strictly_after: bool = False
) -> tuple[datetime, date]:
    """The next post at or after `now` (strictly after when an admin just saved it: adding
    a 09:00 reminder at 09:00 means tomorrow), never on an already claimed local date."""
    not_before = now + _JUST_AFTER if strictly_after else now
    return plan_rule(reminder_rule(reminder), not_before, reminder.last_local_date)


def describe_when(content: ContentPack, locale: str, spec: ReminderSpec) -> str:
    """ "09:00 Europe/Berlin, mon-fri": the same words in the group and in private."""
    return content.text(
        locale,
        ReminderMsg.REMINDER_WHEN,
        time=spec.local_time,
        timezone=spec.timezone,
        days=words_for(locale).weekdays(spec.weekdays),
    )


def reminder_post(content: ContentPack, reminder: GroupReminder) -> Reply:
    """The group post: the admin's words or the next affirmation, and a way to check in
    privately. Nothing in it is about any one member."""
    text = reminder.spec.own_text
    if text is None:
        text = rotating_affirmation(content, reminder).text
    button = Button(
        content.text(reminder.locale, ReminderMsg.REMINDER_CHECKIN_BUTTON),
        "",
        open_private=Command.CHECKIN.value,
    )
    return Reply(text, buttons=((button,),))


def rotating_affirmation(content: ContentPack, reminder: GroupReminder) -> Affirmation:
    """Every affirmation of the theme once, in an order of this reminder's own, then again.

    The order comes from hashing (reminder, affirmation) ids, so it needs no
    storage beyond the post counter and two reminders in one group differ.
    """
    pool = content.affirmations(reminder.locale)
    themed = [item for item in pool if reminder.spec.theme in {None, item.theme.value}]
    ordered = sorted(themed or pool, key=lambda item: _rank(reminder.id, item.id))
    return ordered[reminder.posts % len(ordered)]


def _rank(reminder_id: int, item_id: str) -> bytes:
    return hashlib.blake2b(f"{reminder_id}:{item_id}".encode(), digest_size=8).digest()
