"""The safety screen on its labelled corpus (content/detection/corpus/): what it answers.

Run from the repo root:

    .venv/bin/python bench/safety_corpus.py
        # every language's test split (never tuned on), the rules alone and the rules with
        # the learned stage side by side, written to "## Safety screen: corpus test split"
    .venv/bin/python bench/safety_corpus.py --first-contact en
        # a new batch, before any rule is changed for it: the rules alone on every
        # message of that language (all splits), printed to be recorded by hand under
        # "## Safety screen: first contact" (never regenerated: the rules move on)

The figures are per label: how many messages got the full crisis or danger reply, a
check, the offer of a pause (urge or contact).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from bench.common import REPO, machine, shown_command
from bench.results import write_section
from bot.content_pack.loader import load_pack
from bot.safety.corpus import LANGUAGE_GROUPS, Corpus, Split, read_corpus
from bot.safety.evaluation import LabelScore, dangerous_recall, percent, score, table
from bot.safety.model import Manifest, read_manifest
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen
from bot.safety.second_stage import MODEL_DIR

Reply = Callable[[str], ReplyLevel]


def _corpus() -> Corpus:
    corpus, problems = read_corpus(REPO / "content")
    if problems:
        raise SystemExit("\n".join(str(problem) for problem in problems))
    return corpus


def _stages() -> tuple[Reply, Reply]:
    """(the rules alone, the rules with the learned stage), as the bot screens."""
    screen = SafetyScreen(load_pack(REPO / "content", "en"))
    if screen.second_stage.model() is None:
        raise SystemExit(f"the learned stage did not load: {screen.second_stage.status.reason}")
    rules = screen.detector("en")
    return (lambda text: rules.detect(text).reply), (lambda text: screen.detect(text, "en").reply)


def first_contact(language: str) -> str:
    examples = [example for example in _corpus().examples if example.language == language]
    rules, _ = _stages()
    return "\n".join(
        [
            machine().describe(),
            "",
            f"The rules alone on all {len(examples)} messages of `{language}.yaml`"
            " (every split), before any rule was changed for them.",
            "",
            *table(score(examples, rules)),
        ]
    )


def test_split() -> str:
    corpus = _corpus()
    rules, both = _stages()
    manifest = read_manifest(REPO / "content" / MODEL_DIR)
    header = [
        "| {} | Test messages | Crisis + danger caught, rules | … rules + model |"
        " … full reply | Ordinary: check | Ordinary: full |{}",
        "|---|---:|---:|---:|---:|---:|---:|{}",
    ]
    groups = [header[0].format("Group", ""), header[1].format("")]
    details: list[str] = []
    for name, languages in [*LANGUAGE_GROUPS.items(), ("all", None)]:
        examples = corpus.of_languages(Split.TEST, languages)
        alone, with_model = score(examples, rules), score(examples, both)
        groups.append(_row(name, len(examples), alone, with_model, ""))
        details += [f"**{name}**, rules alone:", "", *table(alone), ""]
        details += [f"**{name}**, rules + model:", "", *table(with_model), ""]
    languages = [header[0].format("Language", " Threshold |"), header[1].format("---|")]
    for language in corpus.languages:
        examples = corpus.of(Split.TEST, language)
        alone, with_model = score(examples, rules), score(examples, both)
        languages.append(
            _row(language, len(examples), alone, with_model, _threshold(manifest, language))
        )
    return "\n".join(
        [
            f"Command, from the repo root: `{shown_command(['bench/safety_corpus.py'])}`",
            "",
            machine().describe(),
            "",
            f"The test split of each language's corpus (15% of its messages, chosen by a hash"
            f" of language and text, never tuned on). Model {manifest.model_sha256[:12]},"
            f" trained {manifest.trained_on} on the training split of"
            f" {manifest.corpus_messages} messages; each language's threshold was set on its"
            " validation split (its own with at least"
            f" {manifest.training.get('min_harmless_for_own_threshold')} harmless messages"
            " there, else the higher of its own and the pooled one).",
            "",
            *groups,
            "",
            *languages,
            "",
            *details,
            'How to read it: "caught" is the full reply or a check. The learned stage may only'
            " raise a message the rules leave below a check, so its column can only add to the"
            " rules'. The corpus was written by the same people who wrote the rules, and the"
            " rules of every language but English were fitted on their whole corpus (test"
            " split included), so these figures flatter the rules; the blind fresh batches"
            " (first contact) say how the screen meets wording it has never seen.",
        ]
    )


def _threshold(manifest: Manifest, language: str) -> str:
    value = manifest.thresholds.get(language, manifest.global_threshold)
    how = manifest.training.get("validation", {}).get(language, {}).get("own_or_pooled", "")
    return f" {value:.3f} ({how}) |"


def _row(
    name: str, count: int, alone: list[LabelScore], with_model: list[LabelScore], extra: str
) -> str:
    caught_alone, total = dangerous_recall(alone)
    caught_both, _ = dangerous_recall(with_model)
    full = sum(item.full for item in with_model if item.label in ("crisis", "danger"))
    ordinary = [item for item in with_model if item.label == "ordinary"]
    talk = ordinary[0] if ordinary else LabelScore("ordinary", 0, 0, 0, 0, 0)
    return (
        f"| {name} | {count} | {percent(caught_alone, total)} |"
        f" {percent(caught_both, total)} | {percent(full, total)} |"
        f" {percent(talk.check, talk.total)} | {percent(talk.full, talk.total)} |{extra}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first-contact", metavar="LANGUAGE")
    parser.add_argument("--no-write", action="store_true", help="leave bench/RESULTS.md alone")
    args = parser.parse_args(argv)
    if args.first_contact:
        print(first_contact(args.first_contact))
        return 0
    body = test_split()
    if not args.no_write:
        write_section("Safety screen: corpus test split", body)
    print(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
