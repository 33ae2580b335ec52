from __future__ import annotations

import unicodedata

from bot.adapters.text_split import split_text, utf16_length


def test_short_text_is_one_piece() -> None:
    assert split_text("hello", 10) == ["hello"]


def test_splits_between_paragraphs_first() -> None:
    text = "First paragraph here.\n\nSecond paragraph, a bit longer than the first."
    assert split_text(text, 50) == [
        "First paragraph here.",
        "Second paragraph, a bit longer than the first.",
    ]


def test_then_between_sentences_then_words() -> None:
    text = "One sentence here. Another sentence follows it. And a third."
    pieces = split_text(text, 30)
    assert pieces == ["One sentence here.", "Another sentence follows it.", "And a third."]
    words = split_text("alpha beta gamma delta epsilon", 12)
    assert all(len(piece) <= 12 for piece in words)
    assert " ".join(words) == "alpha beta gamma delta epsilon"


def test_counts_utf16_units_and_never_splits_a_character() -> None:
    text = "🙂" * 3000  # 6000 UTF-16 units
    pieces = split_text(text, 4096, utf16_length)
    assert all(utf16_length(piece) <= 4096 for piece in pieces)
    assert "".join(pieces) == text
    assert utf16_length(pieces[0]) == 4096


def test_nothing_is_lost() -> None:
    text = ("word " * 2000).strip()
    pieces = split_text(text, 4096)
    assert " ".join(pieces) == text


def test_a_letter_keeps_its_accents_and_an_emoji_its_joiners() -> None:
    accented = "e\u0301\u0301" * 10  # no spaces: the cut must fall inside the "word"
    for piece in split_text(accented, 7):
        assert not unicodedata.combining(piece[0])
    assert "".join(split_text(accented, 7)) == accented
    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467" * 4  # 5 code points each
    pieces = split_text(family, 7)
    assert all(piece.count("\U0001f467") * 5 == len(piece) for piece in pieces)
    assert "".join(pieces) == family


def test_a_skin_tone_stays_with_its_emoji() -> None:
    waving = "\U0001f44b\U0001f3fd" * 6  # a waving hand, then its tone: two code points each
    pieces = split_text(waving, 5)
    assert all(not ("\U0001f3fb" <= piece[0] <= "\U0001f3ff") for piece in pieces)
    assert "".join(pieces) == waving
