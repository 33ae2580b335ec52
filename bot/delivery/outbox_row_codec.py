"""A scheduled message as an outbox row, and a row read back as the message: the words
plain, as a shared shape and its fill, or sealed (a user's own words, a protected reply)
for the user or the reminder they belong to.

The outbox (`bot.delivery.outbox`) writes rows with `as_row` and reads back those it takes
over with `as_outgoing`; a reply's text and shape are `bot.delivery.reply_codec`'s.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.core.events import Address
from bot.delivery.outgoing import Effect, Outgoing
from bot.delivery.reply_codec import decode_reply, encode_reply, shape_of
from bot.storage.crypto import TextCipher
from bot.storage.outbox_rows import OutboxRow
from bot.storage.still_there import StillThere, Target

# Targets whose id is the user's row.
_USER_TARGETS = frozenset({Target.USER, Target.CARING, Target.PLAN_REVIEW})


def as_row(
    row_id: int, message: Outgoing, shapes: dict[str, str], cipher: TextCipher | None
) -> OutboxRow:
    """The message as a row; a shape it is written with is added to `shapes`."""
    address, guard = message.address, message.guard
    user_id = message.user_row_id
    if user_id is None and guard is not None and guard.target in _USER_TARGETS:
        user_id = guard.id
    sealed = message.own_words or message.reply.protect
    shaped = None if sealed else shape_of(message.reply)
    shape_id = fill = None
    if shaped is not None:
        shape, fill = shaped
        shape_id = shape.id
        shapes[shape_id] = shape.text
        plain: str | None = None
    else:
        plain = encode_reply(message.reply)
    for_user = for_reminder = None
    if sealed and plain is not None:
        if cipher is None:
            raise ValueError("an outbox that seals words needs the cipher")
        if user_id is not None:
            for_user = cipher.encrypt(plain, user_id)
        elif guard is not None and guard.target is Target.REMINDER:
            for_reminder = cipher.encrypt_for_reminder(plain, guard.id)
        else:
            raise ValueError("sealed words are bound to a user row or a reminder")
        plain = None
    # The enums are strings (StrEnum): written as they are, no `.value` lookups.
    return OutboxRow(
        row_id,
        address.platform,
        address.chat_id,
        address.user_id,
        int(address.is_group),
        user_id,
        plain,
        for_user,
        for_reminder,
        None if guard is None else guard.target,
        None if guard is None else guard.id,
        None if guard is None else guard.stamp,
        message.on_delivered,
        message.on_refused,
        shape_id,
        fill,
    )


def as_outgoing(row: OutboxRow, shapes: Mapping[str, str], cipher: TextCipher | None) -> Outgoing:
    """A row read back (taken over): the message as it was persisted."""
    guard = None
    if row.guard_target is not None and row.guard_id is not None:
        guard = StillThere(Target(row.guard_target), row.guard_id, row.guard_stamp)
    sealed = row.sealed_for_user is not None or row.sealed_for_reminder is not None
    fill = None
    if row.reply is not None:
        text = row.reply
    elif row.shape_id is not None:
        text, fill = shapes[row.shape_id], row.fill  # a purged shape: unreadable
    elif cipher is None:
        raise ValueError("a sealed row needs the cipher")
    elif row.sealed_for_user is not None and row.user_id is not None:
        text = cipher.decrypt(row.sealed_for_user, row.user_id)
    elif row.sealed_for_reminder is not None and row.guard_id is not None:
        text = cipher.decrypt_for_reminder(row.sealed_for_reminder, row.guard_id)
    else:
        raise ValueError("an outbox row without its words")
    reply = decode_reply(text, fill)
    return Outgoing(
        Address(row.platform, row.chat_id, row.platform_user_id, bool(row.is_group)),
        reply,
        guard=guard,
        on_delivered=None if row.on_delivered is None else Effect(row.on_delivered),
        on_refused=None if row.on_refused is None else Effect(row.on_refused),
        user_row_id=row.user_id,
        own_words=sealed and not reply.protect,
    )
