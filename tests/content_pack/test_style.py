"""The content check's rules of style: verbal tics under their limits, one way of writing
each thing per locale, and no run of eight words shared by two items."""

from __future__ import annotations

from pathlib import Path

from bot.content_pack.audit import AuditReport, audit_pack, texts_of
from bot.content_pack.findings import Finding
from bot.content_pack.house_style import find_off_style, read_house_style
from bot.content_pack.loader import load_pack
from bot.content_pack.pack import ContentPack
from bot.content_pack.repeats import find_shared_runs, item_of
from bot.content_pack.tics import (
    SHAPE_LIMITS,
    WORD_LIMITS,
    asks_then_answers,
    first_word,
    measure,
    tic_report,
)
from tests.helpers.synthetic_pack import OPENERS, set_item, write_pack


def audit(content: Path) -> AuditReport:
    return audit_pack(load_pack(content, "en"), content)


def failures(report: AuditReport) -> list[str]:
    return [str(finding) for finding in report.failures]


def _write_cards(content: Path, texts: dict[int, str]) -> None:
    """Card n's words become texts[n], in every locale (the items stay alike)."""
    for locale in ("en", "es"):
        for number, text in texts.items():
            set_item(content / locale / "affirmations.yaml", f"syn-a-{number}", text=text)


# Shapes and words, as the check reads them


def test_a_question_then_an_answer_is_one_shape_and_questions_alone_are_not() -> None:
    assert asks_then_answers("Restless today? Your body may be looking for the old rhythm.")
    assert asks_then_answers("¿Inquietud hoy? El cuerpo busca el ritmo de antes.")
    assert not asks_then_answers("Which mug do you reach for? Which chair?")
    assert not asks_then_answers("What would help right now?")
    assert not asks_then_answers("Rest first. What would help?")


def test_first_words_skip_opening_marks() -> None:
    assert first_word("¿Si lo piensas?") == "si"
    assert first_word("«Otra vez tú», dices.") == "otra"
    assert first_word('"Maybe I was the problem" is a thought') == "maybe"
    assert first_word("If, for a moment, ...") == "if"


def test_the_limits_name_every_tic_the_issue_named() -> None:
    assert set(WORD_LIMITS) == {"counts", "allowed", "small", "you can / could / might"}
    assert {'opens with "If"', 'opens with "You"', "a question, then an answer"} < set(SHAPE_LIMITS)
    assert all(0 < limit < 0.5 for limit in (*WORD_LIMITS.values(), *SHAPE_LIMITS.values()))


