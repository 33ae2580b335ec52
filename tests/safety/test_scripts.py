"""Each script the screen reads comes out of normalising in one spelling, and the start
index finds rules in scripts written without spaces, wherever they begin."""

from __future__ import annotations

import re
import unicodedata

import pytest

from bot.content_pack.pattern_starts import anywhere_strings, starting_strings
from bot.safety.normalise import _STABLE, normalise, unmask_lookalikes
from bot.safety.starts import StartIndex


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # Arabic: short vowels and tatweel go, hamza seats read as their letter, ى as ي,
        # ة as ه, the Persian keyboard's ک and ی as Arabic's; its comma and question mark
        # read as ASCII ones.
        ("أُرِيدُ أَنْ أَمُوت", "اريد ان اموت"),
        ("انتحــــار", "انتحار"),
        ("إلى مؤسسة الحياة", "الي موسسه الحياه"),
        ("شو الفايدة؟ ما بعرف، تعبت", "شو الفايده? ما بعرف, تعبت"),
        ("کل یوم", "كل يوم"),
        ("ﻻ ﺃﺭﻳﺪ", "لا اريد"),  # presentation forms, as some keyboards send them
        # Chinese and Japanese: the ideographic full stop and comma end a sentence and a
        # clause; characters are left as they are.
        ("我想自殺。真的", "我想自殺.真的"),
        ("もうだめ、ばか。", "もうだめ,ばか."),
        # Japanese voicing marks stay on their kana (が is not か), half-width reads full.
        ("ダメだ死にたい", "ダメだ死にたい"),
        ("ｼﾞｻﾂ ﾀﾋにたい", "ジサツ タヒにたい"),
        ("パパ", "パパ"),
        # Korean syllables come back whole after decomposing.
        ("죽고 싶다", "죽고 싶다"),
        # Greek: accents go, final sigma reads σ, its question mark reads ";".
        ("Θέλω να πεθάνω, τέλος", "θελω να πεθανω, τελοσ"),
        ("Τι κάνεις;", "τι κανεισ;"),
        # Vietnamese with and without its marks reads the same; đ reads d.
        ("Tôi muốn chết. Đi đây", "toi muon chet. di day"),
        ("toi muon chet", "toi muon chet"),
        # Ukrainian: й reads и and ї reads і, as the Russian rules read й.
        ("Я хочу вмерти, їжак й ґанок", "я хочу вмерти, іжак и ґанок"),
        # Romanian: both the comma and the cedilla forms of ș and ț read s and t.
        ("Vreau să mor, ţară, șah", "vreau sa mor, tara, sah"),
        ("Jag vill dö", "jag vill do"),
    ],
)
def test_each_script_is_read_in_one_spelling(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("i want to kіll myself", "i want to kill myself"),  # one Cyrillic і in a Latin word
        ("і ԝаηт то ԁіе", "i want to die"),  # every letter a look-alike
        ("мама", "mama"),  # a text with no other Cyrillic word: read as a disguise
        # Words with a Cyrillic or Greek letter that is no look-alike are real words in
        # that script: they stay, and so do the short words around them made only of
        # look-alikes ("не", "у", "να", "τι"), which are that script's words too.
        ("мати каже", "мати каже"),
        ("θέλω να πεθάνω", "θέλω να πεθάνω"),
        ("Καλημέρα, τι κάνεις;", "Καλημέρα, τι κάνεις;"),
        ("я ніколи не вбʼю себе", "я ніколи не вбʼю себе"),
        ("у 2015 році", "у 2015 році"),
        # A word mixing look-alikes with Latin letters is a disguise in any text.
        ("я ніколи не хочу kіll myself", "я ніколи не хочу kill myself"),
    ],
)
def test_only_disguised_words_are_read_as_latin(text: str, expected: str) -> None:
    assert unmask_lookalikes(text) == expected


def test_text_without_look_alikes_is_returned_as_it_is() -> None:
    text = "plain text"
    assert unmask_lookalikes(text) is text


@pytest.mark.parametrize(
    ("pattern", "starts"),
    [
        ("想死|自[杀殺]", {"想死", "自杀", "自殺"}),
        ("(?<![他她])想死(?!你)", {"想死"}),
        ("od(?:した|する)", {"odし", "odす"}),  # a Latin beginning with kana after it
        ("죽고 ?싶", {"죽고 ", "죽고싶"}),
    ],
)
def test_a_rule_in_a_script_without_spaces_is_listed_by_its_beginnings(
    pattern: str, starts: set[str]
) -> None:
    assert starting_strings(pattern) is None  # it cannot be read at word starts...
    assert anywhere_strings(pattern) == starts  # ...so it is tried wherever it begins


@pytest.mark.parametrize("pattern", ["kill", "(?:kill|想死)", r"\w+死"])
def test_a_rule_that_may_begin_with_anything_else_is_not_listed_anywhere(pattern: str) -> None:
    assert anywhere_strings(pattern) is None


