"""Where an idiom is blanked out, the words around it are joined with one space, as
every run of white space in the message reads as one."""

from __future__ import annotations

import random
import re

from bot.content_pack.pack import ContentPack
from bot.safety.rules import _SPACES
from bot.safety.screen import SafetyScreen


def test_every_run_of_white_space_is_read_as_one_space() -> None:
    """What replacing each run (\\s+) gives, though single spaces are left as they are."""
    each_run = re.compile(r"\s+")
    rng = random.Random(20261202)
    characters = " \t\n\u00a0\u2003\u3000ab"
    for _ in range(20_000):
        text = "".join(rng.choice(characters) for _ in range(rng.randint(0, 12)))
        assert _SPACES.sub(" ", text) == each_run.sub(" ", text), repr(text)


def test_a_blanked_idiom_leaves_the_words_around_it_one_space_apart(
    content: ContentPack,
) -> None:
    detector = SafetyScreen(content).detector("en")
    screened = detector._without_idioms("honestly i was killing it at work today")
    assert "killing it" not in screened
    assert "  " not in screened
    assert screened.startswith("honestly i was ") and screened.endswith(" today")
