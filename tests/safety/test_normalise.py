from __future__ import annotations

import pytest

from bot.safety.normalise import normalise


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("I Want To DIE", "i want to die"),
        ("i want to d\u200bie", "i want to die"),  # zero-width space inside a word
        ("kill\u2060 my\u200dself", "kill myself"),  # word joiner, zero-width joiner
        ("\u202ei want to die\u202c", "i want to die"),  # right-to-left override
        ("k\u0336i\u0336l\u0336l\u0336 myself", "kill myself"),  # strike-through marks
        ("ｋｉｌｌ ｍｙｓｅｌｆ", "kill myself"),  # full-width letters (NFKC)
        ("I\u2019m  done\t\n", "i'm done"),  # curly apostrophe, runs of space
        ("stra\u00dfe", "strasse"),  # case folding, not just lower()
        ("nul\x00byte", "nul byte"),
    ],
)
def test_normalise(raw: str, expected: str) -> None:
    assert normalise(raw) == expected
