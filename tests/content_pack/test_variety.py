"""The shipped pack has enough to read, in more than one shape, and none of the idioms that
echo self-harm."""

from __future__ import annotations

import re
from collections import Counter

from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import Affirmation, Theme

# Checked anywhere in the pack's affirmations and reflections, as whole words.
HARMFUL_IDIOMS = (
    "taking your own life",
    "dying to",
    "dying for",
    "kill time",
    "killing time",
    "dead tired",
    "to die for",
    "dead end",
    "kill me",
    "over my dead body",
    # Their close relatives.
    "take your own life",
    "dying of",
    "killing me",
    "to death",
    "shoot me",
)

# "X is not Y." / "X does not mean Y." as the first sentence: the mould the pack leaned on.
_DENIAL = re.compile(
    r"\b(is|are|was|were)\s+(not|no|never)\b"
    r"|\b(isn't|aren't|wasn't|weren't)\b"
    r"|\b(does|do|did)(\s+not|n't)\s+(mean|make|prove|equal|undo|erase|cancel)\b",
    re.IGNORECASE,
)
_ADDRESSES_READER = re.compile(r"\byou(r|rs|rself|'re|'ve|'d|'ll)?\b", re.IGNORECASE)
# A sentence runs to its last mark, closing quotes included: 'She said "no." Then...'.
_SENTENCE = re.compile(r"[^.?!]+(?:[.?!]+[\"'’”)]*|$)")


_IDIOM = re.compile(r"\b(" + "|".join(map(re.escape, HARMFUL_IDIOMS)) + r")\b", re.IGNORECASE)


def harmful_idiom(text: str) -> str | None:
    hit = _IDIOM.search(text)
    return hit.group(0) if hit else None


def sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE.findall(text) if part.strip()]


def opens_with_denial(text: str) -> bool:
    return bool(_DENIAL.search(sentences(text)[0]))


def addresses_reader(text: str) -> bool:
    return bool(_ADDRESSES_READER.search(text))


def test_the_shape_checks_read_what_they_claim() -> None:
    assert opens_with_denial("Guilt is not proof. It can pass.")
    assert opens_with_denial("A pause doesn't mean giving up.")
    assert not opens_with_denial("You can rest. Rest is not a reward.")
    assert addresses_reader("Your breath can slow.") and not addresses_reader("Young trees bend.")
    assert sentences('One. "Two?" Three!') == ["One.", '"Two?"', "Three!"]
    assert harmful_idiom("I'm Dying To know.") == "Dying To"
    assert harmful_idiom("a deadline") is None and harmful_idiom("a dead end") == "dead end"


def test_affirmations_cover_every_theme_with_enough_to_rotate(content: ContentPack) -> None:
    affirmations = content.affirmations("en")
    assert len(affirmations) >= 190
    per_theme = Counter(item.theme for item in affirmations)
    assert len(per_theme) >= 29
    assert min(per_theme.values()) >= 6, per_theme.most_common()[-3:]
    # The first fifteen themes are the oldest, each with a full week of its own.
    assert all(per_theme[theme] >= 7 for theme in list(Theme)[:15])


def test_affirmations_vary_their_shape_and_speak_to_the_reader(content: ContentPack) -> None:
    affirmations = content.affirmations("en")
    denials = [item.id for item in affirmations if opens_with_denial(item.text)]
    assert len(denials) <= 0.15 * len(affirmations), denials
    speaking = [item for item in affirmations if addresses_reader(item.text)]
    assert len(speaking) >= 0.60 * len(affirmations)
    too_long = [item.id for item in affirmations if not 1 <= len(sentences(item.text)) <= 3]
    assert too_long == []


def test_enough_affirmations_suit_a_first_contact(content: ContentPack) -> None:
    first: list[Affirmation] = [item for item in content.affirmations("en") if item.first]
    assert len(first) >= 8
    assert len({item.theme for item in first}) >= 6


def test_reflections_are_enough_for_a_month(content: ContentPack) -> None:
    assert len(content.reflections("en")) >= 40


def test_no_item_carries_a_self_harm_idiom(content: ContentPack) -> None:
    texts = {item.id: item.text for item in content.affirmations("en")}
    texts.update({item.id: item.text for item in content.reflections("en")})
    found = {item_id: hit for item_id, text in texts.items() if (hit := harmful_idiom(text))}
    assert found == {}


def test_no_two_items_share_a_run_of_eight_words(content: ContentPack) -> None:
    """A run this long in two items means one was written from the other."""
    items = [(item.id, item.text) for item in content.affirmations("en")]
    items += [(item.id, item.text) for item in content.reflections("en")]
    first_owner: dict[str, str] = {}
    shared = []
    for item_id, text in items:
        words = re.findall(r"[a-z']+", text.lower())
        for start in range(len(words) - 7):
            run = " ".join(words[start : start + 8])
            owner = first_owner.setdefault(run, item_id)
            if owner != item_id:
                shared.append((owner, item_id, run))
    assert shared == []
