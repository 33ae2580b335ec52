"""How big a batch of a long housekeeping job is: as big as fits in a short writer hold.

What a row costs differs a hundredfold between a warm cache and a cold disk, between
a row kept and a row deleted (each deletion rewrites index pages all over the file).
So a job does not fix its batch size: it aims at a length of time and adjusts the
number of rows after each batch from how long that one held the writer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.storage.backend import Database, Transaction

# Aimed at, per batch: well under the 100 ms that other writes may wait at most, so that
# a batch that meets a cold disk or a busy machine still stays under it, mostly.
AIM_SECONDS = 0.012


@dataclass
class BatchSize:
    rows: int = 1000
    least: int = 50
    # A few thousand at most, however cheap they were: what a row costs can jump from one
    # batch to the next (a cold part of the file), and a batch too big is only seen after.
    most: int = 5000

    def after(self, held_seconds: float) -> None:
        """The last batch of `rows` held the writer this long: size the next one."""
        # At most doubled or quartered at a time: one odd batch must not swing it far.
        factor = 2.0 if held_seconds <= 0 else min(2.0, max(0.25, AIM_SECONDS / held_seconds))
        self.rows = max(self.least, min(self.most, int(self.rows * factor)))


# Deletes among the rows with ids in (after, last]; returns how many went.
DeleteBetween = Callable[[Transaction, int, int], Awaitable[int]]


async def delete_walking_ids(
    db: Database, table: str, first_rows: int, delete_between: DeleteBetween
) -> int:
    """Walk `table` by its `id`, a batch of ids a short transaction (the first
    `first_rows`, later ones sized to AIM_SECONDS), calling `delete_between` for each;
    other writes go on between the batches. Returns how many rows were deleted."""
    deleted = 0
    after = -1  # ids are never negative
    size = BatchSize(rows=first_rows, least=min(first_rows, BatchSize.least))

    async def batch(tx: Transaction) -> int | None:
        """Deletes in the next `size.rows` ids; returns the last id looked at."""
        nonlocal deleted
        row = await tx.fetch_one(
            f"SELECT MAX(id) AS last FROM (SELECT id FROM {table}"
            " WHERE id > ? ORDER BY id LIMIT ?) AS batch",
            (after, size.rows),
        )
        last = None if row is None else row["last"]
        if last is None:
            return None
        deleted += await delete_between(tx, after, int(last))
        return int(last)

    async with db.log_copied_aside():
        while (last := await db.in_one_hop(batch)) is not None:
            after = last
            size.after(db.write_holds.last)
            await db.copy_log_aside()  # while other writes go on, before the next batch
    return deleted
