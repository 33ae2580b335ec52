"""The collector is held off only while the pack is built, whatever happens inside."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.content_pack.loader import ContentError, load_pack

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if was:  # as the test run had it, whatever the test left
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_on_again_after_a_pack_loads_or_fails(
    collector_on: None, tmp_path: Path
) -> None:
    load_pack(REPO_CONTENT, "en")
    assert gc.isenabled()
    (tmp_path / "en").mkdir()
    with pytest.raises(ContentError):
        load_pack(tmp_path, "en")
    assert gc.isenabled()


def test_a_collector_its_caller_turned_off_stays_off(collector_on: None) -> None:
    gc.disable()
    load_pack(REPO_CONTENT, "en")
    assert not gc.isenabled()
