"""A scheduled message as data: where it goes, what it says, what must still be there
when it leaves, and what happens once the platform took it or refused it.

Everything here can be stored in the outbox table and read back by any worker, so
the consequences are named (`Effect`), not closures: the worker that sends a message
may not be the one that claimed it. Each effect acts on the message's own guard
target (the follow-up, the caring check, the reminder), and `Effects` maps each
name to its handler, wired where the handlers live (`bot/engine/due_work.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from bot.core.events import Address
from bot.core.replies import Reply
from bot.logs import get_logger, log_event
from bot.storage.db import Transaction
from bot.storage.still_there import StillThere

log = get_logger("outbox")


class Effect(StrEnum):
    FOLLOWUP_DELIVERED = "followup.delivered"
    CARING_ENDED = "caring.ended"  # delivered, or refused: the claim is over either way
    CARING_REFUSED = "caring.refused"  # and its person is marked unreachable
    PLAN_REVIEW_SENT = "plan_review.sent"
    REMINDER_REFUSED = "reminder.refused"  # paused; its admin told privately, once


@dataclass(frozen=True, slots=True)
class Outgoing:
    address: Address
    reply: Reply
    # Checked just before sending: a message whose target is gone is dropped unsent.
    guard: StillThere | None = None
    # Run on the guard's target in a transaction of their own, once the platform took
    # the message, or refused the recipient. No `on_refused`: the recipient is a person,
    # marked unreachable (routine sends stop until they write again).
    on_delivered: Effect | None = None
    on_refused: Effect | None = None
    # The user row it is for, when there is one: /mydata counts it, /forget deletes it.
    user_row_id: int | None = None
    # The reply carries words someone wrote (a group reminder's own text): stored
    # sealed, bound to the user row or to the guard's reminder.
    own_words: bool = False

    def __post_init__(self) -> None:
        if (self.on_delivered or self.on_refused) and self.guard is None:
            raise ValueError("an effect acts on the message's guard target: give one")


# What an effect does; what it returns is sent next (a note to a reminder's admin).
EffectHandler = Callable[
    [Transaction, datetime, StillThere, Address], Awaitable[Sequence[Outgoing]]
]


@dataclass(frozen=True, slots=True)
class Effects:
    handlers: Mapping[Effect, EffectHandler] = field(default_factory=dict)

    async def run(
        self, effect: Effect, tx: Transaction, now: datetime, target: StillThere, to: Address
    ) -> Sequence[Outgoing]:
        handler = self.handlers.get(effect)
        if handler is None:  # a worker wired without it: the message still went out
            log_event(log, "outbox.effect_unknown", logging.ERROR, effect=effect.value)
            return []
        return await handler(tx, now, target, to)
