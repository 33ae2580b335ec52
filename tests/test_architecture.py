"""The shape of the house, checked: dependencies between bot's packages point one way,
the core imports nothing else of bot, and only storage speaks SQL.

A package here is a folder directly under `bot/` (or a module such as `bot/config.py`).
Every import counts, also one inside a function or under `if TYPE_CHECKING:`: a cycle
hidden there is still a cycle for whoever reads the code.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

BOT = Path(__file__).resolve().parent.parent / "bot"


@dataclass(frozen=True, slots=True)
class Import:
    source: str  # the importing module, e.g. bot.engine.router
    target: str  # the imported module, e.g. bot.flows.checkin
    line: int

    @property
    def source_package(self) -> str:
        return package_of(self.source)

    @property
    def target_package(self) -> str:
        return package_of(self.target)


def package_of(module: str) -> str:
    """`bot.flows.checkin` is in `flows`; `bot.config` is `config`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_in(path: Path, root: Path) -> Iterator[Import]:
    source = module_name(path, root)
    # A relative import counts from the module's package (an __init__ is its own package).
    package = source.split(".") if path.name == "__init__.py" else source.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text("utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(source, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target == "bot":  # `from bot import flows`: each name is a package
                for alias in node.names:
                    yield Import(source, f"bot.{alias.name}", node.lineno)
            else:
                yield Import(source, target, node.lineno)


def bot_imports(root: Path = BOT) -> list[Import]:
    """Every import of one part of bot by another."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for item in imports_in(path, root):
            if item.target.startswith("bot.") and item.source_package != item.target_package:
                found.append(item)
    return found


def package_cycles(imports: list[Import]) -> list[list[str]]:
    """Groups of packages that reach each other (Tarjan's strongly connected components)."""
    graph: dict[str, set[str]] = {}
    for item in imports:
        graph.setdefault(item.source_package, set()).add(item.target_package)
        graph.setdefault(item.target_package, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def describe(imports: list[Import], packages: list[str]) -> str:
    inside = set(packages)
    return "\n".join(
        f"  {item.source}:{item.line} imports {item.target}"
        for item in imports
        if item.source_package in inside and item.target_package in inside
    )


def test_no_two_packages_of_bot_import_each_other_even_by_a_detour() -> None:
    imports = bot_imports()
    cycles = package_cycles(imports)
    assert not cycles, "package cycles under bot/:\n" + "\n".join(
        f"{' <-> '.join(group)}:\n{describe(imports, group)}" for group in cycles
    )


def test_the_core_holds_values_and_imports_nothing_else_of_bot() -> None:
    upward = [item for item in bot_imports() if item.source_package == "core"]
    assert not upward, "bot/core imports:\n" + describe(upward, ["core", *_targets(upward)])


def _targets(imports: list[Import]) -> list[str]:
    return sorted({item.target_package for item in imports})


def test_the_checks_see_imports_inside_functions_and_a_cycle_through_a_detour(
    tmp_path: Path,
) -> None:
    # The checks above pass on a good tree; this shows they would fail on a bad one.
    root = tmp_path / "bot"
    files = {
        "core/__init__.py": "",
        "core/late.py": "def f():\n    from bot.flows import checkin\n",
        "flows/__init__.py": "",
        "flows/checkin.py": "from ..storage import db\n",
        "storage/__init__.py": "from bot import core\n",
        "storage/db.py": "import bot.storage.queries\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    found = {(item.source, item.target, item.line) for item in bot_imports(root)}
    assert found == {
        ("bot.core.late", "bot.flows", 2),
        ("bot.flows.checkin", "bot.storage", 1),
        ("bot.storage", "bot.core", 1),
    }
    assert package_cycles(bot_imports(root)) == [["core", "flows", "storage"]]


# Statements, not prose: the keywords as SQL writes them (upper case) in string literals.
SQL = re.compile(
    r"\bSELECT\s|\bINSERT\s+(OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b"
    r"|\bCREATE\s+(TABLE|(UNIQUE\s+)?INDEX|TRIGGER|VIEW)\b|\bDROP\s+TABLE\b|\bPRAGMA\s"
)


def sql_strings(path: Path) -> Iterator[tuple[int, str]]:
    """String literals (f-string parts too) that hold SQL; docstrings are prose and skipped."""
    tree = ast.parse(path.read_text("utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if is_text and id(node) not in docstrings and SQL.search(node.value):
            yield node.lineno, node.value.strip().splitlines()[0]


def test_the_sql_pattern_finds_statements_and_not_prose() -> None:
    statements = [
        "SELECT 1 FROM users WHERE id = ?",
        "INSERT INTO checkin_snoozes (due_at, user_id) VALUES (?, ?)",
        "UPDATE followups SET due_at = ? WHERE id = ?",
        "DELETE FROM checkin_snoozes WHERE due_at <= ?",
        "CREATE TABLE users (id INTEGER PRIMARY KEY)",
        "PRAGMA user_version",
    ]
    prose = ["select a time", "Delete from your list", "an update sets you back", "UPDATE"]
    assert all(SQL.search(text) for text in statements)
    assert not any(SQL.search(text) for text in prose)


def test_only_storage_holds_sql() -> None:
    storage = BOT / "storage"
    outside = [
        f"  {path.relative_to(BOT.parent)}:{line}: {first}"
        for path in sorted(BOT.rglob("*.py"))
        if storage not in path.parents
        for line, first in sql_strings(path)
    ]
    assert not outside, "SQL outside bot/storage:\n" + "\n".join(outside)


def test_a_sqlite_install_never_loads_the_postgresql_driver() -> None:
    """Importing the bot, its platforms and its coordination costs no PostgreSQL driver
    (about 60 ms of start-up): only a worker given STEADY_DATABASE_URL imports it."""
    probe = (
        "import sys, bot.app, bot.cli, bot.platform_roles, bot.coordination.workers;"
        " print('asyncpg' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "False"
