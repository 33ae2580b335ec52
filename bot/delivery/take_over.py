"""Rows a dead worker left unsent, taken over a chunk at a time: leased to this worker and
read back as messages, in one transaction per chunk so each can be queued as soon as it
commits. A row that cannot be read back is logged and removed, never retried forever.

The outbox (`bot.delivery.outbox`, `Outbox.keep_leases`) queues what this returns; the
SQL is `bot.storage.outbox_rows.take_over`'s.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from bot.delivery.outbox_row_codec import as_outgoing
from bot.delivery.outgoing import Outgoing
from bot.logs import get_logger, log_event
from bot.storage import outbox_rows
from bot.storage.crypto import TextCipher
from bot.storage.db import Database

# The outbox's logger: what it logs about its rows stays under one name.
log = get_logger("outbox")

TAKE_OVER_CHUNK = 1_000


async def take_over_chunk(
    db: Database,
    worker: str,
    platforms: Sequence[str],
    expired_by: datetime,
    lease_until: datetime,
    cipher: TextCipher | None,
) -> tuple[list[tuple[Outgoing, int]], bool]:
    """Up to TAKE_OVER_CHUNK rows of `platforms` whose lease ran out by `expired_by`, now
    leased to `worker` until `lease_until`: each message with its row id, and whether
    more may be left."""
    async with db.transaction() as tx:
        rows = await outbox_rows.take_over(
            tx, worker, platforms, expired_by, lease_until, TAKE_OVER_CHUNK
        )
        shapes = await outbox_rows.shapes(
            tx, {row.shape_id for row in rows if row.shape_id is not None}
        )
        queued = []
        for row in rows:
            try:
                queued.append((as_outgoing(row, shapes, cipher), row.id))
            except Exception as error:  # never retried forever: logged and removed
                log_event(log, "outbox.unreadable", logging.ERROR, error=type(error).__name__)
                await outbox_rows.finish(tx, row.id)
    return queued, len(rows) >= TAKE_OVER_CHUNK
