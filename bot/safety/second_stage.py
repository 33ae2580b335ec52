"""The rules, then the learned stage behind them: the screen's two steps as one call.

The rules are the floor: fast, explainable, never weakened. Whatever they leave below a
check (nothing, an urge, a contact) the learned model reads too, and it may raise the
reply to a check; it never lowers a reply, never silences one, never gives the full
reply on its own.

The model loads once, on first use (numpy is imported then, not when the bot starts);
the router asks for it off the event loop before the first message is screened. A model
that cannot load (missing, corrupt, not matching its manifest) leaves the screen on the
rules alone: said once in the log, and in /healthz, never a failure to start.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, replace
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from bot.logs import get_logger, log_event
from bot.safety.normalise import normalise_lines
from bot.safety.rules import Detection, Detector, ReplyLevel

if TYPE_CHECKING:
    from bot.safety.model import LearnedModel

log = get_logger("safety")

MODEL_DIR = Path("detection") / "model"  # inside the content folder
# The replies the learned stage may raise to a check; a check or more it leaves alone.
MAY_RAISE = frozenset({ReplyLevel.NONE, ReplyLevel.URGE, ReplyLevel.CONTACTED})


class ModelState(StrEnum):
    NOT_LOADED = "not loaded yet"
    LOADED = "loaded"
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True, slots=True)
class ModelStatus:
    state: ModelState
    reason: str | None = None  # why it is unavailable
    # Of a loaded model, from its manifest: which model it is and when it was trained.
    sha256: str | None = None
    trained_on: str | None = None

    def as_json(self) -> dict[str, str | None]:
        return {
            "state": self.state.value,
            "reason": self.reason,
            "sha256": self.sha256,
            "trained_on": self.trained_on,
        }


class SecondStage:
    """The learned model of one content folder, loaded at most once, thread-safe."""

    def __init__(self, folder: Path | None) -> None:
        self._folder = folder
        self._lock = threading.Lock()
        self._model: LearnedModel | None = None
        self._status = ModelStatus(ModelState.NOT_LOADED)
        self._loading_in_background = False

    @property
    def status(self) -> ModelStatus:
        return self._status

    def status_json(self) -> dict[str, str | None]:
        """The state as /healthz shows it, read anew on every check."""
        return self._status.as_json()

    def model(self, wait: bool = True) -> LearnedModel | None:
        """The model, loading it on the first call; None when it cannot be loaded. With
        `wait` False, None at once while the start-up's thread is still loading it: a
        message is then screened by the rules alone, never held up by numpy's import."""
        if self._status.state is ModelState.NOT_LOADED:
            if not wait and self._loading_in_background:
                return None
            with self._lock:
                if self._status.state is ModelState.NOT_LOADED:
                    self._load()
        return self._model

    def load_in_background(self) -> None:
        """Start loading (and checking) the model in a thread of its own, now, without
        waiting for it: at start-up, so a damaged model is refused and said before the
        first message, and the start is not held up by importing numpy. A daemon thread:
        a process that stops early (a port taken, a signal) does not wait for it."""
        if self._status.state is ModelState.NOT_LOADED and not self._loading_in_background:
            self._loading_in_background = True
            threading.Thread(target=self.model, name="safety-model", daemon=True).start()

    async def ready(self) -> None:
        """Load the model in a worker thread, so the event loop never waits on it."""
        if self._status.state is ModelState.NOT_LOADED:
            await asyncio.to_thread(self.model)

    def _load(self) -> None:
        if self._folder is None:
            self._unavailable("the content pack was not read from a folder")
            return
        try:
            from bot.safety.model import (  # noqa: PLC0415
                ModelUnavailable,
                load_model,
                read_manifest,
            )
        except ImportError as error:  # numpy missing from a broken install
            self._unavailable(f"numpy cannot be imported: {error}")
            return
        try:
            self._model = load_model(self._folder)
            manifest = read_manifest(self._folder)
        except ModelUnavailable as error:
            self._unavailable(str(error))
            return
        except Exception as error:  # whatever else: the rules still screen every message
            self._unavailable(f"{type(error).__name__}: {error}")
            return
        # Said before the state changes: whoever sees the new state (the start-up's thread
        # sets it) finds the line already in the log.
        log_event(
            log,
            "safety.model_loaded",
            sha256=manifest.model_sha256[:12],
            trained_on=manifest.trained_on,
        )
        self._status = ModelStatus(
            ModelState.LOADED, sha256=manifest.model_sha256, trained_on=manifest.trained_on
        )

    def _unavailable(self, reason: str) -> None:
        # Once: loading is tried once per process. The reason names files, never a message.
        log_event(
            log, "safety.model_unavailable", logging.WARNING, reason=reason, screening="rules alone"
        )
        self._status = ModelStatus(ModelState.UNAVAILABLE, reason)

    def detect(
        self, detector: Detector, text: str, today: date | None = None, may_raise: bool = True
    ) -> Detection:
        """The rules' detection of `text` on `today`, with the model's reading when it
        loaded (which raises the reply to a check only where `may_raise`)."""
        lined = normalise_lines(text)
        detection = detector.detect(text, today, normalised=lined.replace("\n", " "))
        model = self.model(wait=False)  # a crisis reply never waits for the model to load
        if model is None:
            return detection
        verdict = model.verdict(lined, may_raise=may_raise and detection.reply in MAY_RAISE)
        return replace(detection, model=verdict)


# One stage per content folder, shared by every screen built on it: a process loads its
# model once, however many routers it builds (tests build many).
_STAGES: dict[Path | None, SecondStage] = {}


def stage_for(content_dir: Path | None) -> SecondStage:
    """The learned stage of the pack read from `content_dir` (None: the rules alone)."""
    folder = None if content_dir is None else content_dir / MODEL_DIR
    found = _STAGES.get(folder)
    if found is None:
        found = _STAGES[folder] = SecondStage(folder)
    return found
