"""The labelled corpus of the learned stage: its format is checked, its split is stable,
and the rule loader never mistakes it for rules."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bot.content_pack.loader import load_detection
from bot.content_pack.pack import ContentPack
from bot.safety.corpus import CORPUS_DIR, LABELS, Corpus, Split, read_corpus, split_of

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"


def corpus_file(tmp_path: Path, language: str, body: str) -> Path:
    folder = tmp_path / CORPUS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{language}.yaml"
    path.write_text(body, "utf-8")
    return tmp_path


def problems_in(body: str, tmp_path: Path, language: str = "en") -> list[str]:
    _, problems = read_corpus(corpus_file(tmp_path, language, body))
    return [str(problem) for problem in problems]


def test_a_well_formed_file_gives_its_messages_with_their_labels(tmp_path: Path) -> None:
    body = (
        "language: en\n"
        "labels:\n"
        "  crisis: ['i cant go on', 'the rope is in the car']\n"
        "  ordinary:\n"
        "    - |-\n"
        "      long day\n"
        "      made soup\n"
    )
    corpus, problems = read_corpus(corpus_file(tmp_path, "en", body))
    assert problems == []
    assert [(e.language, e.label, e.text) for e in corpus.examples] == [
        ("en", "crisis", "i cant go on"),
        ("en", "crisis", "the rope is in the car"),
        ("en", "ordinary", "long day\nmade soup"),
    ]


def test_unknown_labels_and_keys_duplicates_and_empty_messages_are_reported_by_line(
    tmp_path: Path,
) -> None:
    body = (
        "language: en\n"  # 1
        "source: me\n"  # 2
        "labels:\n"  # 3
        "  crisis:\n"  # 4
        "    - 'i want to die'\n"  # 5
        "    - ''\n"  # 6
        "    - 42\n"  # 7
        "  ordinary:\n"  # 8
        "    - 'I  WANT to die'\n"  # 9: the same message as line 5, as the screen reads it
        "  sadness: ['so sad']\n"  # 10
        "  urge: 'text him'\n"  # 11
    )
    found = problems_in(body, tmp_path)
    where = str(tmp_path / CORPUS_DIR / "en.yaml")
    assert found == [
        f"{where}:2: unknown key 'source' (expected language, labels)",
        f"{where}:6: crisis: empty message",
        f"{where}:7: crisis: a message must be a string, not int",
        f"{where}:9: ordinary: the same message as on line 5",
        f"{where}:10: unknown label 'sadness' ({', '.join(LABELS)})",
        f"{where}:11: urge: expected a list of messages",
    ]


def test_the_language_must_name_the_file_and_broken_yaml_is_a_problem_not_a_crash(
    tmp_path: Path,
) -> None:
    assert problems_in("language: es\nlabels: {}\n", tmp_path) == [
        f"{tmp_path / CORPUS_DIR / 'en.yaml'}:1: language must be 'en', as the file"
    ]
    [broken] = problems_in("language: de\nlabels: [\n", tmp_path / "other", language="de")
    assert broken.startswith(f"{tmp_path / 'other' / CORPUS_DIR / 'de.yaml'}:3: ")


def test_a_message_keeps_its_split_whatever_is_added_around_it(tmp_path: Path) -> None:
    first = corpus_file(tmp_path, "en", "language: en\nlabels:\n  ordinary: ['made soup']\n")
    corpus, _ = read_corpus(first)
    before = {e.text: e.split for e in corpus.examples}
    body = "language: en\nlabels:\n  crisis: ['x1', 'x2']\n  ordinary: ['made tea', 'made soup']\n"
    corpus, _ = read_corpus(corpus_file(tmp_path, "en", body))
    after = {e.text: e.split for e in corpus.examples}
    assert after["made soup"] == before["made soup"] == split_of("en", "made soup")
    # The split is the language's too: the same words in two files may land apart.
    assert {split_of(code, "ok") for code in ("en", "es", "de", "fr", "pt", "it")} != {
        split_of("en", "ok")
    }


def test_the_shipped_corpus_is_well_formed_and_split_about_70_15_15() -> None:
    corpus, problems = read_corpus(REPO_CONTENT)
    assert problems == []
    english = [e for e in corpus.examples if e.language == "en"]
    assert len(english) >= 1500
    labels = Counter(e.label for e in english)
    assert set(labels) == set(LABELS)
    assert labels["crisis"] >= 300 and labels["ordinary"] >= 400
    splits = Counter(e.split for e in english)
    assert 0.65 < splits[Split.TRAIN] / len(english) < 0.75
    assert 0.11 < splits[Split.VALIDATION] / len(english) < 0.19
    assert 0.11 < splits[Split.TEST] / len(english) < 0.19


def test_the_digest_follows_the_messages_not_their_order() -> None:
    corpus, _ = read_corpus(REPO_CONTENT)
    assert Corpus(tuple(reversed(corpus.examples))).digest == corpus.digest
    assert Corpus(corpus.examples[1:]).digest != corpus.digest


def test_the_rule_loader_never_reads_the_corpus_as_rules(content: ContentPack) -> None:
    """content/detection/*.yaml are rule files; the corpus lives a folder below them."""
    rule_files = sorted(path.stem for path in (REPO_CONTENT / "detection").glob("*.yaml"))
    assert sorted(file.locale for file in content.languages) == rule_files
    _, languages = load_detection(REPO_CONTENT)
    assert sorted(file.locale for file in languages) == rule_files
    assert (REPO_CONTENT / CORPUS_DIR / "en.yaml").is_file()
