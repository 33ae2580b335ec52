"""The shipped learned stage as a user and an operator meet it: wording no rule reads gets
the check because of the model, a short message in a script without spaces is read, and a
damaged model is refused when the bot starts, in one clear log line, the rules screening
alone."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.logs import KeyValueFormatter
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen
from bot.safety.second_stage import ModelState, SecondStage, stage_for
from tests.helpers.conversation import Conversation
from tests.helpers.learned_models import write_model
from tests.helpers.waiting import until
from tests.safety.test_learned_stage import broken_copy

# Written for this test, in none of the corpora: means, the passive wish and a threat to a
# pet, in words none of the rules is written for.
PARAPHRASES = [
    "the bottle of vodka and the blister packs are lined up on the bedside table",
    "honestly i would not mind at all if i just didnt open my eyes tomorrow morning",
    "cant see any reason to keep dragging myself through the days",
    "he told me the cat would be first if i ever try to leave",
    "non vedo più il senso di andare avanti, vorrei non svegliarmi",
]


@pytest.mark.parametrize("text", PARAPHRASES)
async def test_wording_the_rules_miss_gets_the_check_because_of_the_model(
    settings: Settings,
    clock: ManualClock,
    content: ContentPack,
    text_of: Callable[..., str],
    text: str,
) -> None:
    """With the operator's settings as they come (STEADY_SAFETY_MODEL_RAISES unset)."""
    rules = SafetyScreen(content).detector("en")
    assert rules.detect(text).reply in (ReplyLevel.NONE, ReplyLevel.URGE, ReplyLevel.CONTACTED)
    async with open_services(settings, clock, content) as services:
        chat = Conversation(Router(services), Address("console", "c1", "u1"))
        [reply] = await chat.send(text)
    assert reply.text == text_of(SafetyMsg.SAFETY_CHECK)


async def test_turned_off_the_model_reads_but_does_not_raise(
    settings: Settings,
    clock: ManualClock,
    content: ContentPack,
    text_of: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """STEADY_SAFETY_MODEL_RAISES=false: the rules alone decide what the user is sent."""
    monkeypatch.setenv("STEADY_SAFETY_MODEL_RAISES", "false")
    reading = Settings(_env_file=None)
    assert not reading.safety_model_raises and reading.data_dir == settings.data_dir
    async with open_services(reading, clock, content) as services:
        chat = Conversation(Router(services), Address("console", "c1", "u1"))
        replies = await chat.send(PARAPHRASES[0])
    assert all(reply.text != text_of(SafetyMsg.SAFETY_CHECK) for reply in replies)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("今日は雨だった", True),  # seven characters of Japanese: a sentence
        ("오늘 비가 왔어", True),  # Korean, as short
        ("ok fine", False),  # seven Latin characters: too little to read
    ],
)
def test_a_short_message_in_a_script_without_spaces_is_read(
    content: ContentPack, tmp_path: Path, text: str, read: bool
) -> None:
    """A model that scores every text it reads high: what it reads gets the check."""
    stage = SecondStage(write_model(tmp_path / "high", safety_bias=6.0))
    detection = stage.detect(SafetyScreen(content).detector("en"), text)
    assert detection.model is not None and detection.model.raised is read
    assert detection.reply is (ReplyLevel.CHECK if read else ReplyLevel.NONE)


async def test_a_damaged_model_is_refused_at_start_in_one_clear_line(
    settings: Settings,
    clock: ManualClock,
    content: ContentPack,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    text_of: Callable[..., str],
) -> None:
    broken_copy(tmp_path, "changed")  # one byte of the arrays flipped
    pack = replace(content, folder=tmp_path / "content")
    with caplog.at_level(logging.INFO, logger="steady.safety"):
        async with open_services(settings, clock, pack) as services:
            # Before anyone wrote: the model is checked against its manifest at start.
            stage = stage_for(pack.folder)
            await until(lambda: stage.status.state is not ModelState.NOT_LOADED)
            assert stage.status.state is ModelState.UNAVAILABLE
            refused = [
                KeyValueFormatter().format(record)
                for record in caplog.records
                if record.getMessage().startswith("safety.model_")
            ]
            chat = Conversation(Router(services), Address("console", "c1", "u1"))
            [crisis, *_] = await chat.send("i want to kill myself")
    assert len(refused) == 1 and "\n" not in refused[0]
    assert "event=safety.model_unavailable" in refused[0]
    assert "safety_model.npz does not match the SHA-256 in manifest.json" in refused[0]
    assert "rules alone" in refused[0]
    # The rules still answer: a crisis gets the full reply.
    assert crisis.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
