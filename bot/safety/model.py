"""The learned stage at run time: plain arrays read with numpy, and the arithmetic on them.

The model lives in `content/detection/model/`: `safety_model.npz` (numpy arrays only,
read with `allow_pickle=False`) and `manifest.json`, which records the arrays' SHA-256,
the day they were trained, the SHA-256 of the corpus they were trained on, the features
they expect and the threshold of each language. `python -m bot.safety.training` writes
both; nothing here needs scikit-learn.

Three linear heads over the features of bot/safety/features.py:

- safety: how likely the words call for a check (crisis, danger, or such words softened),
  read per window (each segment, and each pair of neighbouring segments) and the highest
  window taken, so one crisis line among ten ordinary ones still counts;
- lean: in that window, danger from another person rather than a crisis of one's own;
- language: which corpus language the text is written in.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bot.safety import features as feature_set
from bot.safety.features import Features, features, language_buckets, segments
from bot.safety.rules import ModelVerdict, pieces

MODEL_FILE = "safety_model.npz"
MANIFEST_FILE = "manifest.json"
FORMAT = 1
# The arrays of MODEL_FILE, by name: (dtype kind, number of dimensions).
ARRAYS = {
    "weights": ("f", 2),  # (2**BITS, 2): the safety and lean heads
    "bias": ("f", 1),  # (2,)
    "language_weights": ("f", 2),  # (2**LANGUAGE_BITS, languages)
    "language_bias": ("f", 1),  # (languages,)
    "languages": ("U", 1),  # the language codes, in the order of the language head
}
SAFETY, LEAN = 0, 1


def feature_config() -> dict[str, Any]:
    """What the features are: a model trained on other features cannot be read."""
    return {
        "version": 1,
        "bits": feature_set.BITS,
        "char_sizes": list(feature_set.CHAR_SIZES),
        "words": True,
        "segment_limit": feature_set.SEGMENT_LIMIT,
        "language_bits": feature_set.LANGUAGE_BITS,
        "language_char_sizes": list(feature_set.LANGUAGE_CHAR_SIZES),
        "language_span": feature_set.LANGUAGE_SPAN,
    }


class ModelUnavailable(Exception):
    """The model cannot be used; the message says why, for the log and /healthz."""


@dataclass(frozen=True)
class Manifest:
    model_sha256: str
    trained_on: str  # YYYY-MM-DD
    corpus_sha256: str
    corpus_messages: int
    languages: tuple[str, ...]
    thresholds: Mapping[str, float]  # per language, set on its validation split
    global_threshold: float  # for a language without enough validation messages
    features: Mapping[str, Any]
    training: Mapping[str, Any]  # how it was trained, and what validation measured

    def as_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "model_file": MODEL_FILE,
            "model_sha256": self.model_sha256,
            "trained_on": self.trained_on,
            "corpus_sha256": self.corpus_sha256,
            "corpus_messages": self.corpus_messages,
            "languages": list(self.languages),
            "thresholds": dict(self.thresholds),
            "global_threshold": self.global_threshold,
            "features": dict(self.features),
            "training": dict(self.training),
        }


def read_manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST_FILE
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise ModelUnavailable(f"no {MANIFEST_FILE} in {folder}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelUnavailable(f"{MANIFEST_FILE} cannot be read: {error}") from None
    try:
        if data["format"] != FORMAT:
            raise ModelUnavailable(f"{MANIFEST_FILE} is format {data['format']}, not {FORMAT}")
        return Manifest(
            model_sha256=str(data["model_sha256"]),
            trained_on=str(data["trained_on"]),
            corpus_sha256=str(data["corpus_sha256"]),
            corpus_messages=int(data["corpus_messages"]),
            languages=tuple(str(code) for code in data["languages"]),
            thresholds={str(code): float(value) for code, value in data["thresholds"].items()},
            global_threshold=float(data["global_threshold"]),
            features=dict(data["features"]),
            training=dict(data["training"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ModelUnavailable(f"{MANIFEST_FILE} is missing or misreads {error}") from None


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class LearnedModel:
    weights: npt.NDArray[np.float32]
    bias: npt.NDArray[np.float64]
    language_weights: npt.NDArray[np.float32]
    language_bias: npt.NDArray[np.float64]
    languages: tuple[str, ...]
    thresholds: Mapping[str, float]
    global_threshold: float

    def verdict(self, lined: str, may_raise: bool = True) -> ModelVerdict:
        """The model's reading of a text already through `normalise_lines`: its language,
        its highest window's score, and whether that score raises the reply to a check
        (only when `may_raise`: the rules left the text below a check)."""
        score, lean = 0.0, 0.0
        language = self.languages[0]
        for number, piece in enumerate(pieces(lined)):
            text = segments(piece)
            if number == 0:
                language = self.language_of(text)
            logits = self.window_logits(features(text))
            if len(logits):
                best = int(np.argmax(logits[:, SAFETY]))
                if _sigmoid(logits[best, SAFETY]) > score:
                    score, lean = _sigmoid(logits[best, SAFETY]), float(logits[best, LEAN])
        threshold = self.thresholds.get(language, self.global_threshold)
        return ModelVerdict(
            language=language,
            score=round(score, 4),
            raised=may_raise and score > threshold,
            danger=lean > 0,
        )

    def language_of(self, text: str) -> str:
        buckets = language_buckets(text)
        if len(self.languages) == 1 or not len(buckets):
            return self.languages[0]
        logits = self.language_weights[buckets].sum(axis=0) / np.sqrt(len(buckets))
        return self.languages[int(np.argmax(logits + self.language_bias))]

    def window_logits(self, found: Features) -> npt.NDArray[np.float64]:
        """(windows, 2) logits: each segment, then each pair of neighbouring segments,
        leaving out windows without a feature. A window's features are the sum of its
        segments', scaled as `features.counts` scales a whole text in training."""
        segment_count = len(found.segment_starts)
        sums = np.zeros((segment_count, 2))
        sizes = np.zeros(segment_count)
        for family in found.families:
            total = len(family.buckets)
            if not total:
                continue
            running = np.zeros((total + 1, 2))
            np.cumsum(self.weights[family.buckets], axis=0, dtype=np.float64, out=running[1:])
            first = np.searchsorted(family.starts, found.segment_starts)
            after = np.append(first[1:], total)
            sums += running[after] - running[first]
            sizes += after - first
        if segment_count > 1:
            sums = np.concatenate((sums, sums[:-1] + sums[1:]))
            sizes = np.concatenate((sizes, sizes[:-1] + sizes[1:]))
        kept = sizes > 0
        return np.asarray(sums[kept] / np.sqrt(sizes[kept])[:, None] + self.bias)


