"""The English rule classes of issue 24, each tried with wording of its own (none of these
sentences is in the corpus the classes were written from), and the grading between them:
murder then suicide is full danger, a blade on one's own skin is a crisis first, missing
someone who died is not an urge, a year long gone reads as the past."""

from __future__ import annotations

import pytest

from bot.content_pack.pack import ContentPack
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen

CRISIS, DANGER, CHECK, NONE = (
    ReplyLevel.CRISIS,
    ReplyLevel.DANGER,
    ReplyLevel.CHECK,
    ReplyLevel.NONE,
)

CASES = [
    # means and preparation without the word
    ("picked up some rope from the hardware shop today and i know what its for", CRISIS),
    ("the shotgun is loaded and sitting on my bed", CRISIS),
    ("washed down every tablet in the house with a bottle of wine", CRISIS),
    ("been sat in the garage for an hour with the engine running", CRISIS),
    ("left a letter for each of my children in the kitchen drawer", CRISIS),
    ("updated my will this morning so nobody has to sort anything out after", CRISIS),
    ("i wont be around for christmas, ive made my peace with it", CRISIS),
    # the passive wish and its slang
    ("every morning im gutted that i woke up", CRISIS),
    ("i keep hoping a lorry hits me on the way to work", CRISIS),
    ("honestly whats even the point", CRISIS),
    ("might as well make it official and be done", CRISIS),
    ("ready to check out of this life for good", CRISIS),
    ("i just want the long sleep now", CRISIS),
    # the last contact
    ("you wont need to worry about me after tonight", CRISIS),
    ("if anyone reads this, im sorry for everything", CRISIS),
    # self-harm by its tools and marks, crisis first even with a blade
    ("pressed the razor against my wrist again", CRISIS),
    ("the knife is on my thigh right now", CRISIS),
    ("my legs are covered in cuts and i want more", CRISIS),
    # danger by paraphrase
    ("found a gps tracker taped under my car", DANGER),
    ("there's an airtag in my coat pocket and it's not mine", DANGER),
    ("he held a cushion over my face until i nearly blacked out", DANGER),
    ("he locked me in the spare room from the outside", DANGER),
    ("he said if i ever leave i'll end up in the ground", DANGER),
    ("he told me he'd hurt my dog if i talked to anyone", DANGER),
    ("my boyfriend is drunk and throwing chairs, i'm scared", DANGER),
    ("he put something in my drink at dinner", DANGER),
    # murder then suicide is the full danger reply
    ("he said he would shoot me and then himself", DANGER),
    ("she says she'll drown the kids and then herself", DANGER),
    # a crisis inside a long message that also mentions the other person
    (
        "he texted me this morning\nwanting to talk about the car\nwork was long\n"
        "i made soup\nmy sister rang\ni dont want to be alive anymore\nhe called again at 9",
        CRISIS,
    ),
    # softened: the past by its year, someone else, the topic
    ("i tried to end my life in 2016, i'm doing well now", CHECK),
    ("back in 2009 he strangled me, but he's long gone", CHECK),
    ("my flatmate is suicidal and i don't know how to help", CHECK),
    ("giving a presentation on suicide at work next week", CHECK),
    # ordinary talk, hard negatives among it
    ("i miss my grandad so much, he passed in the summer", NONE),
    ("miss her every day since the funeral", NONE),
    ("this is my last message before i go on holiday, bye for now", NONE),
    ("got covered in bruises at rugby on saturday", NONE),
    ("my mate is a copper so he carries a taser at work", NONE),
    ("this queue is killing me", NONE),
]


@pytest.mark.parametrize(("text", "level"), CASES)
def test_each_class_gets_its_reply(content: ContentPack, text: str, level: ReplyLevel) -> None:
    detection = SafetyScreen(content).detector("en").detect(text)
    assert detection.reply is level, [match.rule_id for match in detection.matches]


def test_a_blade_on_ones_own_skin_puts_crisis_lines_first(content: ContentPack) -> None:
    """Self-harm with a blade is a crisis of one's own: the reply leads with crisis lines,
    never with the lines for abuse from another person."""
    detector = SafetyScreen(content).detector("en")
    for text in (
        "holding the blade to my arm",
        "the blade is against my skin",
        "blade to my wrist",
    ):
        assert detector.detect(text).reply is CRISIS, text
