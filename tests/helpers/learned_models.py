"""Hand-made models for the learned safety stage, written where a content folder keeps
its model, so a test decides what the model says instead of depending on training."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bot.safety.features import BITS, LANGUAGE_BITS
from bot.safety.model import Manifest, feature_config
from bot.safety.second_stage import MODEL_DIR
from bot.safety.training import Trained, write


def write_model(
    content_dir: Path,
    safety_bias: float,
    lean_bias: float = -1.0,
    threshold: float = 0.5,
    languages: tuple[str, ...] = ("en",),
) -> Path:
    """A model that gives every text the same score (the sigmoid of `safety_bias`) and the
    same lean (danger when `lean_bias` > 0), in `content_dir`'s model folder."""
    arrays = {
        "weights": np.zeros((2**BITS, 2), dtype=np.float32),
        "bias": np.array([safety_bias, lean_bias], dtype=np.float32),
        "language_weights": np.zeros((2**LANGUAGE_BITS, len(languages)), dtype=np.float32),
        "language_bias": np.zeros(len(languages), dtype=np.float32),
        "languages": np.array(languages),
    }
    manifest = Manifest(
        model_sha256="",
        trained_on="2026-12-02",
        corpus_sha256="0" * 64,
        corpus_messages=0,
        languages=languages,
        thresholds=dict.fromkeys(languages, threshold),
        global_threshold=threshold,
        features=feature_config(),
        training={"by": "hand, for a test"},
    )
    folder = content_dir / MODEL_DIR
    write(Trained(arrays, manifest).signed(), folder)
    return folder
