"""Verbal tics: the words and opening shapes a pack leans on, measured per locale.

The lines that rotate (affirmations, check-in replies, reflections: "cards" here) are read
one or more a day, so a word or a shape they lean on turns into a template the reader
hears every morning. `steady content check` prints the share of each tic per locale and
fails above its limit, naming the cards that carry it.

Words are counted in the cards. Opening shapes are counted in the affirmations and the
check-in replies only: a reflection is a question to sit with, so it opens with one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.content_pack.findings import Finding
from bot.content_pack.pack import LocaleContent

# The limits, in one place: the largest share of cards a tic may reach.
#
# A daily reader meets three or four cards a day, about a hundred a month. A word in one
# card of twenty turns up about once a week in what they read, which is how often a
# friend can say "that counts" before it sounds like a habit; the invitational "you
# can / could / might" is the voice we chose (CONTENT_BRIEF: "you might", "if it helps"),
# so it may come more often, but in one card in ten at most, not in every third card as it
# did before the third edition (31% in English, 32% in Spanish). The opening shapes
# are the first thing read, so a reader notices them sooner: one card in sixteen at most
# for each, and no single first word for more than one card in twelve (in Spanish an
# article opens many sentences, "la", "un", and that limit keeps it from turning into
# "La culpa puede...", "La rabia puede..." over and over).
WORD_LIMITS: dict[str, float] = {
    "counts": 0.03,
    "allowed": 0.03,
    "small": 0.05,
    "you can / could / might": 0.10,
}
SHAPE_LIMITS: dict[str, float] = {
    "a question, then an answer": 0.06,
    'opens with "If"': 0.06,
    'opens with "You"': 0.06,
    "one first word": 0.08,
}


@dataclass(frozen=True, slots=True)
class WordTic:
    """A tic in one language: its pattern, and words before it that make it another word
    ("la cuenta" is a bill, "te diste cuenta" is noticing; neither is "that counts")."""

    key: str  # one of WORD_LIMITS
    label: str  # as the locale writes it
    pattern: re.Pattern[str]
    not_after: frozenset[str] = frozenset()

    def found_in(self, text: str) -> bool:
        for match in self.pattern.finditer(text):
            before = re.findall(r"[\w']+", text[: match.start()].casefold())
            if not before or before[-1] not in self.not_after:
                return True
        return False


@dataclass(frozen=True, slots=True)
class LocaleTics:
    words: tuple[WordTic, ...]
    opens_if: frozenset[str]  # first words of the "If ..." shape
    opens_you: frozenset[str]  # first words of the "You ..." shape
    shape_words: tuple[str, str] = ("If", "You")  # how the report names those two


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)", re.IGNORECASE)


# Words before "cuenta" that make it a bill, an account or noticing ("la cuenta", "darse
# cuenta", "tener en cuenta"), not the "eso cuenta" of the tic.
_NOT_COUNTING = frozenset({
    "la", "tu", "su", "mi", "una", "en", "a", "de", "dar", "darte", "darse", "date",
    "diste", "das", "doy", "dé", "di", "dio", "dado", "dando", "damos", "dieron",
})  # fmt: skip

TICS: dict[str, LocaleTics] = {
    "en": LocaleTics(
        words=(
            WordTic("counts", "counts", _words("counts", r"count(?:s|ed)? as", "still count")),
            WordTic("allowed", "allowed", _words("allowed")),
            WordTic("small", "small", _words("small", "smaller", "smallest")),
            WordTic(
                "you can / could / might",
                "you can / could / might",
                _words(r"you (?:can|could|might)"),
            ),
        ),
        opens_if=frozenset({"if"}),
        opens_you=frozenset({"you", "you're", "you've", "you'd", "you'll"}),
    ),
    "es": LocaleTics(
        words=(
            WordTic(
                "counts",
                "cuenta",
                _words("cuenta", "cuentan"),
                _NOT_COUNTING,
            ),
            WordTic(
                "allowed",
                "permiso / permitido / derecho a",
                _words("permiso", r"permitid[oa]s?", "derecho a"),
            ),
            WordTic("small", "pequeño", _words(r"pequeñ[oa]s?", r"pequeñit[oa]s?")),
            WordTic(
                "you can / could / might",
                "puedes / podrías / quizá",
                _words("puedes", "podrías", "quizás?"),
            ),
        ),
        opens_if=frozenset({"si"}),
        opens_you=frozenset({"puedes", "podrías"}),
        shape_words=("Si", "Puedes"),
    ),
}


@dataclass(frozen=True, slots=True)
class Share:
    name: str
    limit: float
    ids: tuple[str, ...]  # the items that carry it
    out_of: int

    @property
    def share(self) -> float:
        return len(self.ids) / self.out_of if self.out_of else 0.0

    @property
    def over(self) -> bool:
        return self.share > self.limit


_SENTENCE = re.compile(r"[^.!?]*[.!?]+[\"'’”»)]*")
_LEADING = "¿¡«\"'“‘(—–- "


def first_sentence(text: str) -> str:
    match = _SENTENCE.match(text.strip())
    return match.group(0).strip() if match else text.strip()


def first_word(text: str) -> str:
    words = text.strip().lstrip(_LEADING).split()
    return words[0].strip(",.;:!?…»\"'").casefold() if words else ""


def asks_then_answers(text: str) -> bool:
    """'Restless for no clear reason? Your system may be...': a question as the opening
    sentence, then a statement that answers it."""
    first = first_sentence(text)
    rest = text.strip()[len(first) :].strip() if text.strip().startswith(first) else ""
    return first.rstrip("\"'’”»)").endswith("?") and bool(rest) and not _all_questions(rest)


def _all_questions(text: str) -> bool:
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
    return bool(sentences) and all(s.rstrip("\"'’”»)").endswith("?") for s in sentences)


def _items(content: LocaleContent) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(cards, openers): the rotating lines, and the ones whose opening shape counts."""
    openers = [(a.id, a.text) for a in content.affirmations]
    openers += [(r.id, r.text) for r in content.checkin_replies]
    cards = openers + [(q.id, q.text) for q in content.reflections]
    return cards, openers


