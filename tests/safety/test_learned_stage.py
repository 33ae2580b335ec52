"""The learned stage behind the rules: the features it reads, what it may change in a
reply (a raise to a check, nothing else), and a model that cannot load."""

from __future__ import annotations

import asyncio
import logging
import shutil
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import Msg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.safety.features import features, model_text, vector
from bot.safety.model import MODEL_FILE, LearnedModel, load_model
from bot.safety.normalise import normalise_lines
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen
from bot.safety.second_stage import MODEL_DIR, ModelState, SecondStage, stage_for
from tests.helpers.conversation import Conversation
from tests.helpers.learned_models import write_model
from tests.helpers.waiting import until

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"
ORDINARY_LINES = [
    "morning, slept ok",
    "the bus was late again",
    "made porridge",
    "my sister rang about sunday",
    "work was fine, long meeting",
    "bought new trainers",
    "the cat knocked a mug off the side",
    "watched the football",
    "bath and an early night",
    "thats my day really",
]


def test_buckets_are_the_same_on_every_run_and_machine() -> None:
    """The hash is ours (not Python's salted hash): a change here would silently misread a
    trained model, so it must come with a new feature version and a retrained model."""
    text = model_text("I want to DIE")
    assert text == "i want to die"
    found = features(text)
    # 14 bigrams, 13 trigrams, 12 four-grams of " i want to die ", 4 words, 3 pairs, each
    # once (sorted), and the language head's 2- and 3-grams in the order they start
    assert len(found.buckets) == 46 and found.segment_count == 1
    assert found.buckets[:3].tolist() == [534, 1039, 7768]
    assert found.buckets[-3:].tolist() == [218589, 219755, 258218]
    assert found.language[:3].tolist() == [21906, 22585, 24163]
    repeated = features(model_text("i want to die " * 5))
    assert len(repeated.buckets) < 2 * len(found.buckets)  # repeating a phrase adds little


def test_a_text_is_read_in_segments_of_lines_and_sentences() -> None:
    text = model_text("One. Two!  three\n\n FOUR? five " + "x " * 200)
    lines = text.split("\n")
    assert lines[:4] == ["one.", "two!", "three", "four?"]
    assert lines[4].startswith("five x") and all(len(line) <= 240 for line in lines)
    assert "".join(lines[4:]).replace(" ", "") == "five" + "x" * 200


def test_run_time_windows_score_exactly_as_training_vectors_do() -> None:
    """One function reads features in training and at run time: a window is the training
    vector of its segments times the weights."""
    rng = np.random.default_rng(5)
    arrays = {
        "weights": rng.normal(size=(2**18, 2)).astype(np.float32),
        "bias": np.array([0.25, -0.5]),
        "language_weights": np.zeros((2**15, 1), dtype=np.float32),
        "language_bias": np.zeros(1),
        "languages": np.array(["en"]),
    }
    model = LearnedModel.of(arrays, {}, 0.5)
    line = "the rope is in the boot of my car"
    buckets, values = vector(features(model_text(line)))
    expected = values @ arrays["weights"][buckets].astype(np.float64) + arrays["bias"]
    one = features(model_text(line))
    logits, first, last = model.windows(one)
    assert np.allclose(logits, [expected[0]]) and (first[0], last[0]) == (0, 0)
    assert np.isclose(model.lean_of(one, 0, 0), expected[1])
    two = features(model_text(f"all good today. {line}"))
    logits, first, last = model.windows(two)
    assert list(zip(first.tolist(), last.tolist(), strict=True)) == [(0, 0), (1, 1), (0, 1)]


def test_a_crisis_line_among_ten_ordinary_lines_still_scores() -> None:
    model = load_model(REPO_CONTENT / MODEL_DIR)
    crisis = "ive got all my pills and a bottle of wine, tonight"
    alone = model.verdict(normalise_lines(crisis))
    among = model.verdict(
        normalise_lines("\n".join([*ORDINARY_LINES[:5], crisis, *ORDINARY_LINES[5:]]))
    )
    ordinary = model.verdict(normalise_lines("\n".join(ORDINARY_LINES)))
    assert among.score >= 0.9 * alone.score
    assert among.score > ordinary.score
    assert among.raised == alone.raised


@pytest.fixture
def always_high(tmp_path: Path) -> SecondStage:
    return SecondStage(write_model(tmp_path / "high", safety_bias=6.0, lean_bias=-2.0))


