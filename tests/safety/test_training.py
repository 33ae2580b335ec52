"""Training the learned stage: the same corpus gives the same bytes, every corpus file is
a language the model can tell, and the content check refuses a model that is not the one
trained on the corpus as it stands."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from bot.safety.corpus import CORPUS_DIR, LABELS, read_corpus
from bot.safety.model import MANIFEST_FILE, MODEL_FILE, load_model, read_manifest
from bot.safety.normalise import normalise_lines
from bot.safety.second_stage import MODEL_DIR
from bot.safety.stage_check import check_learned_stage
from bot.safety.training import main

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"
# A second language, only so the language head has two to tell apart.
SPANISH = {
    "crisis": ["ya no quiero vivir", "me quiero ir para siempre", "tengo las pastillas aqui"],
    "danger": ["me dijo que me va a matar", "esta afuera de mi casa gritando"],
    "urge": ["quiero escribirle ya", "lo extraño y quiero llamarlo"],
    "contacted": ["me escribió anoche", "me llamó tres veces"],
    "ordinary": [
        "hoy hice sopa de verduras",
        "el autobús llegó tarde otra vez",
        "mi hermana viene el domingo",
        "fui al parque con los niños",
        "estoy cansada pero bien",
    ],
}


def small_corpus(content_dir: Path, per_label: int = 40) -> Path:
    """The first messages of each English label, and a few Spanish ones."""
    english = yaml.safe_load((REPO_CONTENT / CORPUS_DIR / "en.yaml").read_text("utf-8"))
    folder = content_dir / CORPUS_DIR
    folder.mkdir(parents=True)
    labels = {label: english["labels"][label][:per_label] for label in LABELS}
    (folder / "en.yaml").write_text(yaml.safe_dump({"language": "en", "labels": labels}), "utf-8")
    spanish = {"language": "es", "labels": SPANISH}
    (folder / "es.yaml").write_text(yaml.safe_dump(spanish, allow_unicode=True), "utf-8")
    return content_dir


def test_training_twice_writes_the_same_bytes(tmp_path: Path) -> None:
    content = small_corpus(tmp_path / "content")
    for run in ("first", "second"):
        shutil.rmtree(content / MODEL_DIR, ignore_errors=True)
        assert main(["--content", str(content)]) == 0
        (tmp_path / run).write_bytes((content / MODEL_DIR / MODEL_FILE).read_bytes())
    assert (tmp_path / "first").read_bytes() == (tmp_path / "second").read_bytes()
    manifest = read_manifest(content / MODEL_DIR)
    corpus, _ = read_corpus(content)
    assert manifest.corpus_sha256 == corpus.digest
    assert manifest.languages == ("en", "es")
    assert manifest.training["seed"] and manifest.trained_on


def test_the_language_head_tells_the_corpus_languages_apart(tmp_path: Path) -> None:
    content = small_corpus(tmp_path / "content")
    assert main(["--content", str(content)]) == 0
    manifest = read_manifest(content / MODEL_DIR)
    # Too few harmless validation messages in either language for a threshold of its own:
    # each takes the higher of its own and the pooled one.
    validation = manifest.training["validation"]
    assert {validation[language]["own_or_pooled"] for language in ("en", "es")} == {
        "higher of own and pooled"
    }
    assert min(manifest.thresholds.values()) >= manifest.global_threshold
    assert 0 < manifest.global_threshold < 1
    model = load_model(content / MODEL_DIR)
    assert model.verdict(normalise_lines("mañana voy a comprar pan con mi madre")).language == "es"
    assert (
        model.verdict(normalise_lines("going to buy bread with my mum tomorrow")).language == "en"
    )


def copy_of_the_shipped_stage(tmp_path: Path) -> Path:
    content = tmp_path / "content"
    shutil.copytree(REPO_CONTENT / CORPUS_DIR, content / CORPUS_DIR)
    shutil.copytree(REPO_CONTENT / MODEL_DIR, content / MODEL_DIR)
    return content


def test_the_shipped_model_is_the_one_trained_on_the_shipped_corpus(tmp_path: Path) -> None:
    failures, notes = check_learned_stage(copy_of_the_shipped_stage(tmp_path))
    assert failures == []
    assert any(note.startswith("corpus en: ") for note in notes)


def test_a_corpus_edited_without_retraining_fails_the_content_check(tmp_path: Path) -> None:
    content = copy_of_the_shipped_stage(tmp_path)
    english = content / CORPUS_DIR / "en.yaml"
    english.write_text(
        english.read_text("utf-8").replace(
            "  ordinary:\n", "  ordinary:\n    - 'a brand new message'\n", 1
        ),
        "utf-8",
    )
    [stale] = check_learned_stage(content)[0]
    assert stale.where == str(content / MODEL_DIR / MANIFEST_FILE)
    assert "the model is stale" in stale.message
    assert "python -m bot.safety.training" in stale.message


def test_a_model_file_that_is_not_the_manifests_fails_the_content_check(tmp_path: Path) -> None:
    content = copy_of_the_shipped_stage(tmp_path)
    model = content / MODEL_DIR / MODEL_FILE
    model.write_bytes(model.read_bytes() + b"\0")
    [wrong] = check_learned_stage(content)[0]
    assert "does not match its SHA-256" in wrong.message
    model.unlink()
    [missing] = check_learned_stage(content)[0]
    assert missing.where == str(model) and "missing" in missing.message


def test_a_broken_corpus_file_fails_the_content_check_by_line(tmp_path: Path) -> None:
    content = copy_of_the_shipped_stage(tmp_path)
    (content / CORPUS_DIR / "xx.yaml").write_text("language: xx\nlabels:\n  joy: ['yay']\n")
    failures, _ = check_learned_stage(content)
    assert str(failures[0]) == (
        f"{content / CORPUS_DIR / 'xx.yaml'}:3: unknown label 'joy' ({', '.join(LABELS)})"
    )
