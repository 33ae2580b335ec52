"""Train the learned safety stage on the corpus: `python -m bot.safety.training`.

Needs scikit-learn (`pip install -e '.[train]'`); the bot itself never does. Reads every
corpus file in content/detection/corpus/, trains three logistic regressions on the
training split (fixed seed, deterministic solver), sets each language's threshold on its
validation split, and writes content/detection/model/: the arrays (`safety_model.npz`) and
`manifest.json`. Training twice on the same corpus writes the same arrays, byte for byte.

- safety head: crisis and danger against urges, contact and ordinary talk. Softened
  messages (the past, a negation, someone else, a quote, an accident) are left out: the
  rules answer those with a check from their own words, and taught as wanting a check they
  lent weight to the words hyperbole and hard negatives share with them ("that hike
  nearly killed me"), raising ordinary talk;
- lean head: danger against crisis, on those messages only;
- language head: the corpus file each message is in.

Thresholds: on each language's validation split, the lowest score that at most
TARGET_FALSE_CHECKS of its harmless messages (urge, contacted, ordinary) exceed, counting
only those the model may raise: those the rules leave below a check and that have enough
words to judge (model.MIN_WORDS; it reads the others but cannot raise them). Each
language's own where it can be trusted: the model's scores are on another scale in each
(a language with 300 training messages scores its unseen crisis wording lower than
English does). But the highest of n harmless scores is exceeded by about 1 in
(n + 1) unseen harmless messages, so fewer than MIN_HARMLESS (1 / TARGET_FALSE_CHECKS)
cannot show the target is met: such a language takes the higher of its own threshold and
the one of every language's harmless messages together.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bot.content_pack.loader import ContentError, load_detection
from bot.safety.corpus import DANGEROUS, HARMLESS, Corpus, Example, Split, read_corpus
from bot.safety.features import (
    BITS,
    LANGUAGE_BITS,
    Features,
    counts,
    features,
    model_text,
    vector,
)
from bot.safety.model import (
    MANIFEST_FILE,
    MODEL_FILE,
    LearnedModel,
    Manifest,
    enough_words,
    feature_config,
)
from bot.safety.normalise import normalise_lines
from bot.safety.screen import detectors_for
from bot.safety.second_stage import MAY_RAISE, MODEL_DIR

SEED = 20261202
REGULARISATION = 10.0  # scikit-learn's C: the inverse strength of the L2 penalty
MAX_ITERATIONS = 5000
TARGET_FALSE_CHECKS = 0.03  # of harmless validation messages raised to a check
# Harmless validation messages a language needs for a threshold of its own (see above).
MIN_HARMLESS = math.ceil(1 / TARGET_FALSE_CHECKS)
TAUGHT = DANGEROUS | HARMLESS  # the labels the safety head learns from
_Row = tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]  # buckets, values
BelowCheck = Callable[[str], bool]


class TrainingError(Exception):
    pass


@dataclass(frozen=True)
class Trained:
    arrays: dict[str, npt.NDArray[Any]]
    manifest: Manifest

    def npz_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez_compressed(buffer, allow_pickle=False, **self.arrays)
        return buffer.getvalue()

    def signed(self) -> Trained:
        """The same, its manifest holding the SHA-256 of the arrays as written."""
        digest = hashlib.sha256(self.npz_bytes()).hexdigest()
        return Trained(self.arrays, replace(self.manifest, model_sha256=digest))


def train(corpus: Corpus, today: str, below_check: BelowCheck | None = None) -> Trained:
    """The model and its manifest, from the corpus (no file is written). `below_check`
    says whether the rules leave a text below a check; None: as if they left every one."""
    training = corpus.of(Split.TRAIN)
    if not any(example.dangerous for example in training) or not any(
        example.label in HARMLESS for example in training
    ):
        raise TrainingError("the training split needs both crisis or danger and harmless talk")
    read = [features(model_text(example.text)) for example in training]
    matrix = _matrix([vector(found) for found in read], 2**BITS)
    taught = [number for number, example in enumerate(training) if example.label in TAUGHT]
    safety, safety_bias = _fit(matrix[taught], [training[number].dangerous for number in taught])
    dangerous = [number for number, example in enumerate(training) if example.dangerous]
    lean, lean_bias = _fit(
        matrix[dangerous], [training[number].label == "danger" for number in dangerous]
    )
    languages = corpus.languages
    language_weights, language_bias = _fit_languages(read, training, languages)
    arrays: dict[str, npt.NDArray[Any]] = {
        "weights": np.stack([safety, lean], axis=1).astype(np.float32),
        "bias": np.array([safety_bias, lean_bias], dtype=np.float32),
        "language_weights": language_weights.astype(np.float32),
        "language_bias": language_bias.astype(np.float32),
        "languages": np.array(languages),
    }
    model = LearnedModel.of(arrays, thresholds={}, global_threshold=1.0)
    thresholds, global_threshold, measured = _thresholds(model, corpus, below_check)
    manifest = Manifest(
        model_sha256="",
        trained_on=today,
        corpus_sha256=corpus.digest,
        corpus_messages=len(corpus.examples),
        languages=languages,
        thresholds=thresholds,
        global_threshold=global_threshold,
        features=feature_config(),
        training={
            "command": "python -m bot.safety.training",
            "seed": SEED,
            "regularisation": REGULARISATION,
            "target_false_checks": TARGET_FALSE_CHECKS,
            "min_harmless_for_own_threshold": MIN_HARMLESS,
            "training_messages": len(training),
            "scikit_learn": version("scikit-learn"),
            "numpy": version("numpy"),
            "validation": measured,
        },
    )
    return Trained(arrays, manifest).signed()


def _matrix(
    rows: Sequence[tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]], width: int
) -> Any:
    """A sparse matrix of (buckets, values) rows."""
    from scipy.sparse import csr_matrix  # noqa: PLC0415  (training only)

    indptr = np.cumsum([0, *(len(buckets) for buckets, _ in rows)])
    indices = np.concatenate([buckets for buckets, _ in rows])
    values = np.concatenate([values for _, values in rows])
    return csr_matrix((values, indices, indptr), shape=(len(rows), width))


def _fit(matrix: Any, targets: Sequence[bool]) -> tuple[npt.NDArray[np.float64], float]:
    """A binary logistic regression's weights and bias; zeros when one class is missing."""
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415  (training only)

    labels = np.array(targets, dtype=np.int64)
    if len(set(labels.tolist())) < 2:
        return np.zeros(matrix.shape[1]), 0.0
    fitted = LogisticRegression(
        C=REGULARISATION,
        class_weight="balanced",
        max_iter=MAX_ITERATIONS,
        random_state=SEED,
    ).fit(matrix, labels)
    return fitted.coef_[0], float(fitted.intercept_[0])