def measure(content: LocaleContent) -> list[Share]:
    tics = TICS.get(content.locale)
    if tics is None:
        return []
    cards, openers = _items(content)
    shares = [
        Share(
            tic.label,
            WORD_LIMITS[tic.key],
            tuple(item_id for item_id, text in cards if tic.found_in(text)),
            len(cards),
        )
        for tic in tics.words
    ]
    firsts = [(item_id, first_word(text)) for item_id, text in openers]
    if_word, you_word = tics.shape_words
    shapes: list[tuple[str, str, Callable[[str, str], bool]]] = [
        ("a question, then an answer", "", lambda text, _: asks_then_answers(text)),
        ('opens with "If"', f'opens with "{if_word}"', lambda _, word: word in tics.opens_if),
        ('opens with "You"', f'opens with "{you_word}"', lambda _, word: word in tics.opens_you),
    ]
    for key, label, test in shapes:
        ids = tuple(
            item_id
            for (item_id, text), (_, word) in zip(openers, firsts, strict=True)
            if test(text, word)
        )
        shares.append(Share(label or key, SHAPE_LIMITS[key], ids, len(openers)))
    common, _ = Counter(word for _, word in firsts).most_common(1)[0] if firsts else ("", 0)
    shares.append(
        Share(
            f'one first word ("{common}")',
            SHAPE_LIMITS["one first word"],
            tuple(item_id for item_id, word in firsts if word == common),
            len(openers),
        )
    )
    return shares


def tic_report(content: LocaleContent) -> tuple[list[str], list[Finding]]:
    """Lines to print, and a failure for each tic over its limit."""
    shares = measure(content)
    if not shares:
        return [], []
    cards, openers = _items(content)
    lines = [
        f"{content.locale}: verbal tics, in {len(cards)} cards (words) and "
        f"{len(openers)} affirmations and replies (how they open); share / limit"
    ]
    lines += [
        f"  {s.share:5.1%} / {s.limit:4.0%}  {s.name}{'  OVER' if s.over else ''}" for s in shares
    ]
    failures = [
        Finding(
            f"{content.locale}/cards",
            f"{s.name!r} in {s.share:.1%}, over its limit of {s.limit:.0%} "
            f"(bot/content_pack/tics.py): {_some(s.ids)}",
        )
        for s in shares
        if s.over
    ]
    return lines, failures


def _some(ids: Sequence[str], shown: int = 12) -> str:
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more
