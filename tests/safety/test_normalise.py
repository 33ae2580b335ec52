from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.safety.normalise import expand_chat_spellings, normalise, normalise_lines


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
        ("ki\x00ll myself", "kill myself"),  # a NUL inside a word is invisible, not a space
        ("k\u00adill my\u200dself", "kill myself"),  # soft hyphen, zero-width joiner
        ("su\u034fici\ufe0fde\U000e0041", "suicide"),  # grapheme joiner, selectors, a tag
        ("line one\nline two", "line one line two"),  # a line end still separates words
        ("\u00f6lmek \u0130st\u0131yorum, yaşamak", "olmek istiyorum, yasamak"),  # Turkish ı, İ, ş
        ("im song \u201eich will sterben\u201c", 'im song "ich will sterben"'),  # German quotes
        (
            "\u00ab\u0445\u043e\u0447\u0443 \u0443\u043c\u0435\u0440\u0435\u0442\u044c\u00bb",
            '"\u0445\u043e\u0447\u0443 \u0443\u043c\u0435\u0440\u0435\u0442\u044c"',
        ),  # guillemets
    ],
)
def test_normalise(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


def test_every_control_and_format_character_is_invisible() -> None:
    """The hand-written ranges cover every Cc and Cf character Unicode knows of."""
    whitespace = set("\t\n\v\f\r\x1c\x1d\x1e\x1f\x85")
    hidden = [
        chr(code)
        for code in range(0x110000)
        if unicodedata.category(chr(code)) in {"Cc", "Cf"} and chr(code) not in whitespace
    ]
    assert [hex(ord(ch)) for ch in hidden if normalise(f"a{ch}b") != "ab"] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("me kiero matar", "me quiero matar"),
        ("nose xq sigo aki", "no se porque sigo aqui"),
        ("q sentido tiene", "que sentido tiene"),
        ("nn voglio piu vivere xke", "non voglio piu vivere perche"),  # Italian chat forms
        ("kilo de queso", None),  # only whole words: "k" inside a word stays
        ("i want to die", None),
    ],
)
def test_chat_spellings_are_written_out(text: str, expected: str | None) -> None:
    assert expand_chat_spellings(text) == expected


@given(st.text(alphabet=st.sampled_from(list("ab É\u0301\n\r\t\u200b\u2028 .'’")), max_size=40))
def test_normalising_line_by_line_is_normalising_with_the_line_breaks_kept(text: str) -> None:
    lined = normalise_lines(text)
    assert lined.replace("\n", " ") == normalise(text)
    assert "\n\n" not in lined and not lined.startswith("\n") and " \n" not in lined