@pytest.mark.parametrize(
    "text",
    [
        "我真的好想死",  # inside a run of characters: no word starts there
        "今天又想死了",
        "さっきodしちゃった",
        "그냥죽고싶다",
        "ok 想死",  # at a word start too
    ],
)
def test_the_index_finds_a_rule_inside_a_run_of_letters(text: str) -> None:
    patterns = [
        re.compile("(?<![他她])想死(?!你)"),
        re.compile("od(?:した|しちゃ)"),
        re.compile("죽고 ?싶"),
        re.compile(r"\bkill\b"),
    ]
    index = StartIndex.of(patterns)
    assert index.searched == ()
    found = index.matches(text)
    assert found, text
    for number, matches in found.items():
        assert matches[0].span() == patterns[number].search(text).span()  # type: ignore[union-attr]


def test_the_index_finds_what_a_search_finds_in_mixed_text() -> None:
    patterns = [re.compile("(?<![他她])想死(?!你)"), re.compile(r"\bkill\b")]
    index = StartIndex.of(patterns)
    for text in ("他想死", "想死你了", "i could kill for a 想死", "skill 想死 kill", "plain"):
        found = index.matches(text)
        for number, pattern in enumerate(patterns):
            searched = pattern.search(text)
            assert (searched is None) == (number not in found), (pattern.pattern, text)
            if searched is not None:
                assert found[number][0].span() == searched.span()


def _decomposed_and_composed(text: str) -> str:
    """What normalising did to every non-ASCII run before stable letters skipped it."""
    kept = {"\u3099", "\u309a"}
    decomposed = unicodedata.normalize("NFKD", text)
    unmarked = "".join(ch for ch in decomposed if not unicodedata.combining(ch) or ch in kept)
    return unicodedata.normalize("NFKC", unmarked)


def test_letters_that_skip_decomposing_read_as_if_they_had_not() -> None:
    stable = re.compile(f"[{_STABLE}]")
    letters = [chr(code) for code in range(0x30000) if stable.match(chr(code))]
    assert len(letters) > 30_000  # Hangul, CJK, kana, Arabic, Cyrillic and Greek letters
    different = [
        letter
        for letter in letters
        if normalise(f"a{letter}a") != normalise(f"a{_decomposed_and_composed(letter)}a")
        or _decomposed_and_composed(letter) != letter
    ]
    assert different == []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("か\u3099", "が"),  # a kana and its voicing mark typed apart compose
        ("가\u11a8", "각"),  # a Hangul syllable and a final jamo typed apart compose
        ("ا\u0654", "ا"),  # a hamza typed apart still goes
        ("и\u0306", "и"),  # a breve typed apart still goes
    ],
)
def test_a_stable_letter_followed_by_a_mark_is_composed_with_it(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


def test_the_grouped_finder_finds_the_longest_beginning_among_many_first_letters() -> None:
    # Hundreds of first letters, in several groups: each start is still found, the longest first.
    words = [chr(0x4E00 + step) + "死" for step in range(400)] + ["想死", "想死了"]
    patterns = [re.compile(re.escape(word)) for word in words]
    index = StartIndex.of(patterns)
    assert index.searched == ()
    text = "我" + "".join(chr(0x4E00 + step) + "死" for step in range(0, 400, 37)) + "又想死了"
    found = index.matches(text)
    expected = {number for number, pattern in enumerate(patterns) if pattern.search(text)}
    assert set(found) == expected
    assert found[len(words) - 1][0].group() == "想死了"


def test_a_rule_without_spaces_is_listed_by_three_characters_where_they_suffice() -> None:
    # Three characters of an ideograph run tell its rules apart and keep the finder small...
    assert anywhere_strings("我想(?:死|自杀|消失)") == {"我想死", "我想自", "我想消"}
    # ...but a beginning must hold such a letter, so a Latin word before kana is kept longer.
    latin_first = anywhere_strings("(?:gps|airtag)(?:を)?つけられ")
    assert latin_first == {"gpsをつけら", "gpsつけられ", "airtagを", "airtagつ"}


def test_a_rule_with_many_beginnings_in_another_script_is_listed_by_four_letters() -> None:
    words = [f"{first}{second}ب" for first in "بتثجحخدذرزسشصضطظعغ" for second in "ابتثجحخدذرزسشصض"]
    arabic = r"\b(?:و|ف)?(?:" + "|".join(words) + ")يد"
    starts = starting_strings(arabic)
    assert starts is not None and 0 < len(starts) <= 1000
    assert all(len(text) <= 4 for text in starts)
    index = StartIndex.of([re.compile(arabic)])
    assert index.searched == ()
    assert index.matches("قال وبتبيد هنا")  # still found, after "and"
    # Latin rules keep their seven letters, whatever their number.
    many = [f"{a}{b}{c}xyzw" for a in "abcdefghi" for b in "jklmnopq" for c in "rstuvwxy"]
    latin = starting_strings(r"\b(?:" + "|".join(many) + ")")
    assert latin is not None and len(latin) > 500
    assert all(len(text) == 7 for text in latin)
