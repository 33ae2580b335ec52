"""Only `bot/storage/` knows SQL: every statement sits behind a repository function there,
so a second database needs a second storage backend and nothing else."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bot"
STORAGE = BOT / "storage"

_SQL = re.compile(
    r"\b(SELECT\s|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|PRAGMA\s|CREATE\s+(TABLE|INDEX)"
    r"|ALTER\s+TABLE|DROP\s+TABLE|BEGIN\s+IMMEDIATE)"
)
# Calls only a database connection or a transaction answers.
_DB_CALLS = frozenset({"execute", "executemany", "executescript", "fetch_all", "fetch_one"})


def sql_in(source: str, name: str) -> list[str]:
    """`name:line: what` for every SQL text and every raw database call in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _SQL.search(node.value):
                found.append(f"{name}:{node.lineno}: SQL text")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _DB_CALLS
        ):
            found.append(f"{name}:{node.lineno}: .{node.func.attr}()")
    return found


def test_no_sql_outside_storage() -> None:
    outside = [path for path in sorted(BOT.rglob("*.py")) if STORAGE not in path.parents]
    assert len(outside) > 20  # the walk really found the code
    found = [
        line
        for path in outside
        for line in sql_in(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert found == []


def test_the_check_finds_a_statement_and_a_raw_call() -> None:
    source = (
        "async def f(tx, db):\n"
        '    await tx.executemany("UPDATE users SET locale = ? WHERE id = ?", [])\n'
        '    return await db.fetch_one(f"SELECT 1 FROM {TABLE}")\n'
    )
    assert sorted(sql_in(source, "sample.py")) == [
        "sample.py:2: .executemany()",
        "sample.py:2: SQL text",
        "sample.py:3: .fetch_one()",
        "sample.py:3: SQL text",
    ]
