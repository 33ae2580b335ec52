"""The safety screen on its labelled corpus (content/detection/corpus/): what it answers.

Run from the repo root:

    .venv/bin/python bench/safety_corpus.py --first-contact en
        # a new batch, before any rule is changed for it: the rules alone on every
        # message of that language (all splits), printed to be recorded by hand under
        # "## Safety screen: first contact" (never regenerated: the rules move on)

The figures are per label: how many messages got the full crisis or danger reply, a
check, the offer of a pause (urge or contact).
"""

from __future__ import annotations

import argparse

from bench.common import REPO, machine
from bot.content_pack.loader import load_pack
from bot.safety.corpus import read_corpus
from bot.safety.evaluation import score, table
from bot.safety.screen import SafetyScreen


def first_contact(language: str) -> str:
    corpus, problems = read_corpus(REPO / "content")
    if problems:
        raise SystemExit("\n".join(str(problem) for problem in problems))
    examples = [example for example in corpus.examples if example.language == language]
    detector = SafetyScreen(load_pack(REPO / "content", "en")).detector("en")
    scores = score(examples, lambda text: detector.detect(text).reply)
    return "\n".join(
        [
            machine().describe(),
            "",
            f"The rules alone on all {len(examples)} messages of `{language}.yaml`"
            " (every split), before any rule was changed for them.",
            "",
            *table(scores),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first-contact", metavar="LANGUAGE", required=True)
    args = parser.parse_args(argv)
    print(first_contact(args.first_contact))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
