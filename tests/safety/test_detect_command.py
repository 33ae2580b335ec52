"""`steady detect --json`: one JSON object an operator or a script can read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers.processes import steady_environment


def detect_json(text: str, data_dir: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "detect", "--json", text],
        capture_output=True,
        text=True,
        env=steady_environment(data_dir),
        cwd=data_dir.parent,
        check=True,
        timeout=120,
    )
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    parsed: dict[str, object] = json.loads(lines[0])
    return parsed


def test_json_names_each_intent_its_rule_and_the_reply(tmp_path: Path) -> None:
    crisis = detect_json("I w\u200bant to DIE", tmp_path / "data")
    assert crisis["normalised"] == "i want to die"
    assert crisis["reply"] == "crisis"
    [found] = crisis["intents"]  # type: ignore[misc]
    assert found["intent"] == "crisis" and found["rule"].startswith("crisis-")
    check = detect_json("I'm not going to hurt myself, don't worry", tmp_path / "data")
    assert check["reply"] == "check"
    assert [item["intent"] for item in check["intents"]] == ["crisis"]  # type: ignore[attr-defined]
    ordinary = detect_json("killing it at work today", tmp_path / "data")
    assert ordinary == {"normalised": "killing it at work today", "intents": [], "reply": "none"}