def _sigmoid(logit: float) -> float:
    return float(1.0 / (1.0 + np.exp(-logit)))


def load_model(folder: Path) -> LearnedModel:
    """The model in `folder`, checked against its manifest; ModelUnavailable says why not."""
    manifest = read_manifest(folder)
    if dict(manifest.features) != feature_config():
        raise ModelUnavailable("the model was trained on other features than this code reads")
    path = folder / MODEL_FILE
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ModelUnavailable(f"{MODEL_FILE} cannot be read: {error.strerror or error}") from None
    if hashlib.sha256(raw).hexdigest() != manifest.model_sha256:
        raise ModelUnavailable(f"{MODEL_FILE} does not match the SHA-256 in {MANIFEST_FILE}")
    arrays = _arrays(path)
    model = LearnedModel(
        weights=arrays["weights"].astype(np.float32),
        bias=arrays["bias"].astype(np.float64),
        language_weights=arrays["language_weights"].astype(np.float32),
        language_bias=arrays["language_bias"].astype(np.float64),
        languages=tuple(str(code) for code in arrays["languages"]),
        thresholds=manifest.thresholds,
        global_threshold=manifest.global_threshold,
    )
    _check_shapes(model, manifest)
    return model


def _arrays(path: Path) -> dict[str, npt.NDArray[Any]]:
    try:
        with np.load(path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in ARRAYS if name in stored.files}
    except (OSError, ValueError, EOFError) as error:  # not an npz, truncated, or pickled
        raise ModelUnavailable(f"{MODEL_FILE} cannot be read: {error}") from None
    for name, (kind, dimensions) in ARRAYS.items():
        array = arrays.get(name)
        if array is None or array.dtype.kind != kind or array.ndim != dimensions:
            raise ModelUnavailable(f"{MODEL_FILE} lacks a well-formed {name!r}")
    return arrays


def _check_shapes(model: LearnedModel, manifest: Manifest) -> None:
    languages = len(model.languages)
    expected = {
        "weights": (2**feature_set.BITS, 2),
        "bias": (2,),
        "language_weights": (2**feature_set.LANGUAGE_BITS, languages),
        "language_bias": (languages,),
    }
    for name, shape in expected.items():
        if getattr(model, name).shape != shape:
            raise ModelUnavailable(f"{MODEL_FILE}: {name} has the wrong shape")
    if not languages or model.languages != manifest.languages:
        raise ModelUnavailable(f"{MODEL_FILE} and {MANIFEST_FILE} name different languages")