def test_spanish_counts_only_the_tic_not_a_bill_or_noticing(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    _write_cards(
        content,
        {
            1: "Pagar la cuenta también es cuidarte.",
            2: "Te diste cuenta a tiempo.",
            3: "Tenerlo en cuenta ayuda.",
            4: "Eso también cuenta.",
        },
    )
    shares = {share.name: share for share in measure(load_pack(content, "en").locales["es"])}
    assert shares["cuenta"].ids == ("syn-a-4",)


# The check itself, on packs made to fail it


def test_a_tic_over_its_limit_fails_and_names_its_cards(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    # 180 affirmations and 100 replies open; 12 question-then-answer cards is 4.3%. Each
    # keeps its own first word, so only the shape is over.
    asked = {n: f"{OPENERS[n]} today? Rest a little, then {n}." for n in range(24)}
    _write_cards(content, {n: asked[n] for n in range(12)})
    report = tic_report(load_pack(content, "en").locales["en"])
    assert report[1] == []
    _write_cards(content, {n: asked[n] for n in range(12, 24)})
    lines, over = tic_report(load_pack(content, "en").locales["en"])
    assert [str(f).split(":")[0] for f in over] == ["en/cards"]
    assert "'a question, then an answer' in 8.6%, over its limit of 6%" in str(over[0])
    assert "syn-a-0, syn-a-1," in str(over[0])
    assert any("8.6% /   6%  a question, then an answer  OVER" in line for line in lines)


def test_every_word_tic_is_reported_per_locale(tmp_path: Path) -> None:
    lines, _ = tic_report(load_pack(write_pack(tmp_path), "en").locales["es"])
    assert lines[0].startswith("es: verbal tics, in 292 cards")
    for name in ("cuenta", "pequeño", "puedes / podrías / quizá", 'opens with "Si"'):
        assert any(line.endswith(name) for line in lines), name


def test_an_avoided_form_is_named_with_the_form_to_use(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    (content / "en" / "house_style.yaml").write_text(
        "locale: en\navoid:\n  judgment: judgement\n  «: '\"'\n"
        "patterns:\n  - pattern: '\\bhues?\\b'\n    why: say the colour\n",
        "utf-8",
    )
    _write_cards(content, {3: "Your judgment is yours.", 4: "A «word».", 5: "Pick a hue."})
    _write_cards(content, {6: "Judgmental people exist."})  # another word, left alone
    pack = load_pack(content, "en")
    style = read_house_style(content / "en", [])
    assert style is not None
    found = [str(f) for f in find_off_style(pack.locales["en"], style, texts_of_en(pack))]
    assert found == [
        "en/affirmations.yaml syn-a-3: writes 'judgment': the pack writes 'judgement' ('judgment')",
        "en/affirmations.yaml syn-a-4: writes '«': the pack writes '\"' ('«')",
        "en/affirmations.yaml syn-a-5: say the colour ('hue')",
    ]


def texts_of_en(pack: ContentPack) -> list[tuple[str, str]]:
    return list(texts_of(pack.locales["en"]))


def test_a_broken_house_style_is_a_failure_not_a_crash(tmp_path: Path) -> None:
    folder = tmp_path / "en"
    folder.mkdir()
    (folder / "house_style.yaml").write_text("locale: en\npatterns:\n  - pattern: '(('\n", "utf-8")
    problems: list[Finding] = []
    assert read_house_style(folder, problems) is None
    assert len(problems) == 1 and "cannot read the house style" in str(problems[0])


def test_eight_shared_words_fail_and_seven_do_not() -> None:
    seven = [
        ("affirmations.yaml a-1", "One two three four five six seven, then rest."),
        ("checkin_replies.yaml r-1", "Now: one two three four five six seven."),
    ]
    assert find_shared_runs("en", seven) == []
    eight = [
        ("affirmations.yaml a-1", "One two three four five six seven eight, then rest."),
        ("checkin_replies.yaml r-1", "Now: one two three four five six seven eight."),
    ]
    assert [str(f) for f in find_shared_runs("en", eight)] == [
        "en/checkin_replies.yaml r-1: shares 8 words with affirmations.yaml a-1: "
        "'one two three four five six seven eight'"
    ]


def test_one_item_may_repeat_itself_and_a_declared_phrase_may_repeat() -> None:
    phrase = "anyone who can open this device can read this chat"
    texts = [
        ("messages.yaml forget.done", f"Deleted. {phrase}."),
        ("messages.yaml forget.done@telegram", f"Deleted, and {phrase}."),
        ("messages.yaml wipe.done (one)", f"One gone; {phrase}."),
        ("messages.yaml wipe.done (other)", f"Some gone; {phrase}."),
    ]
    assert [item_of(where) for where, _ in texts[1:3]] == [
        "messages.yaml forget.done",
        "messages.yaml wipe.done",
    ]
    assert len(find_shared_runs("en", texts)) == 1
    assert find_shared_runs("en", texts, on_purpose=[phrase]) == []


# What `steady content check` does with them


def test_the_check_fails_a_pack_whose_tic_is_over_its_limit(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    assert failures(audit(content)) == []
    # 12 of the 292 English cards say "counts" (4.1%): over the limit of 3%. The Spanish
    # cards stay as they were, so only English fails.
    for number in range(12):
        set_item(
            content / "en" / "affirmations.yaml",
            f"syn-a-{number}",
            text=f"{OPENERS[number]} step {number} counts.",
        )
    report = audit(content)
    found = failures(report)
    assert len(found) == 1, found
    assert found[0].startswith("en/cards: 'counts' in 4.1%, over its limit of 3%")
    assert "syn-a-0, syn-a-1" in found[0]
    assert any(note.endswith("counts  OVER") for note in report.notes)


def test_the_check_fails_a_form_the_house_style_does_not_use(tmp_path: Path) -> None:
    content = write_pack(tmp_path)
    (content / "es" / "house_style.yaml").write_text(
        "locale: es\navoid:\n  vosotros: ustedes\n", "utf-8"
    )
    assert failures(audit(content)) == []
    set_item(content / "es" / "affirmations.yaml", "syn-a-3", text="Vosotros también.")
    assert failures(audit(content)) == [
        "es/affirmations.yaml syn-a-3: writes 'vosotros': the pack writes 'ustedes' ('Vosotros')"
    ]
