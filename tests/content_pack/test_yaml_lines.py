"""The pack is read by libyaml when it is there, and must read exactly as the pure-Python
parser reads it: the same values, the same lines, the same words for a broken file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.content_pack import yaml_lines
from bot.content_pack.yaml_lines import LocatedYaml, YamlSyntaxError, load_located

REPO = Path(__file__).resolve().parents[2]


def read_by_python(text: str, monkeypatch: pytest.MonkeyPatch) -> LocatedYaml:
    with monkeypatch.context() as patched:
        patched.setattr(yaml_lines, "_FAST_LOADER", yaml.SafeLoader)
        return load_located(text)


def test_every_shipped_file_reads_as_the_pure_python_parser_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files = sorted((REPO / "content").rglob("*.yaml"))
    assert len(files) > 30
    for path in files:
        text = path.read_text("utf-8")
        fast, plain = load_located(text), read_by_python(text, monkeypatch)
        assert fast.data == plain.data, path
        assert fast.lines == plain.lines, path


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("a: b: c", 1, "mapping values are not allowed here"),
        ("a:\n  - x\n\t- y", 3, "found character '\\t' that cannot start any token"),
        ("a: [b", 1, "expected ',' or ']', but got '<stream end>'"),
        ("- a\nb: c", 2, "expected <block end>, but found '?'"),
        ("a: *nope", 1, "found undefined alias 'nope'"),
    ],
)
def test_a_broken_file_is_reported_in_the_pure_python_parsers_words(
    text: str, line: int, message: str
) -> None:
    """libyaml words these differently ("mapping values are not allowed in this
    context"), and for some puts the line elsewhere: the report must not change with it."""
    with pytest.raises(YamlSyntaxError) as raised:
        load_located(text)
    assert (raised.value.line, raised.value.message) == (line, message)


def test_a_value_yaml_cannot_build_names_its_line() -> None:
    with pytest.raises(YamlSyntaxError) as raised:
        load_located("first: 2025-02-28\nsecond: 2025-02-30\n")
    assert raised.value.line == 2
    assert raised.value.message.startswith("cannot read this value:")
