"""How the words around a match are read: each language's cues only in messages that
matched in that language, and a year before this one as the past in every language,
counted from today's date rather than from a list of years."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen

TODAY = date(2026, 12, 2)


@pytest.mark.parametrize(
    ("text", "level"),
    [
        # Dutch "nu" (now) is no sign of the present in a Swedish sentence
        ("forra aret ville jag ta livet av mig, nu mar jag bra", ReplyLevel.CHECK),
        ("jag skar mig for tre ar sedan, nu mar jag bra", ReplyLevel.CHECK),
        # ...and still is in a Dutch one
        ("ik wil nu dood", ReplyLevel.CRISIS),
        # each language's own cues still soften its own words
        ("years ago i tried to kill myself", ReplyLevel.CHECK),
        ("mein bruder hat sich umgebracht", ReplyLevel.CHECK),
    ],
)
def test_a_language_cues_only_its_own_messages(
    content: ContentPack, text: str, level: ReplyLevel
) -> None:
    assert SafetyScreen(content).detector("en").detect(text, TODAY).reply is level


@pytest.mark.parametrize(
    ("text", "level"),
    [
        # a past year, however it is written, in any language
        ("in 2015 i tried to kill myself", ReplyLevel.CHECK),
        ("2015年我想自杀", ReplyLevel.CHECK),
        ("en 2011 j'ai voulu me suicider", ReplyLevel.CHECK),
        ("back in 1998, i wanted to kill myself.", ReplyLevel.CHECK),
        ("٢٠١٥ i tried to kill myself", ReplyLevel.CHECK),
        # a year that starts what still goes on is not the past
        ("since 2019 he hits me", ReplyLevel.DANGER),
        ("seit 2019 schlagt er mich", ReplyLevel.DANGER),
        ("2019dan beri beni dovuyor", ReplyLevel.DANGER),
        # an amount is not a year
        ("i took 2000mg of paracetamol and want to die", ReplyLevel.CRISIS),
        ("i took 2,000 mg and i want to kill myself", ReplyLevel.CRISIS),
    ],
)
def test_a_year_before_this_one_is_the_past(
    content: ContentPack, text: str, level: ReplyLevel
) -> None:
    assert SafetyScreen(content).detector("en").detect(text, TODAY).reply is level


def test_the_past_moves_with_the_clock(content: ContentPack) -> None:
    """No list of years to go stale: last year is the past, this year is not."""
    clock = ManualClock(datetime(2031, 3, 1, tzinfo=UTC))
    screen = SafetyScreen(content, clock)
    assert screen.detect("in 2031 i tried to kill myself", "en").reply is ReplyLevel.CRISIS
    assert screen.detect("in 2030 i tried to kill myself", "en").reply is ReplyLevel.CHECK
    clock.set(datetime(2030, 6, 1, tzinfo=UTC))
    assert screen.detect("in 2030 i tried to kill myself", "en").reply is ReplyLevel.CRISIS
