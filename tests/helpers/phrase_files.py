"""Every phrase of the safety screen's labelled phrase files, as one flat list."""

from __future__ import annotations

from pathlib import Path

import yaml

SAFETY_TESTS = Path(__file__).resolve().parent.parent / "safety"


def phrases_of(*names: str) -> list[str]:
    """Every string in `tests/safety/<name>.yaml` for each name, in file order."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for item in node.values():
                walk(item)

    for name in names:
        walk(yaml.safe_load((SAFETY_TESTS / f"{name}.yaml").read_text("utf-8")))
    return found
