"""The outbox table: scheduled messages from their claim until they have been sent.

A row is written in the transaction that claims its message, leased to the worker
that claimed it. Before the request goes out, `let_go` writes `attempt_at` and
commits: from then on the message may have reached the platform, and no worker
sends it again (at most once). A row whose attempt never started, and whose lease
ran out (its worker died), is taken over by another worker (`take_over`).

Ids come from `outbox_ids` a chunk at a time, so a chunk of a thousand rows is added at
once with known ids (one executemany, or one COPY on PostgreSQL), and an id is never
used twice.

A row's words are its `reply`, or sealed, or the shape it names (`outbox_shapes`,
shared by every check-in alike but for its token) filled with its `fill`.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import NamedTuple

from bot.storage.backend import Dialect, Row
from bot.storage.db import Transaction
from bot.storage.queries import Queryable, to_epoch
from bot.storage.still_there import STILL_WANTED


class OutboxRow(NamedTuple):
    """One waiting message as stored: its words in `reply` (the bot's own), sealed, or
    the shape it names filled with `fill`. A named tuple, in the table's column order:
    a due minute makes one per message, and it is added to the table as it is."""

    id: int
    platform: str
    chat_id: str
    platform_user_id: str
    is_group: int  # 0 or 1, as stored
    user_id: int | None
    reply: str | None
    sealed_for_user: bytes | None
    sealed_for_reminder: bytes | None
    guard_target: str | None
    guard_id: int | None
    guard_stamp: int | None
    on_delivered: str | None
    on_refused: str | None
    shape_id: str | None = None
    fill: str | None = None


_COLUMNS = ", ".join(OutboxRow._fields)
_ADDED_COLUMNS = (*OutboxRow._fields, "queued_at", "leased_by", "lease_until")
# A shape found in use is marked so at most once an hour by each worker: enough for
# the daily purge to leave it, and a busy minute does not write it again and again.
SHAPE_MARKED_EVERY = timedelta(hours=1)
_ADD_SHAPE = (
    "INSERT INTO outbox_shapes (id, reply, added_at) VALUES (?, ?, ?)"
    " ON CONFLICT (id) DO UPDATE SET added_at = excluded.added_at"
    " WHERE outbox_shapes.added_at < ?"
)


async def reserve_ids(tx: Transaction, count: int) -> range:
    """`count` ids nobody has had or will have."""
    row = await tx.fetch_one(
        "UPDATE outbox_ids SET next = next + ? RETURNING next AS next", (count,)
    )
    assert row is not None, "outbox_ids has its one row from its migration"
    end = int(row["next"])
    return range(end - count, end)


async def add(
    tx: Transaction, rows: Sequence[OutboxRow], worker: str, now: datetime, lease_until: datetime
) -> None:
    leased = (to_epoch(now), worker, to_epoch(lease_until))
    await tx.add_rows("outbox", _ADDED_COLUMNS, [row + leased for row in rows])


async def add_shapes(tx: Transaction, shapes: Mapping[str, str], now: datetime) -> None:
    """The shapes (id to reply JSON) rows about to be added name: written if new."""
    if shapes:
        added, stale = to_epoch(now), to_epoch(now - SHAPE_MARKED_EVERY)
        await tx.executemany(
            _ADD_SHAPE, [(shape_id, text, added, stale) for shape_id, text in shapes.items()]
        )


async def shapes(db: Queryable, ids: Collection[str]) -> dict[str, str]:
    """The reply JSON of each of these shapes (rows taken over name them)."""
    if not ids:
        return {}
    found = await db.fetch_all(
        f"SELECT id, reply FROM outbox_shapes WHERE id IN ({db.dialect.texts_from_json})",
        (json.dumps(sorted(ids)),),
    )
    return {row["id"]: row["reply"] for row in found}


@dataclass(frozen=True, slots=True)
class _LetGoStatements:
    mark: str  # the asked rows still wanted and still this worker's: attempt started
    finish: str  # the finished rows
    finish_and_drop: str  # the finished rows, and the asked rows `mark` passed over
    # All three in one statement, where the dialect can (PostgreSQL): a round is then
    # all or nothing even outside a transaction, so it can be run again after a failure.
    at_once: str | None


@cache
def _let_go_statements(dialect: Dialect) -> _LetGoStatements:
    ids = dialect.integers_from_json
    mine = f"o.id IN ({ids}) AND o.attempt_at IS NULL AND o.leased_by = ?"
    # A test that cannot tell (NULL) counts as "gone", here as in `finish_and_drop`.
    wanted = f"COALESCE({STILL_WANTED}, FALSE)"
    mark = f"UPDATE outbox AS o SET attempt_at = ? WHERE {mine} AND {wanted} RETURNING id"
    finish = f"DELETE FROM outbox WHERE id IN ({ids})"
    at_once = None
    if dialect.writing_with:
        # One snapshot for the three: a row is either marked or dropped, never both,
        # and the finished rows are others than the asked ones.
        at_once = (
            f"WITH finished AS ({finish}),"
            f" dropped AS (DELETE FROM outbox AS o WHERE {mine} AND NOT {wanted}),"
            f" marked AS ({mark}) SELECT id FROM marked"
        )
    return _LetGoStatements(
        mark=mark,
        finish=finish,
        # Passed over: those still this worker's and unstarted are unwanted; the others
        # were taken over and are left to their worker.
        finish_and_drop=f"{finish} OR (id IN ({ids}) AND attempt_at IS NULL AND leased_by = ?)",
        at_once=at_once,
    )


async def let_go(
    tx: Transaction, asked: Collection[int], finished: Collection[int], worker: str, now: datetime
) -> set[int]:
    """Of the `asked` rows, those that may be sent now, their attempt marked as started.

    Rows whose target is gone (forgotten, answered, paused) are deleted, unsent; rows
    another worker took over are left to it. The `finished` rows (sent, refused or
    given up on) are deleted too. One statement on PostgreSQL; on SQLite two in one
    transaction, as a round's rows are nearly always all still wanted.
    """
    statements = _let_go_statements(tx.dialect)
    to_finish = json.dumps(list(finished))
    if not asked:
        if finished:
            await tx.execute(statements.finish, (to_finish,))
        return set()
    to_ask = json.dumps(list(asked))
    if statements.at_once is not None:
        rows = await tx.fetch_all(
            statements.at_once, (to_finish, to_ask, worker, to_epoch(now), to_ask, worker)
        )
        return {int(row["id"]) for row in rows}
    rows = await tx.fetch_all(statements.mark, (to_epoch(now), to_ask, worker))
    allowed = {int(row["id"]) for row in rows}
    passed_over = [row_id for row_id in asked if row_id not in allowed]
    if passed_over:
        await tx.execute(statements.finish_and_drop, (to_finish, json.dumps(passed_over), worker))
    elif finished:
        await tx.execute(statements.finish, (to_finish,))
    return allowed


async def finish(tx: Transaction, row_id: int) -> None:
    """The message is done with: sent, refused or given up on."""
    await tx.execute("DELETE FROM outbox WHERE id = ?", (row_id,))


async def renew(tx: Transaction, held: Collection[int], worker: str, lease_until: datetime) -> None:
    """This worker still holds these rows (queued in its memory): nobody takes them over."""
    if held:
        await tx.execute(
            f"UPDATE outbox SET lease_until = ? WHERE leased_by = ? AND attempt_at IS NULL"
            f" AND id IN ({tx.dialect.integers_from_json})",
            (to_epoch(lease_until), worker, json.dumps(list(held))),
        )


@cache
def _take_over_statement(dialect: Dialect, platforms: int) -> str:
    served = ", ".join("?" * platforms)
    return (
        "UPDATE outbox SET leased_by = ?, lease_until = ? WHERE id IN ("
        " SELECT w.id FROM outbox AS w WHERE w.attempt_at IS NULL AND w.lease_until <= ?"
        f" AND w.platform IN ({served}) ORDER BY w.id LIMIT ?{dialect.claim_lock.format('w')})"
        f" RETURNING {_COLUMNS}"
    )


async def take_over(
    tx: Transaction,
    worker: str,
    platforms: Sequence[str],
    now: datetime,
    lease_until: datetime,
    limit: int,
) -> list[OutboxRow]:
    """Unstarted rows whose lease ran out by `now` (their worker is gone), now this one's."""
    if not platforms:
        return []
    rows = await tx.fetch_all(
        _take_over_statement(tx.dialect, len(platforms)),
        (worker, to_epoch(lease_until), to_epoch(now), *platforms, limit),
    )
    return sorted((_row(row) for row in rows), key=lambda row: row.id)


def _row(row: Row) -> OutboxRow:
    return OutboxRow(
        id=int(row["id"]),
        platform=row["platform"],
        chat_id=row["chat_id"],
        platform_user_id=row["platform_user_id"],
        is_group=int(row["is_group"]),
        user_id=row["user_id"],
        reply=row["reply"],
        sealed_for_user=_bytes(row["sealed_for_user"]),
        sealed_for_reminder=_bytes(row["sealed_for_reminder"]),
        guard_target=row["guard_target"],
        guard_id=row["guard_id"],
        guard_stamp=row["guard_stamp"],
        on_delivered=row["on_delivered"],
        on_refused=row["on_refused"],
        shape_id=row["shape_id"],
        fill=row["fill"],
    )


def _bytes(value: bytes | memoryview | None) -> bytes | None:
    return None if value is None else bytes(value)


async def forget_private(tx: Transaction, platform: str, platform_user_id: str) -> None:
    """/forget: messages waiting for this person's private chat, whoever they are for
    (a note to a reminder's admin names no user row)."""
    await tx.execute(
        "DELETE FROM outbox WHERE platform = ? AND platform_user_id = ? AND is_group = 0",
        (platform, platform_user_id),
    )


async def waiting_for(db: Queryable, user_id: int) -> int:
    """How many messages for this user wait to be sent (for /mydata)."""
    row = await db.fetch_one("SELECT COUNT(*) AS n FROM outbox WHERE user_id = ?", (user_id,))
    return 0 if row is None else int(row["n"])


async def on_the_wire(db: Queryable) -> int:
    """Rows whose request went out but whose end was never recorded: a worker died
    mid-send, or between a send and the batch that deletes it. Never sent again."""
    row = await db.fetch_one("SELECT COUNT(*) AS n FROM outbox WHERE attempt_at IS NOT NULL")
    return 0 if row is None else int(row["n"])


async def purge_attempted(tx: Transaction, before: datetime) -> int:
    """The daily purge: rows of attempts that started before `before` and never ended."""
    return await tx.execute(
        "DELETE FROM outbox WHERE attempt_at IS NOT NULL AND attempt_at < ?", (to_epoch(before),)
    )


async def purge_shapes(tx: Transaction, unused_since: datetime) -> int:
    """The daily purge: shapes no row names, not found in use since `unused_since`.

    A claim that uses a shape this old writes or marks it in its own transaction, and
    the two take turns as writers: the purge either goes first (and the claim writes
    the shape again) or sees the claim's rows naming it.
    """
    return await tx.execute(
        "DELETE FROM outbox_shapes AS s WHERE s.added_at < ?"
        " AND NOT EXISTS (SELECT 1 FROM outbox AS o WHERE o.shape_id = s.id)",
        (to_epoch(unused_since),),
    )
