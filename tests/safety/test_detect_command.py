"""`steady detect --json`: one JSON object an operator or a script can read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers.processes import steady_environment


def run_detect(
    data_dir: Path, *args: str, stdin: str | None = None, python: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """`python [python...] -m bot detect ARGS` as an operator runs it, in its own folder."""
    return subprocess.run(
        [sys.executable, *python, "-m", "bot", "detect", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=steady_environment(data_dir),
        cwd=data_dir.parent,
        check=True,
        timeout=120,
    )


def detect_json(text: str, data_dir: Path) -> dict[str, object]:
    lines = run_detect(data_dir, "--json", text).stdout.splitlines()
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
    model = ordinary.pop("model")
    assert ordinary == {"normalised": "killing it at work today", "intents": [], "reply": "none"}
    assert model == {"language": "en", "score": model["score"], "raised": False}  # type: ignore[index]
    assert 0 <= model["score"] < 0.5  # type: ignore[index]


def test_json_from_stdin_answers_each_line_in_order_in_one_process(tmp_path: Path) -> None:
    lines = ["i took all my pills", "the kettle is broken again", "", "he texted me"]
    done = run_detect(tmp_path / "data", "--json", "-", stdin="\n".join(lines) + "\n")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [answer["normalised"] for answer in answers] == [
        "i took all my pills",
        "the kettle is broken again",
        "",
        "he texted me",
    ]
    assert [answer["reply"] for answer in answers] == ["crisis", "none", "none", "contacted"]
    assert all(set(answer["model"]) == {"language", "score", "raised"} for answer in answers)


def test_detect_imports_no_platform_library(tmp_path: Path) -> None:
    """python -X importtime lists every module a process imports, on stderr."""
    done = run_detect(tmp_path / "data", "--json", "hello", python=("-X", "importtime"))
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "bot" in imported and "numpy" in imported  # the listing is there, model included
    assert not imported & {"telegram", "discord", "aiohttp", "apscheduler", "matplotlib"}


def test_the_rule_named_is_the_same_in_every_process(tmp_path: Path) -> None:
    """A message read several ways (a chat spelling written out, look-alike letters read as
    Latin) names the rule of its first reading that matches, whatever the hash seed."""
    lines = "kiero morirme ya\nme kiero matar\nwanna kms fr\ni want to dіe\n"
    answers = set()
    for seed in ("1", "2", "3"):
        env = {**steady_environment(tmp_path / "data"), "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-m", "bot", "detect", "--json", "-"],
            input=lines,
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            check=True,
            timeout=120,
        )
        answers.add(done.stdout)
    assert len(answers) == 1
    [said] = answers
    assert [json.loads(line)["reply"] for line in said.splitlines()] == ["crisis"] * 4
