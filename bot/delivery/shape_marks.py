"""Which shared reply shapes this worker has marked as in use lately, so a busy minute
does not write the same shape again and again.

A shape (`bot.delivery.reply_codec.shape_of`) is written, or its row's time moved on, at
most once per SHAPE_MARKED_EVERY by each worker (`bot.storage.outbox_rows.add_shapes`):
often enough for the daily purge to leave it. The outbox (`bot.delivery.outbox`) asks here
which to write with the rows it persists, and says here which were written once the
transaction commits.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime

from bot.storage import outbox_rows

# A bound on the memory: past it, everything is forgotten and each shape is written or
# marked once more, which does no harm.
_MOST_SHAPES_MARKED = 4_096


class ShapeMarks:
    """One worker's memory of the shapes it wrote or marked, and when."""

    def __init__(self) -> None:
        # When this worker last wrote or marked each shape it used (see add_shapes).
        self._marked: dict[str, datetime] = {}

    def to_mark(self, shapes: Mapping[str, str], now: datetime) -> dict[str, str]:
        """The shapes this worker has not written or marked within the hour (the others
        exist, and the daily purge leaves them)."""
        fresh = now - outbox_rows.SHAPE_MARKED_EVERY
        return {
            shape_id: text
            for shape_id, text in shapes.items()
            if self._marked.get(shape_id, fresh) <= fresh
        }

    def marked(self, shape_ids: Collection[str], now: datetime) -> None:
        """These shapes were written or marked at `now` (their transaction committed)."""
        if shape_ids:
            if len(self._marked) > _MOST_SHAPES_MARKED:
                self._marked.clear()  # each written or marked again: no harm
            self._marked.update(dict.fromkeys(shape_ids, now))
