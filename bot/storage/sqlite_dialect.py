"""The few SQL phrases SQLite spells its own way (`Dialect`): repositories write one SQL
text for both databases and take these from `db.dialect`.

PostgreSQL's spelling is in `bot.storage.postgres`; the SQLite backend is
`bot.storage.db`.
"""

from __future__ import annotations

from bot.storage.backend import Dialect

SQLITE = Dialect(
    name="sqlite",
    integers_from_json="SELECT value FROM json_each(?)",
    texts_from_json="SELECT value FROM json_each(?)",
    comma_joined="group_concat({})",
    tables_with_column=(
        "SELECT m.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c"
        " WHERE m.type = 'table' AND c.name = ?"
    ),
    tables="SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
)
