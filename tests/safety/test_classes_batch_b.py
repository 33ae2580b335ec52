"""The classes the second blind batch of 2026-12-02 showed missed, in English and the ten
first languages, phrased anew (tests/safety/classes_batch_b.yaml): a farewell letter left
for family, a rope with somewhere to hang it, a train, a jump said in German word order,
pills hoarded, the wish never to wake; a throat squeezed, a weapon shown in quarrels, a
threat to the children, being followed or waited for, a tracker, ending up under the
ground. Crisis and danger get their full reply; the past said in words with recovery now
gets a check; everyday uses of the same words get no safety reply; missing someone who
died is not taken for the pull back to an ex; the pull back and being contacted are found
in the words the batch used for them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from bot.content_pack.pack import ContentPack
from bot.safety.rules import Intent, ReplyLevel
from bot.safety.screen import SafetyScreen
from bot.safety.starts import StartIndex

PHRASES = yaml.safe_load((Path(__file__).parent / "classes_batch_b.yaml").read_text("utf-8"))
SAFETY_REPLIES = frozenset({ReplyLevel.CRISIS, ReplyLevel.DANGER, ReplyLevel.CHECK})


def _cases(label: str) -> list[tuple[str, str]]:
    return [(group, text) for group, texts in PHRASES[label].items() for text in texts]


def _reply(content: ContentPack, text: str) -> ReplyLevel:
    return SafetyScreen(content).detector("en").detect(text).reply


@pytest.mark.parametrize(("group", "text"), _cases("crisis"))
def test_crisis_gets_the_crisis_reply(content: ContentPack, group: str, text: str) -> None:
    assert _reply(content, text) is ReplyLevel.CRISIS, (group, text)


@pytest.mark.parametrize(("group", "text"), _cases("danger"))
def test_danger_gets_the_danger_reply(content: ContentPack, group: str, text: str) -> None:
    assert _reply(content, text) is ReplyLevel.DANGER, (group, text)


@pytest.mark.parametrize(("group", "text"), _cases("softened"))
def test_the_past_with_recovery_now_gets_a_check(
    content: ContentPack, group: str, text: str
) -> None:
    assert _reply(content, text) is ReplyLevel.CHECK, (group, text)


@pytest.mark.parametrize(("group", "text"), _cases("ordinary"))
def test_everyday_uses_get_no_safety_reply(content: ContentPack, group: str, text: str) -> None:
    assert _reply(content, text) not in SAFETY_REPLIES, (group, text)


@pytest.mark.parametrize(("group", "text"), _cases("grief"))
def test_grief_is_not_the_pull_back(content: ContentPack, group: str, text: str) -> None:
    detection = SafetyScreen(content).detector("en").detect(text)
    assert Intent.URGE not in detection.intents, (group, text)
    assert detection.reply is ReplyLevel.NONE, (group, text)


@pytest.mark.parametrize(("group", "text"), _cases("urge"))
def test_the_pull_back_is_found(content: ContentPack, group: str, text: str) -> None:
    assert Intent.URGE in SafetyScreen(content).detector("en").detect(text).intents, text


@pytest.mark.parametrize(("group", "text"), _cases("contacted"))
def test_being_contacted_is_found(content: ContentPack, group: str, text: str) -> None:
    assert Intent.CONTACTED in SafetyScreen(content).detector("en").detect(text).intents, text


def test_a_negated_wish_to_write_is_not_the_pull_back(content: ContentPack) -> None:
    text = "ik wil hem nooit meer een appje sturen"
    detection = SafetyScreen(content).detector("en").detect(text)
    assert Intent.URGE not in detection.intents


def test_grief_does_not_hide_a_crisis_said_with_it(content: ContentPack) -> None:
    text = "mein opa ist gestorben und ich will nicht mehr leben, ich vermisse ihn"
    assert _reply(content, text) is ReplyLevel.CRISIS


def test_a_present_sign_keeps_the_past_full(content: ContentPack) -> None:
    """Recovery words soften the past; wanting it again now does not."""
    text = "twee jaar geleden probeerde ik zelfmoord, nu wil ik weer dood"
    assert _reply(content, text) is ReplyLevel.CRISIS


def test_the_added_rules_are_tried_only_where_they_can_begin(content: ContentPack) -> None:
    """A rule the start index cannot read is searched through every message in full; the
    rules of these classes each begin at a word the index can list, so long messages stay
    fast."""
    added = ("-b", "-tanda-b", "-batch-b")
    rules = [
        rule
        for file in SafetyScreen(content).detector("en").book.files
        for rule in file.rules
        if rule.id.endswith(added)
    ]
    assert len(rules) >= 20
    index = StartIndex.of([re.compile(rule.pattern) for rule in rules])
    assert [rules[number].id for number in index.searched] == []
