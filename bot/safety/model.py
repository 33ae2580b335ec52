"""The learned stage at run time: plain arrays read with numpy, and the arithmetic on them.

The model lives in `content/detection/model/`: `safety_model.npz` (numpy arrays only,
read with `allow_pickle=False`) and `manifest.json`, which records the arrays' SHA-256,
the day they were trained, the SHA-256 of the corpus they were trained on, the features
they expect and the threshold of each language. `python -m bot.safety.training` writes
both; nothing here needs scikit-learn.

Three linear heads over the features of bot/safety/features.py:

- safety: how likely the words are crisis or danger wording, read per window (each
  segment, and each pair of neighbouring segments) and the highest window taken, so one
  crisis line among ten ordinary ones still counts;
- lean: in that window, danger from another person rather than a crisis of one's own;
- language: which corpus language the text is written in.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bot.safety import features as feature_set
from bot.safety.features import Features, features, segments
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
SAFETY, LEAN = 0, 1  # the columns of "weights"
# A window with fewer features than this (about ten characters: "done", "some", "3") is
# too short for the model to read; short crisis words are the rules' to catch. A character
# of a script written without spaces counts as three here (WIDE_EXTRA more features):
# "死にたい" (four characters, thirteen features) says as much as "i want to die".
MIN_WINDOW_FEATURES = 30
WIDE_EXTRA = 2  # features a wide character adds to its window's length, beyond its own
# The model raises a message to the check only from this many words: below it ("whenever
# suits", "all right", "be strong", "cuando pueda") its score says more about how little
# there is to read than about the words, and most such messages are answers to the bot's
# own questions. Short crisis words are the rules' to catch ("kms", "quiero morirme"), and
# they never wait for the model. A character of a script written without spaces counts
# as a half word (CHARACTERS_PER_WIDE_WORD): "今日は雨だった" is three and a half.
MIN_WORDS = 3
CHARACTERS_PER_WIDE_WORD = 2
# Letters and digits; the wide ones as features.py reads them (CJK, kana, Hangul).
_WORD_CHARACTER = re.compile(r"[^\W_]")
_WIDE_CHARACTER = re.compile("[\u2e80-\ud7ff\uf900-\ufaff]")
Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


def feature_config() -> dict[str, Any]:
    """What the features are: a model trained on other features cannot be read."""
    return {
        "version": feature_set.VERSION,
        "bits": feature_set.BITS,
        "char_sizes": list(feature_set.CHAR_SIZES),
        "words": [1, 2],
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
    safety: npt.NDArray[np.float32]  # (2**BITS,): the safety head's weights
    lean: npt.NDArray[np.float32]  # (2**BITS,): the lean head's
    bias: npt.NDArray[np.float64]  # (2,): safety, lean
    language_weights: npt.NDArray[np.float32]
    language_bias: npt.NDArray[np.float64]
    languages: tuple[str, ...]
    thresholds: Mapping[str, float]
    global_threshold: float

    @classmethod
    def of(
        cls,
        arrays: Mapping[str, npt.NDArray[Any]],
        thresholds: Mapping[str, float],
        global_threshold: float,
    ) -> LearnedModel:
        """The model from its arrays as stored (ARRAYS), each head's weights made
        contiguous, so a gather reads only its own."""
        weights = arrays["weights"]
        return cls(
            safety=np.ascontiguousarray(weights[:, SAFETY], dtype=np.float32),
            lean=np.ascontiguousarray(weights[:, LEAN], dtype=np.float32),
            bias=arrays["bias"].astype(np.float64),
            language_weights=arrays["language_weights"].astype(np.float32),
            language_bias=arrays["language_bias"].astype(np.float64),
            languages=tuple(str(code) for code in arrays["languages"]),
            thresholds=thresholds,
            global_threshold=global_threshold,
        )

    def verdict(self, lined: str, may_raise: bool = True) -> ModelVerdict:
        """The model's reading of a text already through `normalise_lines`: its language,
        its highest window's score, and whether that score raises the reply to a check
        (only when `may_raise`: the rules left the text below a check)."""
        best, lean = -np.inf, 0.0
        language = self.languages[0]
        for number, piece in enumerate(pieces(lined)):
            found = features(segments(piece))
            if number == 0:
                language = self.language_of(found)
            logits, first, last = self.windows(found)
            if len(logits):
                top = int(np.argmax(logits))
                if logits[top] > best:
                    best = float(logits[top])
                    lean = self.lean_of(found, int(first[top]), int(last[top]))
        score = _sigmoid(best) if np.isfinite(best) else 0.0
        threshold = self.thresholds.get(language, self.global_threshold)
        return ModelVerdict(
            language=language,
            score=round(score, 4),
            raised=may_raise and score > threshold and enough_words(lined),
            danger=lean > 0,
        )

    def language_of(self, found: Features) -> str:
        buckets = found.language
        if len(self.languages) == 1 or not len(buckets):
            return self.languages[0]
        logits = self.language_weights[buckets].sum(axis=0) / np.sqrt(len(buckets))
        return self.languages[int(np.argmax(logits + self.language_bias))]

    def windows(self, found: Features) -> tuple[Floats, Ints, Ints]:
        """The safety logit of each window (each segment, then each pair of neighbouring
        segments, leaving out those with fewer than MIN_WINDOW_FEATURES features), with its
        first and last segment.
        A window's features are its segments', scaled as `features.counts` scales a
        whole text in training."""
        count = found.segment_count
        sums = np.bincount(found.segments, weights=self.safety[found.buckets], minlength=count)
        sizes = np.bincount(found.segments, minlength=count).astype(np.float64)
        reach = sizes + WIDE_EXTRA * found.wide
        first = np.arange(count)
        last = first
        if count > 1:
            sums = np.concatenate((sums, sums[:-1] + sums[1:]))
            sizes = np.concatenate((sizes, sizes[:-1] + sizes[1:]))
            reach = np.concatenate((reach, reach[:-1] + reach[1:]))
            first = np.concatenate((first, first[:-1]))
            last = np.concatenate((last, last[1:]))
        kept = reach >= MIN_WINDOW_FEATURES
        logits = sums[kept] / np.sqrt(sizes[kept]) + self.bias[SAFETY]
        return np.asarray(logits, dtype=np.float64), first[kept], last[kept]

    def lean_of(self, found: Features, first: int, last: int) -> float:
        """The lean head's logit over the segments first..last."""
        inside = found.buckets[(found.segments >= first) & (found.segments <= last)]
        total = float(self.lean[inside].sum(dtype=np.float64))
        return total / math.sqrt(max(1, len(inside))) + float(self.bias[LEAN])


def enough_words(lined: str) -> bool:
    """Whether a text has MIN_WORDS words or more for the model to judge: words with a
    letter or a digit (an emoji or a dash alone is none), a wide character a half word."""
    words = 0.0
    for token in lined.split():
        wide = len(_WIDE_CHARACTER.findall(token))
        if wide:
            words += wide / CHARACTERS_PER_WIDE_WORD
        elif _WORD_CHARACTER.search(token):
            words += 1
        if words >= MIN_WORDS:
            return True
    return False


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
    model = LearnedModel.of(arrays, manifest.thresholds, manifest.global_threshold)
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
        "safety": (2**feature_set.BITS,),
        "lean": (2**feature_set.BITS,),
        "bias": (2,),
        "language_weights": (2**feature_set.LANGUAGE_BITS, languages),
        "language_bias": (languages,),
    }
    for name, shape in expected.items():
        if getattr(model, name).shape != shape:
            raise ModelUnavailable(f"{MODEL_FILE}: {name} has the wrong shape")
    if not languages or model.languages != manifest.languages:
        raise ModelUnavailable(f"{MODEL_FILE} and {MANIFEST_FILE} name different languages")