def _fit_languages(
    read: Sequence[Features], training: Sequence[Example], languages: tuple[str, ...]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Multinomial regression over the languages; with one language, nothing to learn."""
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415  (training only)

    width = 2**LANGUAGE_BITS
    if len(languages) < 2:
        return np.zeros((width, len(languages))), np.zeros(len(languages))
    matrix = _matrix([counts(found.language) for found in read], width)
    labels = np.array([languages.index(example.language) for example in training])
    # Balanced: a language with a smaller corpus is not read as the biggest one.
    fitted = LogisticRegression(
        C=REGULARISATION, class_weight="balanced", max_iter=MAX_ITERATIONS, random_state=SEED
    )
    fitted.fit(matrix, labels)
    if len(languages) == 2:  # one row of weights: the second language against the first
        zero = np.zeros_like(fitted.coef_[0])
        return np.stack([zero, fitted.coef_[0]], axis=1), np.array([0.0, fitted.intercept_[0]])
    return fitted.coef_.T, fitted.intercept_


def _thresholds(
    model: LearnedModel, corpus: Corpus, below_check: BelowCheck | None
) -> tuple[dict[str, float], float, dict[str, Any]]:
    """Each language's threshold (and the pooled one), with what they give on validation."""
    scored: dict[str, list[tuple[float, Example, bool]]] = {}
    for example in corpus.of(Split.VALIDATION):
        lined = normalise_lines(example.text)
        verdict = model.verdict(lined)
        # What the model may raise: below a check by the rules, and long enough to judge.
        below = (below_check is None or below_check(example.text)) and enough_words(lined)
        scored.setdefault(example.language, []).append((verdict.score, example, below))
    raisable = {
        language: [score for score, example, below in pairs if below and example.label in HARMLESS]
        for language, pairs in scored.items()
    }
    global_threshold = _threshold([score for scores in raisable.values() for score in scores])
    thresholds: dict[str, float] = {}
    measured: dict[str, Any] = {}
    for language, pairs in sorted(scored.items()):
        harmless = raisable[language]
        own = len(harmless) >= MIN_HARMLESS
        threshold = _threshold(harmless) if own else max(_threshold(harmless), global_threshold)
        thresholds[language] = threshold
        dangerous = [(score, below) for score, example, below in pairs if example.dangerous]
        measured[language] = {
            "threshold": threshold,
            "own_or_pooled": "own" if own else "higher of own and pooled",
            "harmless_below_check": len(harmless),
            "harmless_raised": sum(score > threshold for score in harmless),
            "dangerous": len(dangerous),
            "dangerous_caught_by_rules": sum(not below for _, below in dangerous),
            "dangerous_raised": sum(below and score > threshold for score, below in dangerous),
            # What the model reaches on its own, whatever the rules caught.
            "dangerous_over_threshold": sum(score > threshold for score, _ in dangerous),
        }
    return thresholds, global_threshold, measured


def _threshold(harmless: Sequence[float]) -> float:
    """The score that at most TARGET_FALSE_CHECKS of these harmless scores exceed."""
    if not harmless:
        return 1.0
    ordered = sorted(harmless, reverse=True)
    allowed = math.floor(TARGET_FALSE_CHECKS * len(ordered))
    return round(ordered[min(allowed, len(ordered) - 1)], 4)


def write(trained: Trained, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MODEL_FILE).write_bytes(trained.npz_bytes())
    text = json.dumps(trained.manifest.as_json(), indent=2, ensure_ascii=False) + "\n"
    (folder / MANIFEST_FILE).write_text(text, "utf-8")


def _rules(content: Path) -> BelowCheck | None:
    """Whether the content folder's rules leave a text below a check, as the screen asks
    before the model may raise it; None (with a note) when the folder holds no rules."""
    try:
        locales, languages = load_detection(content)
    except ContentError as error:
        for problem in error.problems:
            print(f"note: {problem}", file=sys.stderr)
        print("note: no rules read; thresholds set on every harmless message", file=sys.stderr)
        return None
    detector = next(iter(detectors_for(locales, languages).values()))
    return lambda text: detector.detect(text).reply in MAY_RAISE


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.safety.training", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--content", type=Path, default=Path("content"), help="content folder")
    args = parser.parse_args(argv)
    corpus, problems = read_corpus(args.content)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    try:
        trained = train(corpus, datetime.now(UTC).date().isoformat(), _rules(args.content))
    except TrainingError as error:
        print(f"cannot train: {error}", file=sys.stderr)
        return 1
    write(trained, args.content / MODEL_DIR)
    manifest = trained.manifest
    print(
        f"trained on {manifest.training['training_messages']} of {manifest.corpus_messages}"
        f" messages in {len(manifest.languages)} language(s); model {manifest.model_sha256[:12]}"
    )
    for language, figures in manifest.training["validation"].items():
        print(f"  {language}: {json.dumps(figures)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
