"""The gate on the corpus's test split (never tuned on: the thresholds are set on the
validation split): in every language the corpus has, the rules with the learned stage
catch at least what the rules alone catch; in each language group (English, the ten first
languages, the eleven new ones) and in all together, ordinary talk rarely gets a check (at
most 10%) and almost never the full reply (at most 3%). The limits are held per group, as
the issue states them: a single language's test split holds 2 to 26 ordinary messages, so
one message is 4 to 50% of it.

The figures are printed per language (`pytest -s`); bench/safety_corpus.py writes them to
bench/RESULTS.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.content_pack.pack import ContentPack
from bot.safety.corpus import LANGUAGE_GROUPS, Corpus, Split, read_corpus
from bot.safety.evaluation import LabelScore, dangerous_recall, percent, score
from bot.safety.screen import SafetyScreen
from bot.safety.second_stage import ModelState

REPO_CONTENT = Path(__file__).resolve().parents[2] / "content"
MAX_ORDINARY_CHECK = 0.10
MAX_ORDINARY_FULL = 0.03


def corpus() -> Corpus:
    found, problems = read_corpus(REPO_CONTENT)
    assert problems == []
    return found


LANGUAGES = corpus().languages


def scored(
    content: ContentPack, languages: tuple[str, ...] | None
) -> tuple[list[LabelScore], list[LabelScore]]:
    """(rules alone, rules and model) on the test split of these languages, or of all."""
    examples = corpus().of_languages(Split.TEST, languages)
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


def described(name: str, alone: list[LabelScore], both: list[LabelScore]) -> str:
    caught_alone, total = dangerous_recall(alone)
    caught_both, _ = dangerous_recall(both)
    talk = ordinary(both)
    return (
        f"\n{name}: crisis+danger caught {percent(caught_alone, total)} by the"
        f" rules, {percent(caught_both, total)} with the model (of {total});"
        f" ordinary talk: check {percent(talk.check, talk.total)},"
        f" full {percent(talk.full, talk.total)} (of {talk.total})"
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_learned_stage_only_adds_to_what_the_rules_catch(
    content: ContentPack, language: str
) -> None:
    alone, both = scored(content, (language,))
    print(described(language, alone, both))
    assert dangerous_recall(both)[0] >= dangerous_recall(alone)[0]


@pytest.mark.parametrize("group", [*LANGUAGE_GROUPS, "all"])
def test_ordinary_talk_stays_within_its_limits_in_each_language_group(
    content: ContentPack, group: str
) -> None:
    alone, both = scored(content, LANGUAGE_GROUPS.get(group))
    print(described(group, alone, both))
    talk = ordinary(both)
    assert dangerous_recall(both)[0] >= dangerous_recall(alone)[0]
    assert talk.check <= MAX_ORDINARY_CHECK * talk.total
    assert talk.full <= MAX_ORDINARY_FULL * talk.total


def test_the_groups_name_every_corpus_language_once() -> None:
    grouped = [language for languages in LANGUAGE_GROUPS.values() for language in languages]
    assert sorted(grouped) == sorted(LANGUAGES)
