"""The due backlog counts every kind of scheduled work: a new table with a due column
that is not counted fails here, so /metrics never silently under-reports."""

from __future__ import annotations

from bot.flows.context import Services
from bot.storage.vitals import DUE_ROWS
from tests.helpers.schema import column_names

DUE_COLUMNS = {"next_due_at", "due_at"}


async def test_every_table_with_a_due_column_is_in_the_backlog(services: Services) -> None:
    db = services.db
    with_due_column = set()
    for table in await db.table_names():
        columns = set(await column_names(db, table))
        for column in columns & DUE_COLUMNS:
            with_due_column.add((table, column))
    assert with_due_column == {(table, column) for table, column, _ in DUE_ROWS}