@pytest.fixture
def always_low(tmp_path: Path) -> SecondStage:
    return SecondStage(write_model(tmp_path / "low", safety_bias=-6.0))


@pytest.mark.parametrize(
    ("text", "rules", "with_model"),
    [
        ("the kettle is broken", ReplyLevel.NONE, ReplyLevel.CHECK),
        ("i really want to text him", ReplyLevel.URGE, ReplyLevel.CHECK),
        ("he texted me", ReplyLevel.CONTACTED, ReplyLevel.CHECK),
        ("i want to die", ReplyLevel.CRISIS, ReplyLevel.CRISIS),
        ("he said he will kill me", ReplyLevel.DANGER, ReplyLevel.DANGER),
        ("years ago i wanted to die", ReplyLevel.CHECK, ReplyLevel.CHECK),
    ],
)
def test_the_model_raises_to_a_check_and_never_further_nor_lower(
    content: ContentPack,
    always_high: SecondStage,
    always_low: SecondStage,
    text: str,
    rules: ReplyLevel,
    with_model: ReplyLevel,
) -> None:
    detector = SafetyScreen(content).detector("en")
    assert detector.detect(text).reply is rules
    raised = always_high.detect(detector, text)
    assert raised.reply is with_model
    assert raised.model is not None and raised.model.raised is (rules is not with_model)
    assert always_low.detect(detector, text).reply is rules  # a low score lowers nothing


def test_a_raised_check_leads_with_the_lines_the_model_leans_to(
    content: ContentPack, tmp_path: Path
) -> None:
    detector = SafetyScreen(content).detector("en")
    write_model(tmp_path / "crisis", safety_bias=6.0, lean_bias=-2.0)
    write_model(tmp_path / "danger", safety_bias=6.0, lean_bias=2.0)
    leaning = {
        name: SecondStage(tmp_path / name / MODEL_DIR).detect(detector, "it is a quiet night")
        for name in ("crisis", "danger")
    }
    assert not leaning["crisis"].check_leans_danger
    assert leaning["danger"].check_leans_danger
    # Words the rules read lead as they always did: crisis words, crisis lines first.
    softened = SecondStage(tmp_path / "danger" / MODEL_DIR).detect(detector, "i'm not suicidal")
    assert softened.reply is ReplyLevel.CHECK and not softened.check_leans_danger


def broken_copy(tmp_path: Path, damage: str) -> Path:
    folder = tmp_path / "content" / MODEL_DIR
    shutil.copytree(REPO_CONTENT / MODEL_DIR, folder)
    model = folder / MODEL_FILE
    if damage == "missing":
        model.unlink()
    elif damage == "corrupt":
        model.write_bytes(b"PK\x03\x04 not really a zip")
    elif damage == "changed":
        data = bytearray(model.read_bytes())
        data[len(data) // 2] ^= 0xFF
        model.write_bytes(bytes(data))
    elif damage == "no manifest":
        (folder / "manifest.json").unlink()
    return folder


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("missing", "safety_model.npz cannot be read"),
        ("corrupt", "does not match the SHA-256"),
        ("changed", "does not match the SHA-256"),
        ("no manifest", "no manifest.json"),
    ],
)
def test_a_model_that_cannot_load_leaves_the_rules_screening_and_says_why_once(
    content: ContentPack,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    damage: str,
    reason: str,
) -> None:
    stage = SecondStage(broken_copy(tmp_path, damage))
    detector = SafetyScreen(content).detector("en")
    with caplog.at_level(logging.WARNING, logger="steady.safety"):
        crisis = stage.detect(detector, "i want to die")
        ordinary = stage.detect(detector, "the kettle is broken")
    assert (crisis.reply, crisis.model) == (ReplyLevel.CRISIS, None)
    assert (ordinary.reply, ordinary.model) == (ReplyLevel.NONE, None)
    assert stage.status.state is ModelState.UNAVAILABLE
    assert stage.status.reason is not None and reason in stage.status.reason
    logged = [r for r in caplog.records if r.getMessage() == "safety.model_unavailable"]
    assert len(logged) == 1


