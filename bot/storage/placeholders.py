"""SQLite's placeholders (`?`, `:name`) as PostgreSQL's (`$1`, `$2`, ...).

Repositories keep one SQL text for both backends. Each distinct text is translated
once and remembered (there are a few hundred at most), so a statement costs a
dictionary lookup here. Quoted text ('09:00'), quoted names, comments and casts
(`::json`) are left as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.storage.backend import Params


@dataclass(frozen=True, slots=True)
class Translated:
    text: str
    names: tuple[str, ...] | None  # for `:name` placeholders: the name of $1, $2, ...
    count: int  # how many `?` (when names is None)


class PlaceholderError(ValueError):
    """A statement mixes `?` and `:name`, or its parameters do not fit it."""


def translate(sql: str) -> Translated:
    out: list[str] = []
    names: list[str] = []
    questions = 0
    index, length = 0, len(sql)
    while index < length:
        char = sql[index]
        if char in "'\"":
            end = sql.find(char, index + 1)
            end = length - 1 if end < 0 else end
            out.append(sql[index : end + 1])
            index = end + 1
        elif char == "-" and sql.startswith("--", index):
            end = sql.find("\n", index)
            end = length if end < 0 else end
            out.append(sql[index:end])
            index = end
        elif char == "?":
            questions += 1
            out.append(f"${questions}")
            index += 1
        elif char == ":" and sql.startswith("::", index):
            out.append("::")
            index += 2
        elif (
            char == ":"
            and index + 1 < length
            and (sql[index + 1].isalpha() or sql[index + 1] == "_")
        ):
            end = index + 1
            while end < length and (sql[end].isalnum() or sql[end] == "_"):
                end += 1
            name = sql[index + 1 : end]
            if name not in names:
                names.append(name)
            out.append(f"${names.index(name) + 1}")
            index = end
        else:
            out.append(char)
            index += 1
    if questions and names:
        raise PlaceholderError("a statement uses both ? and :name placeholders")
    return Translated("".join(out), tuple(names) if names else None, questions)


class PlaceholderCache:
    def __init__(self) -> None:
        self._known: dict[str, Translated] = {}

    def positional(self, sql: str, params: Params) -> tuple[str, list[Any] | tuple[Any, ...]]:
        """PostgreSQL's text of `sql`, and its parameters in the order of $1..$n."""
        translated = self._known.get(sql)
        if translated is None:
            translated = self._known[sql] = translate(sql)
        if translated.names is None:
            if isinstance(params, Mapping):
                raise PlaceholderError("named parameters for a statement with ? placeholders")
            return translated.text, params
        if not isinstance(params, Mapping):
            raise PlaceholderError("positional parameters for a statement with :name placeholders")
        return translated.text, [params[name] for name in translated.names]
