"""What `steady content check` checks of the learned stage: a well-formed corpus, and a
model that is the one trained on it.

A corpus edited without retraining fails the check, naming the command that retrains, so a
model never lags behind the messages it claims to have learned from.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bot.content_pack.findings import Finding
from bot.safety.corpus import CORPUS_DIR, LABELS, read_corpus
from bot.safety.model import (
    MANIFEST_FILE,
    MODEL_FILE,
    ModelUnavailable,
    feature_config,
    file_sha256,
    load_model,
    read_manifest,
)
from bot.safety.second_stage import MODEL_DIR

RETRAIN = "run `python -m bot.safety.training` (needs the [train] extra) and commit its output"


def check_learned_stage(content_dir: Path) -> tuple[list[Finding], list[str]]:
    """(failures, notes): the corpus's problems and the model's, and the corpus's size."""
    corpus, failures = read_corpus(content_dir)
    by_language: dict[str, Counter[str]] = {}
    for example in corpus.examples:
        by_language.setdefault(example.language, Counter())[example.label] += 1
    notes = [
        f"corpus {language}: {sum(labels.values())} messages ("
        + ", ".join(f"{label} {labels[label]}" for label in LABELS)
        + ")"
        for language, labels in sorted(by_language.items())
    ]
    folder = content_dir / MODEL_DIR
    if not corpus.examples:
        return failures, notes
    where = str(folder / MANIFEST_FILE)
    try:
        manifest = read_manifest(folder)
    except ModelUnavailable as error:
        return [*failures, Finding(where, f"{error}; {RETRAIN}")], notes
    model_path = folder / MODEL_FILE
    if not model_path.is_file():
        return [*failures, Finding(str(model_path), f"missing; {RETRAIN}")], notes
    if file_sha256(model_path) != manifest.model_sha256:
        failures.append(Finding(where, f"{MODEL_FILE} does not match its SHA-256; {RETRAIN}"))
    elif dict(manifest.features) != feature_config():
        failures.append(Finding(where, f"trained on other features than the code reads; {RETRAIN}"))
    else:
        try:
            load_model(folder)
        except ModelUnavailable as error:
            failures.append(Finding(where, f"{error}; {RETRAIN}"))
    if manifest.corpus_sha256 != corpus.digest:
        failures.append(
            Finding(
                where,
                f"the model is stale: it was trained on {manifest.corpus_messages} messages of"
                f" {content_dir / CORPUS_DIR} and the corpus has changed since (now"
                f" {len(corpus.examples)} messages); {RETRAIN}",
            )
        )
    notes.append(
        f"learned stage: trained {manifest.trained_on} on {manifest.corpus_messages} messages,"
        f" languages {', '.join(manifest.languages)}"
    )
    return failures, notes