def test_a_pickled_array_is_refused_not_loaded(tmp_path: Path) -> None:
    folder = write_model(tmp_path, safety_bias=0.0)
    with (folder / MODEL_FILE).open("wb") as out:
        np.savez(out, weights=np.array([{"not": "an array of numbers"}], dtype=object))
    stage = SecondStage(folder)
    assert stage.model() is None
    assert stage.status.state is ModelState.UNAVAILABLE


async def test_the_model_loads_off_the_loop_once_and_is_shared_by_every_screen(
    content: ContentPack,
) -> None:
    stage = stage_for(content.folder)
    await stage.ready()
    assert stage.status.state is ModelState.LOADED
    assert SafetyScreen(content).second_stage is stage
    assert stage.model() is stage.model()
    detection = SafetyScreen(content).detect("the kettle is broken", "en")
    assert detection.model is not None and detection.model.language == "en"


@pytest.mark.parametrize(
    ("lean", "intro"), [(-2.0, SafetyMsg.SAFETY_CRISIS_INTRO), (2.0, SafetyMsg.SAFETY_DANGER_INTRO)]
)
async def test_a_message_the_model_raises_gets_the_check_and_its_help_leads_as_it_leans(
    settings: Settings,
    clock: ManualClock,
    content: ContentPack,
    tmp_path: Path,
    text_of: Callable[..., str],
    lean: float,
    intro: Msg,
) -> None:
    """Through the router, as a user sees it: words no rule reads get the check when the
    model scores them high, and "Show me help now" puts the lines it leans to first."""
    write_model(tmp_path / "pack", safety_bias=6.0, lean_bias=lean)
    async with open_services(
        settings, clock, replace(content, folder=tmp_path / "pack")
    ) as services:
        chat = Conversation(Router(services), Address("console", "c1", "u1"))
        [reply] = await chat.send("a quiet night, the kettle is on")
        assert reply.text == text_of(SafetyMsg.SAFETY_CHECK)
        [helped] = await chat.press(text_of(SafetyMsg.SAFETY_CHECK_HELP_BUTTON))
        assert helped.text.startswith(text_of(intro))


async def test_a_crisis_screened_while_the_model_loads_does_not_wait_for_it(
    content: ContentPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start-up's thread may still be importing numpy when the first message comes:
    the rules answer it alone, at once, and the model is used once it has loaded."""
    assert content.folder is not None
    release = threading.Event()
    loading = threading.Event()
    stage = SecondStage(content.folder / MODEL_DIR)
    real_load = SecondStage._load

    def slow_load(self: SecondStage) -> None:
        loading.set()
        release.wait(timeout=60)
        real_load(self)

    monkeypatch.setattr(SecondStage, "_load", slow_load)
    stage.load_in_background()
    assert loading.wait(timeout=60)
    rules = SafetyScreen(content).detector("en")
    detection = stage.detect(rules, "i want to kill myself tonight")
    assert detection.reply is ReplyLevel.CRISIS
    assert detection.model is None  # not waited for
    release.set()
    await until(lambda: stage.status.state is ModelState.LOADED)
    assert stage.detect(rules, "i want to kill myself tonight").model is not None


async def test_a_crisis_reply_through_the_router_does_not_wait_for_the_model_to_load(
    settings: Settings,
    clock: ManualClock,
    content: ContentPack,
    tmp_path: Path,
    text_of: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first messages after a start: the rules' crisis reply goes out while the model is
    still loading; words the rules leave alone wait for it, and the model reads them."""
    write_model(tmp_path / "pack", safety_bias=6.0)
    release = threading.Event()
    real_load = SecondStage._load

    def slow_load(self: SecondStage) -> None:
        release.wait(timeout=120)
        real_load(self)

    monkeypatch.setattr(SecondStage, "_load", slow_load)
    raising = settings.model_copy(update={"safety_model_raises": True})
    async with open_services(
        raising, clock, replace(content, folder=tmp_path / "pack")
    ) as services:
        chat = Conversation(Router(services), Address("console", "c1", "u1"))
        # Bounded only so that a reply held by the load fails here instead of hanging.
        [*replies] = await asyncio.wait_for(chat.send("i want to kill myself tonight"), 30)
        assert replies[0].text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
        assert stage_for(tmp_path / "pack").status.state is ModelState.NOT_LOADED
        release.set()
        [checked] = await chat.send("a quiet night, the kettle is on")
        assert checked.text == text_of(SafetyMsg.SAFETY_CHECK)
