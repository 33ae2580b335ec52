"""The gate on the corpus's test split (never tuned on: the thresholds are set on the
validation split), in every language the corpus has: the rules with the learned stage
catch at least what the rules alone catch, and ordinary talk rarely gets a check (at most
10%) and almost never the full reply (at most 3%).

The figures are printed per language (`pytest -s`); bench/safety_corpus.py writes them to
bench/RESULTS.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.content_pack.pack import ContentPack
from bot.safety.corpus import Corpus, Split, read_corpus
from bot.safety.evaluation import LabelScore, dangerous_recall, percent, score
from bot.safety.screen import SafetyScreen
from bot.safety.second_stage import ModelState

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"
MAX_ORDINARY_CHECK = 0.10
MAX_ORDINARY_FULL = 0.03
# A language's own ordinary figures are held to the limits once its test split has this
# many ordinary messages (one message in fewer would be over 5%); all languages together
# are held to them always.
MIN_ORDINARY_OF_ITS_OWN = 20


def corpus() -> Corpus:
    found, problems = read_corpus(REPO_CONTENT)
    assert problems == []
    return found


LANGUAGES = corpus().languages


def scored(content: ContentPack, language: str | None) -> tuple[list[LabelScore], list[LabelScore]]:
    """(rules alone, rules and model) on the test split of one language, or of all."""
    examples = corpus().of(Split.TEST, language)
    screen = SafetyScreen(content)
    assert screen.second_stage.model() is not None, screen.second_stage.status.reason
    assert screen.second_stage.status.state is ModelState.LOADED
    rules = screen.detector("en")
    alone = score(examples, lambda text: rules.detect(text).reply)
    both = score(examples, lambda text: screen.detect(text, "en").reply)
    return alone, both


def ordinary(scores: list[LabelScore]) -> LabelScore:
    [found] = [item for item in scores if item.label == "ordinary"]
    return found


@pytest.mark.parametrize("language", [*LANGUAGES, None])
def test_the_learned_stage_adds_to_the_rules_and_leaves_ordinary_talk_alone(
    content: ContentPack, language: str | None
) -> None:
    alone, both = scored(content, language)
    caught_alone, total = dangerous_recall(alone)
    caught_both, _ = dangerous_recall(both)
    talk = ordinary(both)
    print(
        f"\n{language or 'all'}: crisis+danger caught {percent(caught_alone, total)} by the"
        f" rules, {percent(caught_both, total)} with the model (of {total});"
        f" ordinary talk: check {percent(talk.check, talk.total)},"
        f" full {percent(talk.full, talk.total)} (of {talk.total})"
    )
    assert caught_both >= caught_alone
    if language is None or talk.total >= MIN_ORDINARY_OF_ITS_OWN:
        assert talk.check <= MAX_ORDINARY_CHECK * talk.total
        assert talk.full <= MAX_ORDINARY_FULL * talk.total
