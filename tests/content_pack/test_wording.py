"""Counts and word rules for openings and check-in replies.

Openings are the first line of a scheduled check-in, so they can show on a lock screen that
someone else reads. Replies arrive right after a check-in, at whatever hour the user answers.
The lists below are data: add to them when a new risky word turns up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import get_args

import pytest

from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import Opening, ReplyCategory

# Three check-ins a day (morning, afternoon, evening) for a month without a repeat.
OPENINGS_PER_TIME_AND_REGISTER = 30
OPENINGS_PER_REGISTER = 96
REPLIES_PER_CATEGORY = 24
TIMES = ("morning", "afternoon", "evening")
REGISTERS = ("neutral", "warm")

# A neutral opening must read like an app. Each of these makes it read like a friend or a
# partner texting, which a jealous reader of the lock screen could take the wrong way.
PERSONAL_WORDS = (
    "sleep", "slept", "night", "tonight", "bed", "dream", "dreams",
    "miss", "missing", "love", "lovely", "hello", "hi", "hey", "thinking of you",
    "hug", "hugs", "kiss", "babe", "baby", "dear", "darling", "honey", "sweetheart",
    "heart", "xx", "feel", "feeling", "feelings", "how are you", "you ok", "are you okay",
    "take care", "together", "with you", "wish you", "sorry",
)  # fmt: skip

# Words that name a part of the day. An opening may only use the words of its own time
# ("before bed?" only in the evening); an afternoon opening may look back at the morning.
TIME_WORDS = {
    "morning": ("morning", "breakfast", "sunrise", "start-of-day"),
    "afternoon": ("afternoon", "lunch", "midday", "mid-day"),
    "evening": (
        "evening", "night", "tonight", "overnight", "bed", "bedtime", "dinner",
        "end-of-day", "end of the day", "sunset",
    ),
}  # fmt: skip
ALLOWED_TIMES = {
    "morning": {"morning"},
    "afternoon": {"afternoon", "morning"},
    "evening": {"evening"},
    "any": set(),
}

# Replies can arrive at any hour, so they name no part of the day at all, and no tomorrow
# (which is a forecast as well as a time).
REPLY_TIME_WORDS = (
    *(word for words in TIME_WORDS.values() for word in words),
    "today's end", "tomorrow", "later today",
)  # fmt: skip

# Phrases that echo self-harm or suicide, for readers who may be close to it.
SELF_HARM_IDIOMS = (
    "taking your own life", "take your own life", "dying to", "dying for", "dying of",
    "kill time", "killing time", "killing me", "kill me", "dead tired", "to die for",
    "dead end", "to death", "over my dead body", "shoot me",
)  # fmt: skip

# What hurts in a reply: praise that talks down, strength framed against weakness, forecasts,
# assuming the reader has left, and telling them what to do about the relationship.
HURTFUL_REPLY_PHRASES = (
    "well done", "proud of you", "good job", "great job", "good girl", "good boy",
    "keep it up", "stay strong", "be strong", "weak", "weakness",
    "will settle", "will pass", "will get better", "gets better", "will get easier",
    "by tomorrow", "since you left", "now that you've left", "you left", "after leaving",
    "you should leave", "you need to leave", "you must leave", "narcissist", "abuser",
)  # fmt: skip


def _pattern(phrase: str) -> re.Pattern[str]:
    # Whole words only: "miss" must not flag "dismiss", nor "bed" flag "embedded".
    return re.compile(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", re.IGNORECASE)


def _offenders(texts: Iterable[str], phrases: Iterable[str]) -> list[tuple[str, str]]:
    patterns = [(phrase, _pattern(phrase)) for phrase in phrases]
    return [(phrase, text) for text in texts for phrase, p in patterns if p.search(text)]


def _openings(content: ContentPack, register: str) -> list[Opening]:
    return [o for o in content.openings("en") if o.register == register]


@pytest.mark.parametrize("register", REGISTERS)
@pytest.mark.parametrize("time_of_day", TIMES)
def test_each_time_of_day_has_a_month_of_openings_in_each_register(
    content: ContentPack, time_of_day: str, register: str
) -> None:
    fitting = [o for o in _openings(content, register) if o.time_of_day in (time_of_day, "any")]
    assert len({o.text for o in fitting}) >= OPENINGS_PER_TIME_AND_REGISTER


@pytest.mark.parametrize("register", REGISTERS)
def test_each_register_has_enough_openings(content: ContentPack, register: str) -> None:
    assert len(_openings(content, register)) >= OPENINGS_PER_REGISTER


def test_no_opening_text_is_used_twice(content: ContentPack) -> None:
    texts = [o.text.casefold() for o in content.openings("en")]
    assert len(texts) == len(set(texts))


@pytest.mark.parametrize("category", get_args(ReplyCategory))
def test_each_reply_category_has_enough_replies(content: ContentPack, category: str) -> None:
    replies = {r.text for r in content.checkin_replies("en") if r.category == category}
    assert len(replies) >= REPLIES_PER_CATEGORY


def test_neutral_openings_use_no_personal_words(content: ContentPack) -> None:
    texts = [o.text for o in _openings(content, "neutral")]
    assert _offenders(texts, PERSONAL_WORDS) == []


def test_neutral_openings_ask_no_questions(content: ContentPack) -> None:
    # A question on a lock screen reads like a person asking; an app states what is ready.
    assert [o.text for o in _openings(content, "neutral") if "?" in o.text] == []


def test_openings_name_only_their_own_time_of_day(content: ContentPack) -> None:
    wrong = []
    for opening in content.openings("en"):
        for time, words in TIME_WORDS.items():
            if time not in ALLOWED_TIMES[opening.time_of_day]:
                wrong += [(opening.id, w) for w, _ in _offenders([opening.text], words)]
    assert wrong == []


def test_replies_name_no_time_of_day(content: ContentPack) -> None:
    texts = [r.text for r in content.checkin_replies("en")]
    assert _offenders(texts, REPLY_TIME_WORDS) == []


def test_replies_do_not_talk_down_forecast_or_assume(content: ContentPack) -> None:
    texts = [r.text for r in content.checkin_replies("en")]
    assert _offenders(texts, HURTFUL_REPLY_PHRASES) == []


def test_no_opening_or_reply_echoes_self_harm(content: ContentPack) -> None:
    texts = [o.text for o in content.openings("en")]
    texts += [r.text for r in content.checkin_replies("en")]
    assert _offenders(texts, SELF_HARM_IDIOMS) == []


@pytest.mark.parametrize(
    ("phrases", "text", "flagged"),
    [
        (PERSONAL_WORDS, "Missing you. Sleep well", ["sleep", "missing"]),
        (PERSONAL_WORDS, "Dismiss or open your check-in.", []),
        (TIME_WORDS["evening"], "Bedrock, embedded, nightly", []),
        (REPLY_TIME_WORDS, "Rest before bed.", ["bed"]),
        (SELF_HARM_IDIOMS, "I'm Dying To know", ["dying to"]),
    ],
)
def test_word_rules_match_whole_words_in_any_case(
    phrases: tuple[str, ...], text: str, flagged: list[str]
) -> None:
    assert sorted(phrase for phrase, _ in _offenders([text], phrases)) == sorted(flagged)
