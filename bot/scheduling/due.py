"""Kinds of due work: each knows how to claim its due rows and what to send for them.

The dispatcher runs every registered kind each tick and hands what they return to
the outbox; it knows no kind itself. A kind may claim a bounded chunk and say that
more is due (`Claimed.more`): the dispatcher then lets other work run and calls it
again, in a transaction of its own, until nothing is left. A new kind of scheduled
message touches, and only touches:

- its table and repository functions in `bot/storage/` (a migration, a claim that
  reads the due rows and one that moves them on, a `next_..._due`);
- its module with the `DueKind`: the claim, and a handler that builds `Outgoing`s
  (a `StillThere` guard, and the named `Effect`s for once delivered or refused);
- a new guard target or effect, if it needs one (`bot/storage/still_there.py`,
  `bot/delivery/outgoing.py`, its handler registered in `outbox_effects`);
- one registration line in `bot/due_work.py`, and its tests.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from bot.delivery.outgoing import Outgoing
from bot.storage.db import Database, Transaction

Item = TypeVar("Item")

# Rows one claim takes, in one transaction: a few tens of milliseconds of work, so a
# reply waiting for the event loop, or a write waiting for SQLite's one writer, never
# waits long behind a large minute. 1,000 held the writer 0.12 s on a 2-CPU machine
# (bench/write_lock.py, target 0.1 s); 500 keeps it near half that.
CLAIM_CHUNK = 500


@dataclass(frozen=True, slots=True)
class Tally:
    """What a kind counts toward the tick's report and its log line, beyond what it sends.

    Check-ins count every slot taken off the schedule (`claimed`, sent or not);
    kinds whose claims are all sent leave these at zero.
    """

    claimed: int = 0
    missed: int = 0  # older than the grace window: skipped to the next occurrence
    unreachable: int = 0
    deferred: int = 0


@dataclass(frozen=True, slots=True)
class Claimed(Generic[Item]):
    """What one kind took off the schedule this tick, ready for its handler."""

    items: Sequence[Item]
    tally: Tally = field(default_factory=Tally)
    # The claim stopped at its chunk size: more may be due. Whatever it claimed is
    # already moved on, so the next claim, in a new transaction, never takes it again.
    more: bool = False


@dataclass(frozen=True, slots=True)
class Ran:
    """One claim of a kind, handled: its messages, its counts, and whether more is due."""

    outgoing: list[Outgoing]
    tally: Tally
    more: bool


@dataclass(frozen=True, slots=True)
class DueKind(Generic[Item]):
    """One kind of due item, as RoboDanny dispatches `<event>_timer_complete`.

    `claim` takes the due rows and moves them on; `handle` turns what was claimed
    into messages. Both run inside one transaction, with the messages' outbox rows,
    before anything is sent, so a crash never repeats a claim nor loses its messages,
    and a /forget waits for it.
    """

    name: str
    claim: Callable[[Transaction, datetime], Awaitable[Claimed[Item]]]
    handle: Callable[[Transaction, Sequence[Item]], Awaitable[list[Outgoing]]]
    next_due: Callable[[Database], Awaitable[datetime | None]]

    async def run(self, tx: Transaction, now: datetime) -> Ran:
        claimed = await self.claim(tx, now)
        if not claimed.items:
            return Ran([], claimed.tally, claimed.more)
        # Between the two halves of a chunk's work, other tasks (a reply waiting for the
        # event loop) get their turn: each half is the longest the loop is held.
        await asyncio.sleep(0)
        return Ran(await self.handle(tx, claimed.items), claimed.tally, claimed.more)


class DueKinds:
    """The registry: kinds run, and their messages queue, in the order registered."""

    def __init__(self, kinds: Sequence[DueKind[Any]] = ()) -> None:
        self._kinds: dict[str, DueKind[Any]] = {}
        for kind in kinds:
            self.register(kind)

    def register(self, kind: DueKind[Any]) -> None:
        if kind.name in self._kinds:
            raise ValueError(f"due kind {kind.name!r} is registered twice")
        self._kinds[kind.name] = kind

    def __iter__(self) -> Iterator[DueKind[Any]]:
        return iter(self._kinds.values())

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._kinds)
