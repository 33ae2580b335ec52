"""The classes the fourth blind batch of 2026-12-02 showed missed, in English and the ten
first languages, phrased anew (tests/safety/classes_batch_d.yaml): affairs put in order
with a pet or passwords handed on, pills saved up or set beside a bottle, switching off
for good, not coming back down, slang for dying, no sense in waking, nobody would miss me,
a train or a closed garage, cutting said with the reflexive first; the phone or car fitted
to track, a knife to the throat, a push down the stairs, a child beaten, papers taken, a
threat of acid. Crisis and danger get their full reply, and a burn he gave is graded as
danger; the past with recovery now and a line quoted from a song get a check; everyday
uses of the same words get no safety reply; missing someone who died is not taken for the
pull back; unblocking and being dying to write are found as the pull back, a visit or a
call in tears as being contacted."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from bot.content_pack.pack import ContentPack
from bot.safety.rules import Detection, Intent, ReplyLevel
from bot.safety.screen import SafetyScreen
from bot.safety.starts import StartIndex

PHRASES = yaml.safe_load((Path(__file__).parent / "classes_batch_d.yaml").read_text("utf-8"))
SAFETY_REPLIES = frozenset({ReplyLevel.CRISIS, ReplyLevel.DANGER, ReplyLevel.CHECK})

# What each label wants of a phrase's detection: crisis and danger their full reply, the
# softened a check, everyday talk no safety reply, grief neither a safety reply nor the
# pause to go back, the pull back its pause, being contacted its intent.
WANTED: dict[str, Callable[[Detection], bool]] = {
    "crisis": lambda found: found.reply is ReplyLevel.CRISIS,
    "danger": lambda found: found.reply is ReplyLevel.DANGER,
    "softened": lambda found: found.reply is ReplyLevel.CHECK,
    "ordinary": lambda found: found.reply not in SAFETY_REPLIES,
    "grief": lambda found: found.reply is ReplyLevel.NONE and Intent.URGE not in found.intents,
    "urge": lambda found: found.reply is ReplyLevel.URGE,
    "contacted": lambda found: Intent.CONTACTED in found.intents,
}
CASES = [
    pytest.param(label, group, text, id=f"{label}-{number}")
    for label, groups in PHRASES.items()
    for group, texts in groups.items()
    for number, text in enumerate(texts)
]


def _reply(content: ContentPack, text: str) -> ReplyLevel:
    return SafetyScreen(content).detector("en").detect(text).reply


@pytest.mark.parametrize(("label", "group", "text"), CASES)
def test_each_phrase_gets_what_its_label_wants(
    content: ContentPack, label: str, group: str, text: str
) -> None:
    found = SafetyScreen(content).detector("en").detect(text)
    assert WANTED[label](found), (label, group, text, found.reply, found.intents)


def test_every_label_has_phrases() -> None:
    assert set(PHRASES) == set(WANTED)
    assert all(PHRASES[label] for label in WANTED)


def test_a_threat_in_single_quotes_keeps_the_danger_reply(content: ContentPack) -> None:
    """Only a title's line in single quotes is softened: a threat is reported in quotes."""
    assert _reply(content, "he said 'you'll end up dead' and he meant it") is ReplyLevel.DANGER


def test_a_quoted_line_does_not_hide_the_writers_own_words(content: ContentPack) -> None:
    assert _reply(content, "mum said 'you look tired' and i want to die") is ReplyLevel.CRISIS


def test_a_negated_unblock_is_not_the_pull_back(content: ContentPack) -> None:
    detection = SafetyScreen(content).detector("en").detect("no la voy a desbloquear nunca")
    assert Intent.URGE not in detection.intents


def test_a_self_inflicted_burn_stays_a_crisis(content: ContentPack) -> None:
    """A burn he gave is danger; the writer's own is still self-harm."""
    assert _reply(content, "je me suis brûlé le bras exprès") is ReplyLevel.CRISIS


def test_the_added_rules_are_tried_only_where_they_can_begin(content: ContentPack) -> None:
    """A rule the start index cannot read is searched through every message in full; the
    rules of these classes each begin at a word the index can list, so long messages stay
    fast."""
    rules = [
        rule
        for file in SafetyScreen(content).detector("en").book.files
        for rule in file.rules
        if rule.id.endswith("-batch-d")
    ]
    assert len(rules) >= 25
    index = StartIndex.of([re.compile(rule.pattern) for rule in rules])
    assert [rules[number].id for number in index.searched] == []
