"""Load YAML while remembering the line each value came from, for `file:line:` errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

Path_ = tuple[str | int, ...]


class YamlSyntaxError(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass
class LocatedYaml:
    data: Any
    lines: dict[Path_, int] = field(default_factory=dict)

    def line_of(self, path: Path_) -> int:
        """The line of the deepest known value along `path` (1-based)."""
        for end in range(len(path), -1, -1):
            line = self.lines.get(tuple(path[:end]))
            if line is not None:
                return line
        return 1


# libyaml reads the pack several times faster than the pure-Python parser (most of the
# pack's load time was spent there). It builds the same nodes, with the same lines; its
# error messages differ, so a file it refuses is read again by the pure-Python parser,
# and a problem is reported in the same words, on the same line, as always.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _compose(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=_FAST_LOADER)
    except yaml.YAMLError:
        return yaml.compose(text, Loader=yaml.SafeLoader)


def load_located(text: str) -> LocatedYaml:
    try:
        node = _compose(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else 1
        raise YamlSyntaxError(line, str(error.problem or error.context or "invalid YAML")) from None
    except yaml.YAMLError as error:
        raise YamlSyntaxError(1, str(error)) from None
    located = LocatedYaml(data=None)
    if node is not None:
        try:
            located.data = _Converter(located.lines).convert(node, ())
        except RecursionError:
            raise YamlSyntaxError(1, "a value refers to itself") from None
    return located


class _Converter:
    """Plain values from the nodes, noting each one's line on the way. One constructor
    builds every scalar of a file (a loader of its own for each cost more than the parse)."""

    def __init__(self, lines: dict[Path_, int]) -> None:
        self.lines = lines
        self.constructor = yaml.constructor.SafeConstructor()

    def convert(self, node: yaml.Node, path: Path_) -> Any:
        self.lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            result: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    line = key_node.start_mark.line + 1
                    raise YamlSyntaxError(line, "merge keys (<<) are not used")
                key = self.scalar(key_node)
                if key in result:
                    raise YamlSyntaxError(key_node.start_mark.line + 1, f"duplicate key {key!r}")
                result[key] = self.convert(value_node, (*path, key))
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.convert(item, (*path, index)) for index, item in enumerate(node.value)]
        return self.scalar(node)

    def scalar(self, node: yaml.Node) -> Any:
        line = node.start_mark.line + 1
        if not isinstance(node, yaml.ScalarNode):
            raise YamlSyntaxError(line, "expected a plain value here")
        try:
            return self.constructor.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, TypeError, OverflowError) as error:
            # A value YAML can read but not build, such as the date 2025-02-30.
            problem = getattr(error, "problem", None) or str(error)
            raise YamlSyntaxError(line, f"cannot read this value: {problem}") from None
